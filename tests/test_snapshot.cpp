// Tests for SnapshotWriter: HDF5 contents read back through the HDF5 C API, the XDMF
// text, the temporal series, atomic writes and error reporting.
#include <gtest/gtest.h>
#include <hdf5.h>

#include <atomic>
#include <cstdint>
#include <filesystem>
#include <fstream>
#include <sstream>
#include <string>
#include <vector>

#include <unistd.h>

#include "io/snapshot.hpp"

namespace fs = std::filesystem;
using halocline::Grid;
using halocline::SnapshotWriter;

namespace {

// A fresh, empty directory per test, removed afterwards.
class TempDir {
 public:
  TempDir() {
    static std::atomic<int> counter{0};
    path_ = fs::temp_directory_path() /
            ("halocline_snapshot_" + std::to_string(::getpid()) + "_" + std::to_string(counter++));
    fs::remove_all(path_);
    fs::create_directories(path_);
  }
  ~TempDir() {
    std::error_code ec;
    fs::remove_all(path_, ec);
  }
  const fs::path& path() const { return path_; }

 private:
  fs::path path_;
};

Grid make_test_grid(int nx, int ny, int nz) {
  const int n[3] = {nx, ny, nz};
  const double lo[3] = {-1.0, 0.5, 2.0};
  const double hi[3] = {1.0, 1.25, 6.0};  // 4x3x2 cells: dx = 0.5, 0.25, 2
  return halocline::make_grid(n, lo, hi);
}

// value = var * 1000 + canonical cell index, so any misplaced value is detected.
std::vector<double> make_prim(const Grid& g) {
  std::vector<double> prim(5 * g.ninterior);
  for (std::size_t v = 0; v < 5; ++v)
    for (std::size_t c = 0; c < g.ninterior; ++c) prim[v * g.ninterior + c] = v * 1000.0 + c;
  return prim;
}

std::string read_text(const fs::path& p) {
  std::ifstream in(p);
  std::stringstream s;
  s << in.rdbuf();
  return s.str();
}

std::size_t count_of(const std::string& text, const std::string& what) {
  std::size_t n = 0;
  for (std::size_t pos = text.find(what); pos != std::string::npos; pos = text.find(what, pos + 1)) ++n;
  return n;
}

bool has_tmp_files(const fs::path& dir) {
  for (const auto& e : fs::directory_iterator(dir))
    if (e.path().extension() == ".tmp") return true;
  return false;
}

const char* const kVars[5] = {"rho", "u", "v", "w", "p"};

// Reads every dataset back and checks shape, type size and values.
void check_datasets(const std::string& path, const Grid& g, std::size_t type_size) {
  hid_t file = H5Fopen(path.c_str(), H5F_ACC_RDONLY, H5P_DEFAULT);
  ASSERT_GE(file, 0) << path;
  for (int v = 0; v < 5; ++v) {
    SCOPED_TRACE(kVars[v]);
    hid_t dset = H5Dopen2(file, kVars[v], H5P_DEFAULT);
    ASSERT_GE(dset, 0);

    hid_t space = H5Dget_space(dset);
    ASSERT_EQ(H5Sget_simple_extent_ndims(space), 3);
    hsize_t dims[3];
    H5Sget_simple_extent_dims(space, dims, nullptr);
    EXPECT_EQ(dims[0], static_cast<hsize_t>(g.n[2]));
    EXPECT_EQ(dims[1], static_cast<hsize_t>(g.n[1]));
    EXPECT_EQ(dims[2], static_cast<hsize_t>(g.n[0]));
    H5Sclose(space);

    hid_t type = H5Dget_type(dset);
    EXPECT_EQ(H5Tget_class(type), H5T_FLOAT);
    EXPECT_EQ(H5Tget_size(type), type_size);
    H5Tclose(type);

    std::vector<double> data(g.ninterior, -1.0);
    ASSERT_GE(H5Dread(dset, H5T_NATIVE_DOUBLE, H5S_ALL, H5S_ALL, H5P_DEFAULT, data.data()), 0);
    // Values up to 4000 + a few cells are exact in fp32 too.
    for (std::size_t c = 0; c < g.ninterior; ++c) ASSERT_EQ(data[c], v * 1000.0 + c) << "cell " << c;
    H5Dclose(dset);
  }
  H5Fclose(file);
}

template <typename T>
std::vector<T> read_attribute(const std::string& path, const char* name, hid_t mem_type) {
  std::vector<T> out;
  hid_t file = H5Fopen(path.c_str(), H5F_ACC_RDONLY, H5P_DEFAULT);
  if (file < 0) return out;
  hid_t attr = H5Aopen(file, name, H5P_DEFAULT);
  if (attr >= 0) {
    hid_t space = H5Aget_space(attr);
    out.resize(static_cast<std::size_t>(H5Sget_simple_extent_npoints(space)));
    if (H5Aread(attr, mem_type, out.data()) < 0) out.clear();
    H5Sclose(space);
    H5Aclose(attr);
  }
  H5Fclose(file);
  return out;
}

}  // namespace

