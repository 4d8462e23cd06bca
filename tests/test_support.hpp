// Helpers shared by the test files: the decks in inputs/ and short runs of them.
#pragma once

#include <algorithm>
#include <filesystem>
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

}  // namespace halocline::test
