// Small HDF5 helpers shared by the snapshot and checkpoint writers: an owning handle and
// checks that turn HDF5's negative return values into one clear line.
#pragma once

#include <hdf5.h>

#include <stdexcept>
#include <string>

namespace halocline::h5 {

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

 private:
  hid_t id_;
  herr_t (*close_)(hid_t);
};

// HDF5 reports failure through negative return values; turn them into one clear line.
inline hid_t check_id(hid_t id, const std::string& what, const std::string& path) {
  if (id < 0) throw std::runtime_error("HDF5: cannot " + what + " in '" + path + "'");
  return id;
}
inline void check(herr_t status, const std::string& what, const std::string& path) {
  if (status < 0) throw std::runtime_error("HDF5: cannot " + what + " in '" + path + "'");
}

// Writes a root-group attribute of `count` values (count 0 means a scalar).
inline void write_attribute(hid_t file, const char* name, hid_t type, hsize_t count,
                     const void* data, const std::string& path) {
  H5Handle space(check_id(count == 0 ? H5Screate(H5S_SCALAR) : H5Screate_simple(1, &count, nullptr),
                          "create dataspace for attribute '" + std::string(name) + "'", path),
                 H5Sclose);
  H5Handle attr(check_id(H5Acreate2(file, name, type, space.get(), H5P_DEFAULT, H5P_DEFAULT),
                         "create attribute '" + std::string(name) + "'", path),
                H5Aclose);
  check(H5Awrite(attr.get(), type, data), "write attribute '" + std::string(name) + "'", path);
}

}  // namespace halocline::h5