TEST(Snapshot, WritesDatasetsAndAttributes3D) {
  TempDir tmp;
  const Grid g = make_test_grid(4, 3, 2);
  SnapshotWriter writer(tmp.path().string(), g, /*single_precision=*/false);
  const auto info = writer.write(7, 1234, 0.125, make_prim(g));

  EXPECT_EQ(info.h5_path, (tmp.path() / "snapshot_0007.h5").string());
  EXPECT_EQ(info.xmf_path, (tmp.path() / "snapshot_0007.xmf").string());
  ASSERT_TRUE(fs::exists(info.h5_path));
  check_datasets(info.h5_path, g, 8);

  EXPECT_EQ(read_attribute<double>(info.h5_path, "time", H5T_NATIVE_DOUBLE), std::vector<double>{0.125});
  EXPECT_EQ(read_attribute<std::int64_t>(info.h5_path, "step", H5T_NATIVE_INT64), std::vector<std::int64_t>{1234});
  EXPECT_EQ(read_attribute<int>(info.h5_path, "grid", H5T_NATIVE_INT), (std::vector<int>{4, 3, 2}));
  EXPECT_EQ(read_attribute<double>(info.h5_path, "origin", H5T_NATIVE_DOUBLE),
            (std::vector<double>{g.lo[0], g.lo[1], g.lo[2]}));
  EXPECT_EQ(read_attribute<double>(info.h5_path, "spacing", H5T_NATIVE_DOUBLE),
            (std::vector<double>{g.dx[0], g.dx[1], g.dx[2]}));
  ASSERT_EQ(writer.written().size(), 1u);
  EXPECT_FALSE(has_tmp_files(tmp.path()));
}

TEST(Snapshot, SinglePrecisionStoresFloat32) {
  TempDir tmp;
  const Grid g = make_test_grid(4, 3, 2);
  SnapshotWriter writer(tmp.path().string(), g, /*single_precision=*/true, "run");
  const auto info = writer.write(0, 0, 0.0, make_prim(g));
  EXPECT_EQ(info.h5_path, (tmp.path() / "run_0000.h5").string());
  check_datasets(info.h5_path, g, 4);
  const std::string xmf = read_text(info.xmf_path);
  EXPECT_EQ(count_of(xmf, "Precision=\"4\""), 5u);
}

TEST(Snapshot, XdmfDescribesCellCentredCoRectMesh) {
  TempDir tmp;
  const Grid g = make_test_grid(4, 3, 2);
  SnapshotWriter writer(tmp.path().string(), g, false);
  const auto info = writer.write(3, 10, 0.5, make_prim(g));
  ASSERT_TRUE(fs::exists(info.xmf_path));
  const std::string xmf = read_text(info.xmf_path);
  EXPECT_NE(xmf.find("Version=\"3.0\""), std::string::npos);
  EXPECT_NE(xmf.find("TopologyType=\"3DCoRectMesh\""), std::string::npos);
  EXPECT_NE(xmf.find("Dimensions=\"3 4 5\""), std::string::npos);  // nodes: nz+1 ny+1 nx+1
  EXPECT_EQ(count_of(xmf, "Dimensions=\"2 3 4\""), 5u);            // cells: nz ny nx
  EXPECT_NE(xmf.find("ORIGIN_DXDYDZ"), std::string::npos);
  EXPECT_NE(xmf.find("<Time Value=\"0.5\"/>"), std::string::npos);
  EXPECT_EQ(count_of(xmf, "Center=\"Cell\""), 5u);
  EXPECT_EQ(count_of(xmf, "Precision=\"8\" Dimensions=\"2 3 4\""), 5u);
  for (const char* v : kVars) EXPECT_NE(xmf.find(std::string("snapshot_0003.h5:/") + v + "<"), std::string::npos) << v;
  // Origin and spacing are given z, y, x.
  EXPECT_NE(xmf.find(">2 0.5 -1</DataItem>"), std::string::npos);
  EXPECT_NE(xmf.find(">2 0.25 0.5</DataItem>"), std::string::npos);
}

TEST(Snapshot, SeriesListsEverySnapshot) {
  TempDir tmp;
  const Grid g = make_test_grid(4, 3, 2);
  SnapshotWriter writer(tmp.path().string(), g, false);
  writer.write(0, 0, 0.0, make_prim(g));
  writer.write(1, 50, 0.25, make_prim(g));
  writer.write_series();

  const fs::path series = tmp.path() / "snapshot.xmf";
  ASSERT_TRUE(fs::exists(series));
  const std::string xmf = read_text(series);
  EXPECT_NE(xmf.find("GridType=\"Collection\""), std::string::npos);
  EXPECT_NE(xmf.find("CollectionType=\"Temporal\""), std::string::npos);
  EXPECT_EQ(count_of(xmf, "GridType=\"Uniform\""), 2u);
  EXPECT_NE(xmf.find("<Time Value=\"0\"/>"), std::string::npos);
  EXPECT_NE(xmf.find("<Time Value=\"0.25\"/>"), std::string::npos);
  EXPECT_EQ(count_of(xmf, "snapshot_0000.h5:/"), 5u);
  EXPECT_EQ(count_of(xmf, "snapshot_0001.h5:/"), 5u);
  EXPECT_LT(xmf.find("snapshot_0000.h5"), xmf.find("snapshot_0001.h5"));
  EXPECT_EQ(writer.written().size(), 2u);
  EXPECT_FALSE(has_tmp_files(tmp.path()));
}

