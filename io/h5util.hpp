// Small HDF5 helpers shared by the snapshot and checkpoint writers: an owning handle,
// checks that turn HDF5's negative return values into one clear line, attributes (texts,
// booleans, the run's provenance), the switch for HDF5's own error printing, and the way a
// file reaches the disk (MemoryFile, then write_file_atomically of io/atomic_file.hpp).
//
// Why files are built in memory: when a write fails inside HDF5 1.10 (full disk, quota,
// `ulimit -f`), closing the file fails too, and the file's ID then points at freed memory:
// the library crashes when it closes its IDs at exit or at MPI_Finalize, whether or not the
// program calls H5Fclose again. So HDF5 only ever writes to memory (its core driver, no
// backing store), where nothing fails but allocation, and the finished image goes to disk
// through write(2) and fsync(2), whose errno names the reason exactly.
#pragma once

#include <fcntl.h>
#include <hdf5.h>
#include <sys/mman.h>
#include <unistd.h>

#include <algorithm>
#include <atomic>
#include <cerrno>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <initializer_list>
#include <stdexcept>
#include <string>
#include <type_traits>

#include "io/atomic_file.hpp"
#include "io/output_error.hpp"
#include "io/provenance_record.hpp"
#include "kernels/contract/state_slabs.hpp"  // CellBlock

namespace halocline {

// HDF5 prints its whole error stack on stderr after every failed call unless told not to;
// the run's own messages say what failed in one line, so printing is off unless turned on
// here (the command line's debug flag). Process-wide; applied whenever a file is opened or
// created (h5::apply_error_printing).
inline void set_hdf5_error_printing(bool on);

namespace h5 {

inline std::atomic<bool>& error_printing_flag() {
  static std::atomic<bool> on{false};
  return on;
}

// HDF5 keeps the setting per thread and anyone may change it: set it again before use.
inline void apply_error_printing() {
  if (error_printing_flag())
    H5Eset_auto2(H5E_DEFAULT, reinterpret_cast<H5E_auto2_t>(H5Eprint2), nullptr);  // HDF5's default
  else
    H5Eset_auto2(H5E_DEFAULT, nullptr, nullptr);
}

// Owns one HDF5 identifier, so that every early exit (exceptions included) closes it.
class H5Handle {
 public:
  H5Handle(hid_t id, herr_t (*close)(hid_t)) : id_(id), close_(close) {}
  ~H5Handle() {
    if (id_ >= 0) close_(id_);
  }
  H5Handle(const H5Handle&) = delete;
  H5Handle& operator=(const H5Handle&) = delete;
  hid_t get() const { return id_; }
  // Closes now and returns HDF5's status (a file's cached data are written at close, so
  // writers must see it); the destructor then has nothing left to do.
  herr_t close() {
    const hid_t id = id_;
    id_ = -1;
    return id >= 0 ? close_(id) : 0;
  }

 private:
  hid_t id_;
  herr_t (*close_)(hid_t);
};

// The operating system's reason behind the failure now on HDF5's error stack, from the
// innermost entry that quotes errno (the POSIX drivers write "errno = 28, error message =
// '...'"); else `saved_errno`, errno as the failing call left it (the MPI-IO driver quotes
// none, but MPI-IO's write(2) set it); else the innermost entry's own text. Must run before
// the next HDF5 call, which clears the stack.
inline std::string reason_on_stack(int saved_errno) {
  struct Found {
    std::string os, innermost;
  } found;
  auto visit = [](unsigned, const H5E_error2_t* e, void* data) -> herr_t {
    auto& f = *static_cast<Found*>(data);
    const std::string desc = e->desc ? e->desc : "";
    if (f.innermost.empty()) f.innermost = desc.substr(0, desc.find('\n'));
    const std::size_t at = desc.find("errno = ");
    if (f.os.empty() && at != std::string::npos) {
      const int code = std::atoi(desc.c_str() + at + 8);
      if (code > 0) f.os = std::strerror(code);
    }
    return 0;
  };
  H5Ewalk2(H5E_DEFAULT, H5E_WALK_UPWARD, visit, &found);
  if (!found.os.empty()) return found.os;
  if (saved_errno != 0) return std::strerror(saved_errno);
  if (found.innermost.size() > 160) found.innermost = found.innermost.substr(0, 157) + "...";
  return found.innermost;
}

// A failed HDF5 call: what() is "HDF5: cannot WHAT in 'PATH': CAUSE"; reason() is the
// short form for a writer's own message (the OS error when one is known).
class Error : public std::runtime_error {
 public:
  Error(const std::string& what, const std::string& path, std::string cause)
      : std::runtime_error("HDF5: cannot " + what + " in '" + path + "'" + (cause.empty() ? "" : ": " + cause)),
        reason_(cause.empty() ? "HDF5 could not " + what : cause) {}
  const std::string& reason() const { return reason_; }

