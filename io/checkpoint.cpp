// Checkpoint files (see checkpoint.hpp): dataset "state" of (5, nz, ny, nx) doubles and
// the header as root attributes.
#include "io/checkpoint.hpp"

#include <algorithm>
#include <cstdint>
#include <cstdio>
#include <filesystem>
#include <system_error>

#include "io/h5util.hpp"
#include "io/output_error.hpp"

namespace fs = std::filesystem;

namespace halocline {
namespace {

using h5::check;
using h5::check_id;
using h5::H5Handle;
using h5::write_attribute;

void write_string(hid_t file, const char* name, const std::string& value, const std::string& path) {
  H5Handle type(check_id(H5Tcopy(H5T_C_S1), "make a string type", path), H5Tclose);
  check(H5Tset_size(type.get(), std::max<std::size_t>(1, value.size())), "size a string type", path);
  const std::string stored = value.empty() ? std::string(1, '\0') : value;
  write_attribute(file, name, type.get(), 0, stored.data(), path);
}

// The dataset and every attribute of the header into the (in-memory) file `f`.
void fill_checkpoint(hid_t f, const CheckpointHeader& h, const std::vector<double>& state,
                     const std::string& path) {
  {
    const hsize_t dims[4] = {static_cast<hsize_t>(kNumVars), static_cast<hsize_t>(h.grid[2]),
                             static_cast<hsize_t>(h.grid[1]), static_cast<hsize_t>(h.grid[0])};
    H5Handle space(check_id(H5Screate_simple(4, dims, nullptr), "create dataspace", path), H5Sclose);
    H5Handle dset(check_id(H5Dcreate2(f, "state", H5T_NATIVE_DOUBLE, space.get(), H5P_DEFAULT,
                                      H5P_DEFAULT, H5P_DEFAULT),
                           "create dataset 'state'", path),
                  H5Dclose);
    check(H5Dwrite(dset.get(), H5T_NATIVE_DOUBLE, H5S_ALL, H5S_ALL, H5P_DEFAULT, state.data()),
          "write dataset 'state'", path);
    check(dset.close(), "close dataset 'state'", path);
  }
  write_string(f, "format", "halocline-checkpoint", path);
  write_attribute(f, "format_version", H5T_NATIVE_INT, 0, &h.format, path);
  write_string(f, "halocline_version", h.halocline_version, path);
  const std::int64_t step = h.step;
  write_attribute(f, "step", H5T_NATIVE_INT64, 0, &step, path);
  write_attribute(f, "time", H5T_NATIVE_DOUBLE, 0, &h.time, path);
  write_attribute(f, "grid", H5T_NATIVE_INT, 3, h.grid.data(), path);
  write_attribute(f, "gamma", H5T_NATIVE_DOUBLE, 0, &h.gamma, path);
  write_string(f, "precision", h.precision, path);
  write_string(f, "layout", h.layout, path);
  write_string(f, "backend", h.backend, path);
  write_attribute(f, "ranks_grid", H5T_NATIVE_INT, 3, h.ranks_grid.data(), path);
  write_string(f, "deck", h.deck_text, path);
  write_string(f, "checksum", h.checksum, path);
}

// Reading: every failure is the file's fault, so it is a CheckpointError (exit code 2).
[[noreturn]] void refuse(const std::string& path, const std::string& why) {
  throw CheckpointError("checkpoint '" + path + "' " + why);
}

bool has_attribute(hid_t file, const char* name) { return H5Aexists(file, name) > 0; }

template <class T>
T read_scalar(hid_t file, const char* name, hid_t type, const std::string& path) {
  if (!has_attribute(file, name)) refuse(path, std::string("has no '") + name + "' attribute");
  H5Handle attr(H5Aopen(file, name, H5P_DEFAULT), H5Aclose);
  T value{};
  if (attr.get() < 0 || H5Aread(attr.get(), type, &value) < 0)
    refuse(path, std::string("has an unreadable '") + name + "' attribute");
  return value;
}

std::array<int, 3> read_int3(hid_t file, const char* name, const std::string& path) {
  if (!has_attribute(file, name)) refuse(path, std::string("has no '") + name + "' attribute");
  H5Handle attr(H5Aopen(file, name, H5P_DEFAULT), H5Aclose);
  std::array<int, 3> v{};
  H5Handle space(attr.get() >= 0 ? H5Aget_space(attr.get()) : -1, H5Sclose);
  if (space.get() < 0 || H5Sget_simple_extent_npoints(space.get()) != 3 ||
      H5Aread(attr.get(), H5T_NATIVE_INT, v.data()) < 0)
    refuse(path, std::string("has an unreadable '") + name + "' attribute");
  return v;
}

std::string read_string(hid_t file, const char* name, const std::string& path) {
  if (!has_attribute(file, name)) refuse(path, std::string("has no '") + name + "' attribute");
  H5Handle attr(H5Aopen(file, name, H5P_DEFAULT), H5Aclose);
  H5Handle type(attr.get() >= 0 ? H5Aget_type(attr.get()) : -1, H5Tclose);
  if (type.get() < 0 || H5Tget_class(type.get()) != H5T_STRING)
    refuse(path, std::string("has an unreadable '") + name + "' attribute");
  std::string value(H5Tget_size(type.get()), '\0');
  if (H5Aread(attr.get(), type.get(), value.data()) < 0)
    refuse(path, std::string("has an unreadable '") + name + "' attribute");
  return value.substr(0, value.find('\0'));
}

// Opens a checkpoint for reading, with HDF5's own error printing off unless asked for (the
// refusal says what is wrong in one line).
hid_t open_for_reading(const std::string& path) {
  if (!fs::exists(path)) refuse(path, "does not exist");
  h5::apply_error_printing();
  const hid_t file = H5Fopen(path.c_str(), H5F_ACC_RDONLY, H5P_DEFAULT);
  if (file < 0) refuse(path, "is not a readable HDF5 file (truncated or not a checkpoint)");
  return file;
}

}  // namespace

std::string checkpoint_path(const std::string& dir, long step) {
  char name[40];
  std::snprintf(name, sizeof name, "checkpoint_%08ld.h5", step);
  return (fs::path(dir) / name).string();
}

void write_checkpoint(const std::string& path, const CheckpointHeader& h,
                      const std::vector<double>& state) {
  const std::size_t cells = static_cast<std::size_t>(h.grid[0]) * h.grid[1] * h.grid[2];
  if (state.size() != kNumVars * cells)
    throw std::invalid_argument("checkpoint: state has " + std::to_string(state.size()) +
                                " values, the grid needs " + std::to_string(kNumVars * cells));
  try {
    h5::MemoryFile file(path, state.size() * sizeof(double) + h.deck_text.size());
    fill_checkpoint(file.get(), h, state, path);
    file.finish();
    h5::write_file_atomically(path, file.data(), file.size(), "checkpoint", /*sync_directory=*/true);
  } catch (const h5::Error& e) {
    throw OutputError("cannot write checkpoint '" + path + "': " + e.reason());
  }
}

CheckpointHeader read_checkpoint_header(const std::string& path) {
  H5Handle file(open_for_reading(path), H5Fclose);
  const hid_t f = file.get();
  if (!has_attribute(f, "format") || read_string(f, "format", path) != "halocline-checkpoint")
    refuse(path, "is not a Halocline checkpoint");
  CheckpointHeader h;
  h.format = read_scalar<int>(f, "format_version", H5T_NATIVE_INT, path);
  if (h.format != kCheckpointFormat)
    refuse(path, "has format version " + std::to_string(h.format) + "; this Halocline reads version " +
                     std::to_string(kCheckpointFormat));
  h.halocline_version = read_string(f, "halocline_version", path);
  h.step = static_cast<long>(read_scalar<std::int64_t>(f, "step", H5T_NATIVE_INT64, path));
  h.time = read_scalar<double>(f, "time", H5T_NATIVE_DOUBLE, path);
  h.grid = read_int3(f, "grid", path);
  h.gamma = read_scalar<double>(f, "gamma", H5T_NATIVE_DOUBLE, path);
  h.precision = read_string(f, "precision", path);
  h.layout = read_string(f, "layout", path);
  h.backend = read_string(f, "backend", path);
  h.ranks_grid = read_int3(f, "ranks_grid", path);
  h.deck_text = read_string(f, "deck", path);
  h.checksum = read_string(f, "checksum", path);
  return h;
}

std::vector<double> read_checkpoint_block(const std::string& path, const Grid& local) {
  H5Handle file(open_for_reading(path), H5Fclose);
  H5Handle dset(H5Dopen2(file.get(), "state", H5P_DEFAULT), H5Dclose);
  if (dset.get() < 0) refuse(path, "has no 'state' dataset");
  H5Handle space(H5Dget_space(dset.get()), H5Sclose);
  hsize_t dims[4] = {0, 0, 0, 0};
  if (space.get() < 0 || H5Sget_simple_extent_ndims(space.get()) != 4 ||
      H5Sget_simple_extent_dims(space.get(), dims, nullptr) != 4 || dims[0] != kNumVars ||
      dims[1] != static_cast<hsize_t>(local.n_global[2]) ||
      dims[2] != static_cast<hsize_t>(local.n_global[1]) ||
      dims[3] != static_cast<hsize_t>(local.n_global[0]))
    refuse(path, "has a 'state' dataset of another shape than its grid");
  const hsize_t start[4] = {0, static_cast<hsize_t>(local.offset[2]),
                            static_cast<hsize_t>(local.offset[1]), static_cast<hsize_t>(local.offset[0])};
  const hsize_t count[4] = {static_cast<hsize_t>(kNumVars), static_cast<hsize_t>(local.n[2]),
                            static_cast<hsize_t>(local.n[1]), static_cast<hsize_t>(local.n[0])};
  check(H5Sselect_hyperslab(space.get(), H5S_SELECT_SET, start, nullptr, count, nullptr),
        "select this rank's block", path);
  H5Handle memory(H5Screate_simple(4, count, nullptr), H5Sclose);
  std::vector<double> block(kNumVars * local.ninterior);
  if (H5Dread(dset.get(), H5T_NATIVE_DOUBLE, memory.get(), space.get(), H5P_DEFAULT, block.data()) < 0)
    refuse(path, "has a 'state' dataset that cannot be read (truncated or corrupted)");
  return block;
}

void prune_checkpoints(const std::string& dir, int keep) {
  std::vector<fs::path> found;
  std::error_code ec;
  for (const auto& e : fs::directory_iterator(dir, ec)) {
    const std::string name = e.path().filename().string();
    if (name.size() == 22 && name.rfind("checkpoint_", 0) == 0 && e.path().extension() == ".h5")
      found.push_back(e.path());
  }
  std::sort(found.begin(), found.end());  // 8-digit steps: name order is step order
  for (std::size_t i = 0; i + keep < found.size(); ++i) fs::remove(found[i], ec);
}

}  // namespace halocline