TEST(Snapshot, RewritingAnIndexDoesNotDuplicateIt) {
  TempDir tmp;
  const Grid g = make_test_grid(4, 3, 2);
  SnapshotWriter writer(tmp.path().string(), g, false);
  writer.write(2, 0, 1.0, make_prim(g));
  writer.write(2, 5, 1.5, make_prim(g));
  writer.write_series();
  EXPECT_EQ(writer.written().size(), 1u);
  const std::string xmf = read_text(tmp.path() / "snapshot.xmf");
  EXPECT_EQ(count_of(xmf, "GridType=\"Uniform\""), 1u);
  EXPECT_NE(xmf.find("<Time Value=\"1.5\"/>"), std::string::npos);
}

TEST(Snapshot, CreatesMissingParentDirectories) {
  TempDir tmp;
  const Grid g = make_test_grid(4, 3, 2);
  const fs::path nested = tmp.path() / "a" / "b" / "out";
  SnapshotWriter writer(nested.string(), g, false);
  const auto info = writer.write(12345, 1, 2.0, make_prim(g));
  EXPECT_EQ(info.h5_path, (nested / "snapshot_12345.h5").string());
  EXPECT_TRUE(fs::exists(info.h5_path));
}

TEST(Snapshot, WrongPrimSizeThrows) {
  TempDir tmp;
  const Grid g = make_test_grid(4, 3, 2);
  SnapshotWriter writer(tmp.path().string(), g, false);
  std::vector<double> prim = make_prim(g);
  prim.pop_back();
  EXPECT_THROW(writer.write(0, 0, 0.0, prim), std::invalid_argument);
  EXPECT_THROW(writer.write(0, 0, 0.0, {}), std::invalid_argument);
  EXPECT_TRUE(fs::is_empty(tmp.path()));
  EXPECT_TRUE(writer.written().empty());
}

TEST(Snapshot, UnwritableDirectoryThrowsNamingThePath) {
  TempDir tmp;
  const fs::path file = tmp.path() / "plain_file";
  std::ofstream(file) << "not a directory";
  const Grid g = make_test_grid(4, 3, 2);

  const std::string under_file = (file / "out").string();
  try {
    SnapshotWriter writer(under_file, g, false);
    FAIL() << "expected std::runtime_error";
  } catch (const std::runtime_error& e) {
    EXPECT_NE(std::string(e.what()).find(under_file), std::string::npos) << e.what();
  }

  // A path that is itself a regular file is no directory either.
  try {
    SnapshotWriter writer(file.string(), g, false);
    FAIL() << "expected std::runtime_error";
  } catch (const std::runtime_error& e) {
    EXPECT_NE(std::string(e.what()).find(file.string()), std::string::npos) << e.what();
  }
}

TEST(Snapshot, DirectoryRemovedAfterConstructionThrowsOnWrite) {
  TempDir tmp;
  const Grid g = make_test_grid(4, 3, 2);
  const fs::path dir = tmp.path() / "gone";
  SnapshotWriter writer(dir.string(), g, false);
  fs::remove_all(dir);
  H5Eset_auto2(H5E_DEFAULT, nullptr, nullptr);  // keep HDF5's own error trace off the test log
  try {
    writer.write(0, 0, 0.0, make_prim(g));
    FAIL() << "expected std::runtime_error";
  } catch (const std::runtime_error& e) {
    EXPECT_NE(std::string(e.what()).find(dir.string()), std::string::npos) << e.what();
  }
  EXPECT_TRUE(writer.written().empty());
}

TEST(Snapshot, OneDimensionalGrid) {
  TempDir tmp;
  const Grid g = make_test_grid(8, 1, 1);
  SnapshotWriter writer(tmp.path().string(), g, false);
  const auto info = writer.write(1, 2, 3.0, make_prim(g));
  check_datasets(info.h5_path, g, 8);
  EXPECT_EQ(read_attribute<int>(info.h5_path, "grid", H5T_NATIVE_INT), (std::vector<int>{8, 1, 1}));
  const std::string xmf = read_text(info.xmf_path);
  EXPECT_NE(xmf.find("Dimensions=\"2 2 9\""), std::string::npos);
  EXPECT_EQ(count_of(xmf, "Dimensions=\"1 1 8\""), 5u);
  EXPECT_FALSE(has_tmp_files(tmp.path()));
}