 private:
  std::string reason_;
};

// HDF5 reports failure through negative return values; turn them into one clear line.
// errno is read first thing after the call, and cleared after a call that worked, so that
// a value seen at a failure was set during the failing call (HDF5 itself leaves stale ones,
// such as ENOENT from probing for an existing file at create).
inline hid_t check_id(hid_t id, const std::string& what, const std::string& path) {
  const int saved = errno;
  if (id < 0) throw Error(what, path, reason_on_stack(saved));
  errno = 0;
  return id;
}
inline void check(herr_t status, const std::string& what, const std::string& path) {
  const int saved = errno;
  if (status < 0) throw Error(what, path, reason_on_stack(saved));
  errno = 0;
}

// The hyperslab of `block` in a dataset stored (z, y, x), as HDF5 orders dimensions.
inline void zyx_hyperslab(const CellBlock& block, hsize_t start[3], hsize_t count[3]) {
  for (int d = 0; d < 3; ++d) {
    start[2 - d] = static_cast<hsize_t>(block.offset[d]);
    count[2 - d] = static_cast<hsize_t>(block.n[d]);
  }
}

// Files in HDF5 1.8's format, which any HDF5 from 1.8 on reads: its object headers keep an
// attribute over 64 KiB (a long deck's text) in dense storage, where the earliest format
// refuses it ("object header message is too large").
inline void use_hdf5_1_8_format(hid_t file_access, const std::string& path) {
#if H5_VERSION_GE(1, 10, 2)
  check(H5Pset_libver_bounds(file_access, H5F_LIBVER_V18, H5F_LIBVER_V18), "choose the HDF5 1.8 format", path);
#else
  check(H5Pset_libver_bounds(file_access, H5F_LIBVER_LATEST, H5F_LIBVER_LATEST), "choose the HDF5 1.8 format", path);
#endif
}

// Writes an attribute of `count` values (count 0 means a scalar) on `object`: the file (its
// root group), a group or a dataset.
inline void write_attribute(hid_t object, const char* name, hid_t type, hsize_t count, const void* data,
                            const std::string& path) {
  H5Handle space(check_id(count == 0 ? H5Screate(H5S_SCALAR) : H5Screate_simple(1, &count, nullptr),
                          "create dataspace for attribute '" + std::string(name) + "'", path),
                 H5Sclose);
  H5Handle attr(check_id(H5Acreate2(object, name, type, space.get(), H5P_DEFAULT, H5P_DEFAULT),
                         "create attribute '" + std::string(name) + "'", path),
                H5Aclose);
  check(H5Awrite(attr.get(), type, data), "write attribute '" + std::string(name) + "'", path);
}

// A text attribute, as a fixed-length string of the text's bytes (h5py reads it as bytes;
// the checkpoint reader refuses variable-length strings). An empty text is one NUL byte:
// HDF5 has no string type of size 0.
inline void write_text_attribute(hid_t object, const char* name, const std::string& value, const std::string& path) {
  H5Handle type(check_id(H5Tcopy(H5T_C_S1), "make a string type", path), H5Tclose);
  check(H5Tset_size(type.get(), std::max<std::size_t>(1, value.size())), "size a string type", path);
  const std::string stored = value.empty() ? std::string(1, '\0') : value;
  write_attribute(object, name, type.get(), 0, stored.data(), path);
}

// A text attribute as write_text_attribute writes one, into `out`; "" where `object` has no
// attribute `name`; false where it has one that is not such a text.
inline bool read_text_attribute(hid_t object, const char* name, std::string& out) {
  out.clear();
  if (H5Aexists(object, name) <= 0) return true;
  H5Handle attr(H5Aopen(object, name, H5P_DEFAULT), H5Aclose);
  H5Handle type(attr.get() >= 0 ? H5Aget_type(attr.get()) : -1, H5Tclose);
  if (type.get() < 0 || H5Tget_class(type.get()) != H5T_STRING || H5Tis_variable_str(type.get()) != 0) return false;
  std::string value(H5Tget_size(type.get()), '\0');
  if (H5Aread(attr.get(), type.get(), value.data()) < 0) return false;
  out = value.substr(0, value.find('\0'));
  return true;
}

// The root text attribute "format" of the HDF5 file at `path` ("halocline-snapshot",
// "halocline-checkpoint"); empty for a file that is not HDF5 or says no format.
// HDF5's error stack stays quiet whatever the command set: a file that is not HDF5 is an
// answer here, not an error.
inline std::string hdf5_format_of(const std::string& path) {
  std::string format;
  H5E_BEGIN_TRY {
    H5Handle file(H5Fopen(path.c_str(), H5F_ACC_RDONLY, H5P_DEFAULT), H5Fclose);
    if (file.get() < 0 || !read_text_attribute(file.get(), "format", format)) format.clear();
  }
  H5E_END_TRY;
  return format;
}

// Whether the HDF5 file at `path` has every root attribute of `names` (quietly, as above).
inline bool hdf5_has_attributes(const std::string& path, std::initializer_list<const char*> names) {
  bool all = false;
  H5E_BEGIN_TRY {
    H5Handle file(H5Fopen(path.c_str(), H5F_ACC_RDONLY, H5P_DEFAULT), H5Fclose);
    all = file.get() >= 0;
    for (const char* name : names) all = all && H5Aexists(file.get(), name) > 0;
  }
  H5E_END_TRY;
  return all;
}

// A boolean as h5py writes one, an 8-bit enum FALSE = 0, TRUE = 1: h5py reads it back as a
// bool; the C API reads it with its own (enum) type into an int8_t.
inline void write_bool_attribute(hid_t object, const char* name, bool value, const std::string& path) {
  H5Handle type(check_id(H5Tenum_create(H5T_NATIVE_INT8), "make a boolean type", path), H5Tclose);
  const std::int8_t no = 0, yes = 1, stored = value ? yes : no;
  check(H5Tenum_insert(type.get(), "FALSE", &no), "make a boolean type", path);
  check(H5Tenum_insert(type.get(), "TRUE", &yes), "make a boolean type", path);
  write_attribute(object, name, type.get(), 0, &stored, path);
}

// The run's provenance (io/provenance_record.hpp) as the attributes of a group "provenance" of
// `file`: texts, 64-bit integers and booleans, one per field, under the field's name.
inline void write_provenance(hid_t file, const Provenance& provenance, const std::string& path) {
  H5Handle group(check_id(H5Gcreate2(file, "provenance", H5P_DEFAULT, H5P_DEFAULT, H5P_DEFAULT),
                          "create group 'provenance'", path),
                 H5Gclose);
  visit_provenance(provenance, [&](const char* name, const auto& value) {
    using Field = std::decay_t<decltype(value)>;
    if constexpr (std::is_same_v<Field, std::string>)
      write_text_attribute(group.get(), name, value, path);
    else if constexpr (std::is_same_v<Field, bool>)
      write_bool_attribute(group.get(), name, value, path);
    else
      write_attribute(group.get(), name, H5T_NATIVE_INT64, 0, &value, path);
  });
  check(group.close(), "close group 'provenance'", path);
}

// The HDF5 library this process runs with (it may differ from the headers it was built
// against): "1.10.8", with " (parallel)" for a parallel build.
inline std::string hdf5_library_version() {
  unsigned major = 0, minor = 0, release = 0;
  H5get_libversion(&major, &minor, &release);
  std::string version = std::to_string(major) + "." + std::to_string(minor) + "." + std::to_string(release);
#if defined(H5_HAVE_PARALLEL)
  version += " (parallel)";
#endif
  return version;
}

// An HDF5 file built in memory (see the top of this file). `path` is only named in
// messages; `expected_bytes` (the data plus a margin) sizes the one allocation, so that the
// image is not copied while it grows. After finish(), data() and size() are the file.
class MemoryFile {
 public:
  MemoryFile(const std::string& path, std::size_t expected_bytes) : path_(path) {
    apply_error_printing();
    H5Handle fapl(check_id(H5Pcreate(H5P_FILE_ACCESS), "create file access list", path), H5Pclose);
    check(H5Pset_fapl_core(fapl.get(), expected_bytes + (1u << 20), /*backing_store=*/0), "use the in-memory driver",
          path);
    use_hdf5_1_8_format(fapl.get(), path);
    H5FD_file_image_callbacks_t callbacks = {image_malloc, image_memcpy, image_realloc, image_free,
                                             udata_copy,   udata_free,   &image_};
    check(H5Pset_file_image_callbacks(fapl.get(), &callbacks), "keep the file image", path);
    // HDF5 first tries to open the name as an existing file (O_RDWR, following links); a
    // name below /dev/null can never exist, so no file on disk is touched.
    file_ = check_id(H5Fcreate("/dev/null/halocline-memory-file", H5F_ACC_TRUNC, H5P_DEFAULT, fapl.get()),
                     "create file", path);
  }
  ~MemoryFile() {
    if (file_ >= 0) H5Fclose(file_);
    big_free(image_.data);
  }
  MemoryFile(const MemoryFile&) = delete;
  MemoryFile& operator=(const MemoryFile&) = delete;

