// Tests for SnapshotWriter: HDF5 contents read back through the HDF5 C API (the variables,
// the coordinates, the run's description and provenance), the XDMF text, the temporal
// series, atomic writes and error reporting. (h5py and ParaView read them in
// tests/snapshot_h5py.py and tests/snapshot_paraview.py.)
#include <gtest/gtest.h>
#include <hdf5.h>

#include <atomic>
#include <cstdint>
#include <filesystem>
#include <fstream>
#include <sstream>
#include <string>
#include <type_traits>
#include <vector>

#include <unistd.h>

#include "io/snapshot.hpp"
#include "tests/test_support.hpp"

namespace fs = std::filesystem;
using halocline::Grid;
using halocline::SnapshotWriter;
using halocline::test::read_scalar_attribute;
using halocline::test::read_text_attribute;

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

// A provenance with a different value in every field: texts "<name>-value", numbers 1000,
// 1001, ... in the fields' order, flags true. A field written under another's name shows.
halocline::Provenance distinct_provenance() {
  halocline::Provenance p;
  std::int64_t number = 1000;
  halocline::visit_provenance(p, [&](const char* name, auto& value) {
    using Field = std::decay_t<decltype(value)>;
    if constexpr (std::is_same_v<Field, std::string>)
      value = std::string(name) + "-value";
    else if constexpr (std::is_same_v<Field, bool>)
      value = true;
    else
      value = number++;
  });
  return p;
}

// A run's description with a value in every field, each unlike the defaults.
halocline::SnapshotMetadata metadata(bool single) {
  halocline::SnapshotMetadata m;
  m.single_precision = single;
  m.problem = "kelvin_helmholtz";
  m.gamma = 5.0 / 3.0;
  m.layout = "aosoa";
  m.backend = "kokkos";
  m.deck_text = "# a deck\n[problem]\ntype = \"kelvin_helmholtz\"\n";
  m.series = "00c0ffee00c0ffee";
  m.provenance = distinct_provenance();
  return m;
}

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
  SnapshotWriter writer(tmp.path().string(), g, metadata(false));
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
  SnapshotWriter writer(tmp.path().string(), g, metadata(true), "run");
  const auto info = writer.write(0, 0, 0.0, make_prim(g));
  EXPECT_EQ(info.h5_path, (tmp.path() / "run_0000.h5").string());
  check_datasets(info.h5_path, g, 4);
  const std::string xmf = read_text(info.xmf_path);
  EXPECT_EQ(count_of(xmf, "Precision=\"4\""), 5u);
  const hid_t file = H5Fopen(info.h5_path.c_str(), H5F_ACC_RDONLY, H5P_DEFAULT);
  ASSERT_GE(file, 0);
  EXPECT_EQ(read_text_attribute(file, "precision"), "fp32");
  H5Fclose(file);
  // The coordinates stay 64-bit: a float would move a centre of a fine grid.
  EXPECT_EQ(halocline::test::read_dataset(info.h5_path, "x"), (std::vector<double>{-0.75, -0.25, 0.25, 0.75}));
}

