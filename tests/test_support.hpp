// Helpers shared by the test files: the decks in inputs/ and short runs of them, temporary
// directories, and reading HDF5 files back.
#pragma once

#include <algorithm>
#include <cstdint>
#include <filesystem>
#include <nlohmann/json.hpp>
#include <string>
#include <vector>

#include <hdf5.h>
#include <unistd.h>

#include "io/config.hpp"
#include "io/deck.hpp"

namespace halocline::test {

inline std::vector<std::string> input_decks() {
  namespace fs = std::filesystem;
  std::vector<std::string> decks;
  for (const auto& e : fs::directory_iterator(fs::path(HALOCLINE_SOURCE_DIR) / "inputs"))
    if (e.path().extension() == ".toml") decks.push_back(e.path().string());
  std::sort(decks.begin(), decks.end());
  return decks;
}

// A short run of a deck: 4 steps, large 3-D decks shrunk to 24^3.
inline Config short_run(const std::string& deck) {
  Config c = load_deck(deck);
  if (c.n[0] * static_cast<long>(c.n[1]) * c.n[2] > 100000) c = load_deck(deck, {"grid.n=24"});
  c.max_steps = 4;
  return c;
}

// A fresh directory under the system's temporary folder, removed with the object.
class TempDir {
 public:
  explicit TempDir(const std::string& tag)
      : path_(std::filesystem::temp_directory_path() / ("halocline_" + tag + "_" + std::to_string(::getpid()))) {
    std::filesystem::remove_all(path_);
  }
  ~TempDir() {
    std::error_code ec;
    std::filesystem::remove_all(path_, ec);
  }
  TempDir(const TempDir&) = delete;
  TempDir& operator=(const TempDir&) = delete;
  const std::filesystem::path& path() const { return path_; }

 private:
  std::filesystem::path path_;
};

inline std::string deck_name(const std::string& path) { return std::filesystem::path(path).stem().string(); }

// One dataset of an HDF5 file, as doubles (empty when it cannot be read).
inline std::vector<double> read_dataset(const std::filesystem::path& file, const char* name) {
  std::vector<double> values;
  const hid_t f = H5Fopen(file.c_str(), H5F_ACC_RDONLY, H5P_DEFAULT);
  if (f < 0) return values;
  const hid_t d = H5Dopen2(f, name, H5P_DEFAULT);
  if (d >= 0) {
    const hid_t space = H5Dget_space(d);
    values.resize(static_cast<std::size_t>(H5Sget_simple_extent_npoints(space)));
    if (H5Dread(d, H5T_NATIVE_DOUBLE, H5S_ALL, H5S_ALL, H5P_DEFAULT, values.data()) < 0) values.clear();
    H5Sclose(space);
    H5Dclose(d);
  }
  H5Fclose(f);
  return values;
}

// A text attribute (a fixed-length string) of an HDF5 object, without its NUL padding;
// "<missing>" when the object has no such attribute, "<not text>" when it is not a string.
inline std::string read_text_attribute(hid_t object, const char* name) {
  if (H5Aexists(object, name) <= 0) return "<missing>";
  const hid_t attr = H5Aopen(object, name, H5P_DEFAULT);
  const hid_t type = H5Aget_type(attr);
  std::string value = "<not text>";
  if (H5Tget_class(type) == H5T_STRING && H5Tis_variable_str(type) == 0) {
    value.assign(H5Tget_size(type), '\0');
    if (H5Aread(attr, type, value.data()) < 0) value = "<unreadable>";
    value = value.substr(0, value.find('\0'));
  }
  H5Tclose(type);
  H5Aclose(attr);
  return value;
}

// A scalar attribute read as `memory_type` into a T; `missing` when there is none.
template <class T>
T read_scalar_attribute(hid_t object, const char* name, hid_t memory_type, T missing) {
  if (H5Aexists(object, name) <= 0) return missing;
  const hid_t attr = H5Aopen(object, name, H5P_DEFAULT);
  T value = missing;
  if (H5Aread(attr, memory_type, &value) < 0) value = missing;
  H5Aclose(attr);
  return value;
}

// Every attribute of the group "provenance" of `file` as JSON, read without knowing the
// field names: strings as strings, 8-bit enums (h5py's booleans) as booleans, integers as
// integers. A file without the group gives null. What app/provenance.cpp's provenance_json
// gives for the same record, so that a file's and a report's can be compared whole.
inline nlohmann::json read_provenance_group(const std::filesystem::path& file) {
  const hid_t f = H5Fopen(file.c_str(), H5F_ACC_RDONLY, H5P_DEFAULT);
  if (f < 0) return nullptr;
  nlohmann::json fields = nullptr;
  const hid_t group = H5Lexists(f, "provenance", H5P_DEFAULT) > 0 ? H5Gopen2(f, "provenance", H5P_DEFAULT) : -1;
  if (group >= 0) {
    fields = nlohmann::json::object();
    auto visit = [](hid_t object, const char* name, const H5A_info_t*, void* data) -> herr_t {
      auto& out = *static_cast<nlohmann::json*>(data);
      const hid_t attr = H5Aopen(object, name, H5P_DEFAULT);
      const hid_t type = H5Aget_type(attr);
      switch (H5Tget_class(type)) {
        case H5T_STRING: out[name] = read_text_attribute(object, name); break;
        case H5T_ENUM: {
          std::int8_t value = -1;
          H5Aread(attr, type, &value);
          out[name] = value == 1;
          break;
        }
        case H5T_INTEGER: {
          std::int64_t value = -1;
          H5Aread(attr, H5T_NATIVE_INT64, &value);
          out[name] = value;
          break;
        }
        default: out[name] = "<unexpected type>";
      }
      H5Tclose(type);
      H5Aclose(attr);
      return 0;
    };
    H5Aiterate2(group, H5_INDEX_NAME, H5_ITER_INC, nullptr, visit, &fields);
    H5Gclose(group);
  }
  H5Fclose(f);
  return fields;
}

}  // namespace halocline::test