  hid_t get() const { return file_; }

  // Writes HDF5's cached metadata into the image and closes the file (every dataset and
  // attribute must be closed by now).
  void finish() {
    check(H5Fflush(file_, H5F_SCOPE_LOCAL), "flush file", path_);
    const ssize_t size = H5Fget_file_image(file_, nullptr, 0);
    if (size < 0) throw Error("measure file image", path_, reason_on_stack(0));
    const hid_t file = file_;
    file_ = -1;
    check(H5Fclose(file), "close file", path_);
    // The flush grows the image to its end of allocation; anything else is a library change.
    if (!image_.closed || static_cast<std::size_t>(size) > image_.allocated)
      throw Error("collect the in-memory file image", path_, "");
    size_ = static_cast<std::size_t>(size);
  }
  const void* data() const { return image_.data; }
  std::size_t size() const { return size_; }

 private:
  // HDF5's core driver allocates the image through these; at close it hands the image to
  // image_free, which keeps it (the file's bytes) until this object dies.
  struct Image {
    void* data = nullptr;
    std::size_t allocated = 0;
    bool closed = false;
  };
  // The image is as large as the file (gigabytes): mapped in transparent huge pages where
  // the kernel allows them, since a virtual machine pays dearly for each 4 KiB page's first
  // touch (the CPU machine: about 4 s for a 671 MB image in 4 KiB pages). Each block records
  // its mapping's length in front of it.
  static constexpr std::size_t kHeader = 64, kHuge = std::size_t(2) << 20;
  static std::size_t mapping_length(std::size_t size) { return (size + kHeader + kHuge - 1) / kHuge * kHuge; }
  static void* mapped(void* mapping, std::size_t length) {
    if (mapping == MAP_FAILED) return nullptr;
    (void)madvise(mapping, length, MADV_HUGEPAGE);  // advice: refused where the kernel has none
    *static_cast<std::size_t*>(mapping) = length;
    return static_cast<char*>(mapping) + kHeader;
  }
  static void* block_of(void* ptr) { return static_cast<char*>(ptr) - kHeader; }
  static void* big_malloc(std::size_t size) {
    const std::size_t length = mapping_length(size);
    return mapped(mmap(nullptr, length, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0), length);
  }
  static void* big_realloc(void* ptr, std::size_t size) {
    if (!ptr) return big_malloc(size);
    const std::size_t old = *static_cast<std::size_t*>(block_of(ptr)), length = mapping_length(size);
    if (length == old) return ptr;
    return mapped(mremap(block_of(ptr), old, length, MREMAP_MAYMOVE), length);
  }
  static void big_free(void* ptr) {
    if (ptr) munmap(block_of(ptr), *static_cast<std::size_t*>(block_of(ptr)));
  }
  static void* image_malloc(std::size_t size, H5FD_file_image_op_t, void*) { return big_malloc(size); }
  static void* image_memcpy(void* to, const void* from, std::size_t size, H5FD_file_image_op_t, void*) {
    return std::memcpy(to, from, size);
  }
  static void* image_realloc(void* ptr, std::size_t size, H5FD_file_image_op_t, void* udata) {
    void* grown = big_realloc(ptr, size);
    if (grown) {
      static_cast<Image*>(udata)->data = grown;
      static_cast<Image*>(udata)->allocated = size;
    }
    return grown;
  }
  static herr_t image_free(void* ptr, H5FD_file_image_op_t op, void* udata) {
    auto& image = *static_cast<Image*>(udata);
    if (op == H5FD_FILE_IMAGE_OP_FILE_CLOSE && ptr == image.data) {
      image.closed = true;
      return 0;
    }
    if (ptr == image.data) image = Image{};
    big_free(ptr);
    return 0;
  }
  static void* udata_copy(void* udata) { return udata; }  // one Image, owned by this object
  static herr_t udata_free(void*) { return 0; }

  std::string path_;
  Image image_;
  hid_t file_ = -1;
  std::size_t size_ = 0;
};

}  // namespace h5

inline void set_hdf5_error_printing(bool on) {
  h5::error_printing_flag() = on;
  h5::apply_error_printing();
}

}  // namespace halocline