TEST(Snapshot, XdmfDescribesCellCentredCoRectMesh) {
  TempDir tmp;
  const Grid g = make_test_grid(4, 3, 2);
  SnapshotWriter writer(tmp.path().string(), g, metadata(false));
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
  SnapshotWriter writer(tmp.path().string(), g, metadata(false));
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

// The snapshots of the run a restart continues, in `dir`: at t = 0, 0.25 and 0.5 (steps 0,
// 50 and 100).
namespace {
void write_an_earlier_run(const fs::path& dir, const Grid& g) {
  SnapshotWriter earlier(dir.string(), g, metadata(false));
  earlier.write(0, 0, 0.0, make_prim(g));
  earlier.write(1, 50, 0.25, make_prim(g));
  earlier.write(2, 100, 0.5, make_prim(g));
}
}  // namespace

// A restart's writer continues the series of its own run only: the snapshots up to its time
// whose series is its own, never another run's left in the directory (which a restart listed
// as its past before the series existed).
TEST(Snapshot, ARestartContinuesOnlyItsOwnSeries) {
  TempDir tmp;
  const Grid g = make_test_grid(4, 3, 2);
  write_an_earlier_run(tmp.path(), g);

  SnapshotWriter own(tmp.path().string(), g, metadata(false));
  EXPECT_EQ(own.continue_series(0, 0.25), 2);
  EXPECT_EQ(own.written().size(), 2u);
  EXPECT_TRUE(own.later_snapshots().empty());

  halocline::SnapshotMetadata m = metadata(false);
  m.series = "0123456789abcdef";
  SnapshotWriter other(tmp.path().string(), g, m);
  EXPECT_EQ(other.continue_series(0, 0.25), 0);
  EXPECT_TRUE(other.written().empty());
  other.write(0, 60, 0.3, make_prim(g));
  other.write_series();
  const std::string xmf = read_text(tmp.path() / "snapshot.xmf");
  EXPECT_EQ(count_of(xmf, "GridType=\"Uniform\""), 1u) << xmf;
}

// A restart with a shorter output interval numbers its snapshots from an index that the run it
// continues used past the checkpoint (snapshot 2 at t = 0.5 for a restart at 0.3 with an
// interval of 0.1: its first is 3, t = 0.4): that later snapshot joins no series, and is named.
TEST(Snapshot, ARestartLeavesOutItsRunsSnapshotsPastItsTime) {
  TempDir tmp;
  const Grid g = make_test_grid(4, 3, 2);
  write_an_earlier_run(tmp.path(), g);

  SnapshotWriter restarted(tmp.path().string(), g, metadata(false));
  EXPECT_EQ(restarted.continue_series(3, 0.3), 3);
  ASSERT_EQ(restarted.written().size(), 2u);
  EXPECT_EQ(restarted.later_snapshots(), std::vector<std::string>{(tmp.path() / "snapshot_0002.h5").string()});
  restarted.write(3, 60, 0.4, make_prim(g));
  restarted.write_series();
  const std::string xmf = read_text(tmp.path() / "snapshot.xmf");
  EXPECT_EQ(count_of(xmf, "GridType=\"Uniform\""), 3u) << xmf;
  EXPECT_EQ(xmf.find("<Time Value=\"0.5\"/>"), std::string::npos) << xmf;
  EXPECT_LT(xmf.find("<Time Value=\"0.25\"/>"), xmf.find("<Time Value=\"0.4\"/>")) << xmf;
}

TEST(Snapshot, RewritingAnIndexDoesNotDuplicateIt) {
  TempDir tmp;
  const Grid g = make_test_grid(4, 3, 2);
  SnapshotWriter writer(tmp.path().string(), g, metadata(false));
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
  SnapshotWriter writer(nested.string(), g, metadata(false));
  const auto info = writer.write(12345, 1, 2.0, make_prim(g));
  EXPECT_EQ(info.h5_path, (nested / "snapshot_12345.h5").string());
  EXPECT_TRUE(fs::exists(info.h5_path));
}

TEST(Snapshot, WrongPrimSizeThrows) {
  TempDir tmp;
  const Grid g = make_test_grid(4, 3, 2);
  SnapshotWriter writer(tmp.path().string(), g, metadata(false));
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
    SnapshotWriter writer(under_file, g, metadata(false));
    FAIL() << "expected std::runtime_error";
  } catch (const std::runtime_error& e) {
    EXPECT_NE(std::string(e.what()).find(under_file), std::string::npos) << e.what();
  }

  // A path that is itself a regular file is no directory either.
  try {
    SnapshotWriter writer(file.string(), g, metadata(false));
    FAIL() << "expected std::runtime_error";
  } catch (const std::runtime_error& e) {
    EXPECT_NE(std::string(e.what()).find(file.string()), std::string::npos) << e.what();
  }
}

TEST(Snapshot, DirectoryRemovedAfterConstructionThrowsOnWrite) {
  TempDir tmp;
  const Grid g = make_test_grid(4, 3, 2);
  const fs::path dir = tmp.path() / "gone";
  SnapshotWriter writer(dir.string(), g, metadata(false));
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
  SnapshotWriter writer(tmp.path().string(), g, metadata(false));
  const auto info = writer.write(1, 2, 3.0, make_prim(g));
  check_datasets(info.h5_path, g, 8);
  EXPECT_EQ(read_attribute<int>(info.h5_path, "grid", H5T_NATIVE_INT), (std::vector<int>{8, 1, 1}));
  const std::string xmf = read_text(info.xmf_path);
  // One node along y and z, at the centre of their one cell: a row of 8 cells, 9 nodes.
  EXPECT_NE(xmf.find("TopologyType=\"3DCoRectMesh\" Dimensions=\"1 1 9\""), std::string::npos) << xmf;
  EXPECT_NE(xmf.find(">4 0.875 -1</DataItem>"), std::string::npos) << xmf;
  EXPECT_NE(xmf.find(">4 0.75 0.25</DataItem>"), std::string::npos) << xmf;
  EXPECT_EQ(count_of(xmf, "Dimensions=\"1 1 8\""), 5u);
  EXPECT_FALSE(has_tmp_files(tmp.path()));
}

// A slab of one cell along any axis is a 2-D mesh in its plane: one node along that axis,
// at the centre of its cell (ParaView then shows the plane, not a volume's outline).
TEST(Snapshot, XdmfGivesAnAxisOfOneCellOneNodeAtItsCentre) {
  TempDir tmp;
  struct Slab {
    int n[3];
    const char* nodes;
    const char* origin;
    const char* cells;
  };
  for (const Slab& slab : {Slab{{4, 3, 1}, "1 4 5", ">4 0.5 -1<", "1 3 4"},    // x-y: z centre 2 + 4/2
                           Slab{{4, 1, 2}, "3 1 5", ">2 0.875 -1<", "2 1 4"},  // x-z: y centre 0.5 + 0.75/2
                           Slab{{1, 3, 2}, "3 4 1", ">2 0.5 0<", "2 3 1"}}) {  // y-z: x centre -1 + 2/2
    SCOPED_TRACE(slab.nodes);
    const Grid g = make_test_grid(slab.n[0], slab.n[1], slab.n[2]);
    SnapshotWriter writer((tmp.path() / slab.nodes).string(), g, metadata(false));
    const auto info = writer.write(0, 0, 0.0, make_prim(g));
    const std::string xmf = read_text(info.xmf_path);
    EXPECT_NE(xmf.find(std::string("3DCoRectMesh\" Dimensions=\"") + slab.nodes + "\""), std::string::npos) << xmf;
    EXPECT_NE(xmf.find(slab.origin), std::string::npos) << xmf;
    EXPECT_EQ(count_of(xmf, std::string("Dimensions=\"") + slab.cells + "\""), 5u) << xmf;
    check_datasets(info.h5_path, g, 8);
  }
}

// Every root attribute a reader needs to know what the file holds, without the deck.
TEST(Snapshot, DescribesTheRunInRootAttributes) {
  TempDir tmp;
  const Grid g = make_test_grid(4, 3, 2);
  SnapshotWriter writer(tmp.path().string(), g, metadata(false));
  const auto info = writer.write(7, 1234, 0.125, make_prim(g));
  const hid_t file = H5Fopen(info.h5_path.c_str(), H5F_ACC_RDONLY, H5P_DEFAULT);
  ASSERT_GE(file, 0);
  EXPECT_EQ(read_text_attribute(file, "format"), "halocline-snapshot");
  EXPECT_EQ(read_scalar_attribute<int>(file, "format_version", H5T_NATIVE_INT, -1), 3);
  EXPECT_EQ(read_text_attribute(file, "series"), "00c0ffee00c0ffee");
  EXPECT_EQ(read_text_attribute(file, "halocline_version"), HALOCLINE_VERSION);
  EXPECT_EQ(read_text_attribute(file, "problem"), "kelvin_helmholtz");
  EXPECT_EQ(read_scalar_attribute<double>(file, "gamma", H5T_NATIVE_DOUBLE, 0.0), 5.0 / 3.0);
  EXPECT_EQ(read_text_attribute(file, "deck"), "# a deck\n[problem]\ntype = \"kelvin_helmholtz\"\n");
  EXPECT_EQ(read_text_attribute(file, "precision"), "fp64");
  EXPECT_EQ(read_text_attribute(file, "layout"), "aosoa");
  EXPECT_EQ(read_text_attribute(file, "backend"), "kokkos");
  EXPECT_EQ(read_text_attribute(file, "units").rfind("code units (nondimensional)", 0), 0u)
      << read_text_attribute(file, "units");
  EXPECT_EQ(read_text_attribute(file, "dimension_order_datasets"), "z y x");
  EXPECT_EQ(read_text_attribute(file, "dimension_order_grid_origin_spacing"), "x y z");
  EXPECT_EQ(read_text_attribute(file, "centering").rfind("cell:", 0), 0u) << read_text_attribute(file, "centering");
  EXPECT_EQ(read_scalar_attribute<double>(file, "time", H5T_NATIVE_DOUBLE, -1.0), 0.125);
  EXPECT_EQ(read_scalar_attribute<std::int64_t>(file, "step", H5T_NATIVE_INT64, -1), 1234);
  const char* const descriptions[5][2] = {{"rho", "density"},
                                          {"u", "velocity along x"},
                                          {"v", "velocity along y"},
                                          {"w", "velocity along z"},
                                          {"p", "pressure"}};
  for (const auto& [name, description] : descriptions) {
    const hid_t dset = H5Dopen2(file, name, H5P_DEFAULT);
    ASSERT_GE(dset, 0) << name;
    EXPECT_EQ(read_text_attribute(dset, "description"), description);
    H5Dclose(dset);
  }
  H5Fclose(file);
}

// A deck longer than the 64 KiB an attribute may take in HDF5's earliest format is kept
// whole (the files use the 1.8 format's dense attribute storage).
TEST(Snapshot, KeepsADeckLongerThan64KiB) {
  TempDir tmp;
  const Grid g = make_test_grid(4, 3, 2);
  halocline::SnapshotMetadata m = metadata(false);
  m.deck_text.clear();
  for (int line = 0; m.deck_text.size() <= 200000; ++line) m.deck_text += "# comment " + std::to_string(line) + "\n";
  SnapshotWriter writer(tmp.path().string(), g, m);
  const auto info = writer.write(0, 0, 0.0, make_prim(g));
  const hid_t file = H5Fopen(info.h5_path.c_str(), H5F_ACC_RDONLY, H5P_DEFAULT);
  ASSERT_GE(file, 0);
  EXPECT_EQ(read_text_attribute(file, "deck"), m.deck_text);
  H5Fclose(file);
  check_datasets(info.h5_path, g, 8);
}

// The datasets x, y, z hold the cells' centres, 64-bit, one per cell along each axis; the
// grid's lower corner is (-1, 0.5, 2) and its cells 0.5 x 0.25 x 2.
TEST(Snapshot, CoordinatesAreTheCellCentres) {
  TempDir tmp;
  const Grid g = make_test_grid(4, 3, 2);
  SnapshotWriter writer(tmp.path().string(), g, metadata(false));
  const auto info = writer.write(0, 0, 0.0, make_prim(g));
  EXPECT_EQ(halocline::test::read_dataset(info.h5_path, "x"), (std::vector<double>{-0.75, -0.25, 0.25, 0.75}));
  EXPECT_EQ(halocline::test::read_dataset(info.h5_path, "y"), (std::vector<double>{0.625, 0.875, 1.125}));
  EXPECT_EQ(halocline::test::read_dataset(info.h5_path, "z"), (std::vector<double>{3, 5}));
  const hid_t file = H5Fopen(info.h5_path.c_str(), H5F_ACC_RDONLY, H5P_DEFAULT);
  ASSERT_GE(file, 0);
  for (const char* axis : {"x", "y", "z"}) {
    const hid_t dset = H5Dopen2(file, axis, H5P_DEFAULT);
    ASSERT_GE(dset, 0) << axis;
    const hid_t type = H5Dget_type(dset);
    EXPECT_EQ(H5Tget_size(type), 8u) << axis;
    EXPECT_EQ(read_text_attribute(dset, "description"), std::string("cell centres along ") + axis);
    H5Tclose(type);
    H5Dclose(dset);
  }
  H5Fclose(file);
}

// The group "provenance" holds every field of the record the writer was given, each under
// its own name and with its own type (texts, 64-bit integers, a boolean), and nothing else.
TEST(Snapshot, ProvenanceGroupHoldsTheRunsRecord) {
  TempDir tmp;
  const Grid g = make_test_grid(4, 3, 2);
  SnapshotWriter writer(tmp.path().string(), g, metadata(false));
  const auto info = writer.write(0, 0, 0.0, make_prim(g));
  const nlohmann::json group = halocline::test::read_provenance_group(info.h5_path);
  ASSERT_TRUE(group.is_object()) << group;
  nlohmann::json expected = nlohmann::json::object();
  const halocline::Provenance given = distinct_provenance();
  halocline::visit_provenance(given, [&](const char* name, const auto& value) { expected[name] = value; });
  EXPECT_EQ(group, expected);
  EXPECT_EQ(group.at("commit"), "commit-value");
  EXPECT_EQ(group.at("tree_clean"), true);
  EXPECT_EQ(group.at("memory_bytes").type(), nlohmann::json::value_t::number_integer);
}
