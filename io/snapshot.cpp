// HDF5 + XDMF snapshots of the primitive variables (see snapshot.hpp, docs/output.md).
//
// Each snapshot is one HDF5 file holding rho, u, v, w, p as (nz, ny, nx) datasets, the cell
// centres x, y, z, the run's description as root attributes and its provenance as the
// group "provenance", plus a small XDMF file that tells ParaView/VisIt how to read them as a
// cell-centred uniform grid. Every file is first written under "<name>.tmp" and then
// renamed: a rename within one directory is atomic, so a reader (or a crash) never sees a
// half-written final file. A file that cannot be written throws OutputError naming it and
// the OS's reason, and leaves no temporary behind (io/atomic_file.hpp).
#include "io/snapshot.hpp"
#include "base/host_parallel.hpp"
#include "io/h5util.hpp"
#include "io/output_error.hpp"

#include <hdf5.h>
#include <sys/resource.h>
#if defined(HALOCLINE_HDF5_PARALLEL)
#include <mpi.h>
#endif

#include <algorithm>
#include <array>
#include <cerrno>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <functional>
#include <memory>
#include <optional>
#include <sstream>
#include <stdexcept>
#include <system_error>
#include <utility>

namespace fs = std::filesystem;

namespace halocline {
namespace {

using h5::check;
using h5::check_id;
using h5::H5Handle;
using h5::write_attribute;
using h5::write_text_attribute;
using h5::zyx_hyperslab;

const char* const kVarNames[kNumVars] = {"rho", "u", "v", "w", "p"};
const char* const kVarDescriptions[kNumVars] = {"density", "velocity along x", "velocity along y", "velocity along z",
                                                "pressure"};
const char* const kAxisNames[3] = {"x", "y", "z"};

// The equations the solver integrates have no scale of their own: every value is in the
// units the deck's numbers are in.
const char* const kUnits =
    "code units (nondimensional): lengths, times, densities, velocities and pressures in the units of the deck's "
    "own values; no physical unit is implied";

void write_text_atomically(const fs::path& path, const std::string& text, const std::string& what) {
  write_file_atomically(path.string(), text.data(), text.size(), what, /*sync_directory=*/false);
}

// Times and lengths must round-trip exactly: 15 digits reads best (0.1, not
// 0.10000000000000001), 17 always round-trips, so use 17 only where 15 would lose bits.
std::string fmt(double x) {
  char buf[32];
  std::snprintf(buf, sizeof buf, "%.15g", x);
  if (std::strtod(buf, nullptr) != x) std::snprintf(buf, sizeof buf, "%.17g", x);
  return buf;
}

std::string file_stem(const std::string& prefix, int index) {
  char buf[32];
  std::snprintf(buf, sizeof buf, "_%04d", index);
  return prefix + buf;
}

// The mesh's nodes along direction d: n + 1 around n cells, but one node at the centre of a
// direction of one cell. ParaView then reads a 2-D slab (or a 1-D row) as a 2-D (1-D) image
// and shows it as a coloured plane, where n + 1 = 2 nodes made a volume one cell thick that
// it shows as an empty outline. (A 2DCoRectMesh is no alternative: ParaView's XDMF readers
// put its plane at x = 0, its x values along y and its y values along z.)
int xdmf_nodes(const Grid& g, int d) { return g.n[d] == 1 ? 1 : g.n[d] + 1; }
double xdmf_origin(const Grid& g, int d) { return g.n[d] == 1 ? g.centre(d, 0) : g.lo[d]; }

// Three numbers of directions z, y, x (XDMF lists dimensions slowest first), separated by spaces.
template <class Of>
std::string zyx(const Of& of) {
  return of(2) + " " + of(1) + " " + of(0);
}

// One XDMF uniform grid for one snapshot: a 3DCoRectMesh of nodes (xdmf_nodes) with the
// cell-centred variables.
std::string xdmf_grid(const Grid& g, bool single, const std::string& h5_name, double time, const std::string& indent) {
  const std::string cells = zyx([&](int d) { return std::to_string(g.n[d]); });
  const std::string nodes = zyx([&](int d) { return std::to_string(xdmf_nodes(g, d)); });
  const std::string origin = zyx([&](int d) { return fmt(xdmf_origin(g, d)); });
  const std::string spacing = zyx([&](int d) { return fmt(g.dx[d]); });
  const std::string i1 = indent + "  ", i2 = indent + "    ";
  std::ostringstream s;
  s << indent << "<Grid Name=\"" << fs::path(h5_name).stem().string() << "\" GridType=\"Uniform\">\n"
    << i1 << "<Time Value=\"" << fmt(time) << "\"/>\n"
    << i1 << "<Topology TopologyType=\"3DCoRectMesh\" Dimensions=\"" << nodes << "\"/>\n"
    << i1 << "<Geometry GeometryType=\"ORIGIN_DXDYDZ\">\n"
    << i2 << "<DataItem Format=\"XML\" NumberType=\"Float\" Precision=\"8\" Dimensions=\"3\">" << origin
    << "</DataItem>\n"
    << i2 << "<DataItem Format=\"XML\" NumberType=\"Float\" Precision=\"8\" Dimensions=\"3\">" << spacing
    << "</DataItem>\n"
    << i1 << "</Geometry>\n";
  for (const char* var : kVarNames) {
    s << i1 << "<Attribute Name=\"" << var << "\" AttributeType=\"Scalar\" Center=\"Cell\">\n"
      << i2 << "<DataItem Format=\"HDF\" NumberType=\"Float\" Precision=\"" << (single ? 4 : 8) << "\" Dimensions=\""
      << cells << "\">" << h5_name << ":/" << var << "</DataItem>\n"
      << i1 << "</Attribute>\n";
  }
  s << indent << "</Grid>\n";
  return s.str();
}

std::string xdmf_document(const std::string& body) {
  return "<?xml version=\"1.0\" ?>\n<!DOCTYPE Xdmf SYSTEM \"Xdmf.dtd\" []>\n"
         "<Xdmf Version=\"3.0\">\n  <Domain>\n" +
         body + "  </Domain>\n</Xdmf>\n";
}

// How the steps of a write that reach the disk are made: one by one as they come (a file of
// one writer), or each agreed over the ranks of a collective write (together()).
using StepRunner = std::function<void(const std::function<void()>&)>;
void alone(const std::function<void()>& step) { step(); }

#if defined(HALOCLINE_HDF5_PARALLEL)
// An error text that is the operating system's (strerror's): the reason a user can act on.
bool names_a_system_error(const std::string& reason) {
  for (int code = 1; code < 134; ++code)
    if (reason == std::strerror(code)) return true;
  return false;
}

// The failure of a collective step that every rank must know: of the ranks that failed
// (`mine` set), the first that knows the system's reason, else the first; none where every
// rank went through.
std::optional<std::string> agreed_failure(MPI_Comm comm, const std::optional<std::string>& mine) {
  int rank = 0;
  MPI_Comm_rank(comm, &rank);
  struct {
    int grade, rank;
  } in{!mine ? 0 : names_a_system_error(*mine) ? 2 : 1, rank}, out{};
  MPI_Allreduce(&in, &out, 1, MPI_2INT, MPI_MAXLOC, comm);  // the highest grade, its lowest rank
  if (out.grade == 0) return std::nullopt;
  std::string reason = rank == out.rank ? *mine : std::string();
  int length = static_cast<int>(reason.size());
  MPI_Bcast(&length, 1, MPI_INT, out.rank, comm);
  reason.resize(static_cast<std::size_t>(length));
  MPI_Bcast(reason.data(), length, MPI_CHAR, out.rank, comm);
  return reason;
}
#endif

// The steps of a collective write of `path` that reach the disk, each agreed by every rank:
// where one fails on some ranks (a full disk fails the ranks that write, MPI-IO's
// aggregators), every rank throws the same failure and leaves the file together. A rank that
// threw alone left the others waiting in the next collective call: 3 ranks hung on a full
// disk (a multi-rank trial, 2026-12-07).
StepRunner together(const SnapshotPart& part, const std::string& path) {
#if defined(HALOCLINE_HDF5_PARALLEL)
  const MPI_Comm comm = *static_cast<MPI_Comm*>(part.mpi_comm);
  return [comm, path](const std::function<void()>& step) {
    std::optional<std::string> mine;
    errno = 0;  // the agreement's MPI calls may leave one that a failed step would then report
    try {
      step();
    } catch (const h5::Error& e) {
      mine = e.reason();
    } catch (const std::exception& e) {
      mine = e.what();
    } catch (...) {
      mine = "an unknown exception";
    }
    if (const std::optional<std::string> failure = agreed_failure(comm, mine))
      throw h5::Error("write the file", path, *failure);
  };
#else
  (void)part;
  (void)path;
  return alone;
#endif
}

// File access and transfer properties for a collective write: MPI-IO, collective writes.
struct Access {
  hid_t file = H5P_DEFAULT, transfer = H5P_DEFAULT;
  Access() = default;
  Access(const Access&) = delete;
  Access& operator=(const Access&) = delete;
  ~Access() {
    if (file != H5P_DEFAULT) H5Pclose(file);
    if (transfer != H5P_DEFAULT) H5Pclose(transfer);
  }
};

std::unique_ptr<Access> collective_access(const SnapshotPart& part, const std::string& path) {
  auto a = std::make_unique<Access>();
#if defined(HALOCLINE_HDF5_PARALLEL)
  a->file = check_id(H5Pcreate(H5P_FILE_ACCESS), "create file access list", path);
  h5::use_hdf5_1_8_format(a->file, path);
  check(H5Pset_fapl_mpio(a->file, *static_cast<MPI_Comm*>(part.mpi_comm), MPI_INFO_NULL), "use MPI-IO", path);
  a->transfer = check_id(H5Pcreate(H5P_DATASET_XFER), "create transfer list", path);
  check(H5Pset_dxpl_mpio(a->transfer, H5FD_MPIO_COLLECTIVE), "select collective writes", path);
#else
  (void)part;
  (void)path;
#endif
  return a;
}

// When in the run: the simulation time and the steps taken.
void write_time_attributes(hid_t file, long step, double time, const std::string& path) {
  const std::int64_t step64 = step;
  write_attribute(file, "time", H5T_NATIVE_DOUBLE, 0, &time, path);
  write_attribute(file, "step", H5T_NATIVE_INT64, 0, &step64, path);
}

// What the file is and which run wrote it.
void write_run_attributes(hid_t file, const SnapshotMetadata& m, const std::string& path) {
  write_text_attribute(file, "format", "halocline-snapshot", path);
  write_attribute(file, "format_version", H5T_NATIVE_INT, 0, &kSnapshotFormat, path);
  write_text_attribute(file, "halocline_version", HALOCLINE_VERSION, path);
  write_text_attribute(file, "problem", m.problem, path);
  write_attribute(file, "gamma", H5T_NATIVE_DOUBLE, 0, &m.gamma, path);
  write_text_attribute(file, "deck", m.deck_text, path);
  write_text_attribute(file, "series", m.series, path);
  write_text_attribute(file, "precision", m.single_precision ? "fp32" : "fp64", path);
  write_text_attribute(file, "layout", m.layout, path);
  write_text_attribute(file, "backend", m.backend, path);
  write_text_attribute(file, "units", kUnits, path);
}

// Where the cells are, and in which order the dimensions and the triples are given: the
// datasets are stored z, y, x (x varies fastest, as HDF5 lists dimensions slowest first),
// while grid, origin and spacing hold x, y, z.
void write_grid_attributes(hid_t file, const Grid& g, const std::string& path) {
  write_attribute(file, "grid", H5T_NATIVE_INT, 3, g.n, path);
  write_attribute(file, "origin", H5T_NATIVE_DOUBLE, 3, g.lo, path);
  write_attribute(file, "spacing", H5T_NATIVE_DOUBLE, 3, g.dx, path);
  write_text_attribute(file, "dimension_order_datasets", "z y x", path);
  write_text_attribute(file, "dimension_order_grid_origin_spacing", "x y z", path);
  write_text_attribute(file, "centering",
                       "cell: each value is its cell's average, at the cell's centre (datasets x, y, z); origin is "
                       "the domain's lower corner",
                       path);
}

// The cells' centres along each axis as the 1-D datasets x, y, z (64-bit in any precision:
// they are few), the same values the solver's initial states use (Grid::centre). One rank
// writes the values; under collective writes the others take part selecting none.
void write_coordinates(hid_t file, const Grid& g, hid_t transfer, bool writes_values, const std::string& path,
                       const StepRunner& step) {
  for (int d = 0; d < 3; ++d) {
    const hsize_t n = static_cast<hsize_t>(g.n[d]);
    std::vector<double> centres(n);
    for (int i = 0; i < g.n[d]; ++i) centres[i] = g.centre(d, i);
    const std::string what = std::string("dataset '") + kAxisNames[d] + "'";
    H5Handle space(check_id(H5Screate_simple(1, &n, nullptr), "create dataspace", path), H5Sclose);
    std::unique_ptr<H5Handle> dset;
    step([&] {
      dset = std::make_unique<H5Handle>(check_id(H5Dcreate2(file, kAxisNames[d], H5T_NATIVE_DOUBLE, space.get(),
                                                            H5P_DEFAULT, H5P_DEFAULT, H5P_DEFAULT),
                                                 "create " + what, path),
                                        H5Dclose);
      write_text_attribute(dset->get(), "description", std::string("cell centres along ") + kAxisNames[d], path);
    });
    if (!writes_values) check(H5Sselect_none(space.get()), "select nothing", path);
    step([&] {
      check(H5Dwrite(dset->get(), H5T_NATIVE_DOUBLE, space.get(), space.get(), transfer, centres.data()),
            "write " + what, path);
    });
    step([&] { check(dset->close(), "close " + what, path); });
  }
}

// Everything but the variables' values and the time: the run, the grid, the coordinates and
// the provenance. Every rank of a collective write calls it, with the same values.
void write_description(hid_t file, const Grid& g, const SnapshotMetadata& m, hid_t transfer, bool writes_values,
                       const std::string& path, const StepRunner& step = alone) {
  step([&] {
    write_run_attributes(file, m, path);
    write_grid_attributes(file, g, path);
  });
  write_coordinates(file, g, transfer, writes_values, path, step);
  step([&] { h5::write_provenance(file, m.provenance, path); });
}

// A snapshot's five datasets, open.
using Datasets = std::array<std::unique_ptr<H5Handle>, kNumVars>;

// Creates the datasets of the whole grid g in `file`, as floats for an fp32 run, each
// saying what it holds.
Datasets create_datasets(hid_t file, const Grid& g, bool single, const std::string& path) {
  hsize_t origin[3], dims[3];
  zyx_hyperslab(block_of(g), origin, dims);
  H5Handle space(check_id(H5Screate_simple(3, dims, nullptr), "create dataspace", path), H5Sclose);
  Datasets datasets;
  for (int v = 0; v < kNumVars; ++v) {
    datasets[v] = std::make_unique<H5Handle>(
        check_id(H5Dcreate2(file, kVarNames[v], single ? H5T_NATIVE_FLOAT : H5T_NATIVE_DOUBLE, space.get(), H5P_DEFAULT,
                            H5P_DEFAULT, H5P_DEFAULT),
                 std::string("create dataset '") + kVarNames[v] + "'", path),
        H5Dclose);
    write_text_attribute(datasets[v]->get(), "description", kVarDescriptions[v], path);
  }
  return datasets;
}

// Writes the primitive values of `block` (canonical within it) into the datasets' hyperslab
// of that block; a float file gets floats, narrowed into `narrow` on the host's threads
// (HDF5's own conversion runs on one). `transfer`: collective writes, or H5P_DEFAULT.
void write_variables(const Datasets& datasets, const CellBlock& block, const double* prim, bool single,
                     std::vector<float>& narrow, hid_t transfer, const std::string& path,
                     const StepRunner& step = alone) {
  const std::size_t cells = block.cells();
  hsize_t start[3], count[3];
  zyx_hyperslab(block, start, count);
  H5Handle memory(check_id(H5Screate_simple(3, count, nullptr), "create dataspace", path), H5Sclose);
  for (int v = 0; v < kNumVars; ++v) {
    const hid_t dset = datasets[v]->get();
    H5Handle space(check_id(H5Dget_space(dset), "get a dataspace", path), H5Sclose);
    check(H5Sselect_hyperslab(space.get(), H5S_SELECT_SET, start, nullptr, count, nullptr), "select a block", path);
    const double* values = prim + v * cells;
    if (single) {
      narrow.resize(cells);
      parallel_for(cells, [&](std::size_t n0, std::size_t n1) {
        for (std::size_t n = n0; n < n1; ++n) narrow[n] = static_cast<float>(values[n]);
      });
    }
    step([&] {
      check(H5Dwrite(dset, single ? H5T_NATIVE_FLOAT : H5T_NATIVE_DOUBLE, memory.get(), space.get(), transfer,
                     single ? static_cast<const void*>(narrow.data()) : values),
            std::string("write dataset '") + kVarNames[v] + "'", path);
    });
  }
}

// Writes the datasets and attributes of a collective snapshot into `file`: this rank's
// block `part.local`, from `prim`. Every dataset is closed on return, so that the file can
// be closed for real.
void fill_snapshot(hid_t file, const Grid& g, const SnapshotMetadata& m, long step, double time,
                   const std::vector<double>& prim, const SnapshotPart& part, hid_t transfer, const std::string& path,
                   const StepRunner& agreed) {
  Datasets datasets;
  agreed([&] { datasets = create_datasets(file, g, m.single_precision, path); });
  std::vector<float> narrow;
  write_variables(datasets, block_of(part.local), prim.data(), m.single_precision, narrow, transfer, path, agreed);
  for (int v = 0; v < kNumVars; ++v)
    agreed([&] { check(datasets[v]->close(), std::string("close dataset '") + kVarNames[v] + "'", path); });
  write_description(file, g, m, transfer, part.root, path, agreed);
  agreed([&] { write_time_attributes(file, step, time, path); });
}

// About the bytes a snapshot of grid g takes on disk: its values, the cells' centres, and
// what its attributes and HDF5's own structures take (measured on 3 ranks: 11-12 KiB beside
// the values with a deck of 1 KiB and the provenance; 64 KiB and twice the deck allow for
// more).
std::uintmax_t snapshot_bytes(const Grid& g, const SnapshotMetadata& m) {
  const std::uintmax_t values = static_cast<std::uintmax_t>(kNumVars) * g.ninterior * (m.single_precision ? 4 : 8);
  return values + sizeof(double) * (g.n[0] + g.n[1] + g.n[2]) + 2 * m.deck_text.size() + (64u << 10);
}

// Room for a collective snapshot of `bytes` at `path`, before its first collective call: a
// write that the disk or a file-size limit refuses fails inside HDF5's collective calls on
// some ranks only, and leaves a file that HDF5 1.10 cannot close (the library then crashes at
// MPI_Finalize). Rank 0 asks the file system for its free space, every rank its file-size
// limit (ulimit -f). A quota is not seen here: a write beyond one still fails in HDF5.
void check_room(const std::string& path, std::uintmax_t bytes, bool root) {
  // Sizes in KiB below 10 MiB, else MiB: what is needed rounded up, what is free down.
  const auto size = [](std::uintmax_t b, bool up) {
    const bool kib = b < (10u << 20);
    const unsigned shift = kib ? 10 : 20;
    return std::to_string((b + (up ? (1u << shift) - 1 : 0)) >> shift) + (kib ? " KiB" : " MiB");
  };
  if (root) {  // one question to the file system, not one a rank (a parallel one's metadata server)
    std::error_code ec;
    const fs::path dir = fs::path(path).parent_path().empty() ? fs::path(".") : fs::path(path).parent_path();
    const fs::space_info room = fs::space(dir, ec);
    if (!ec && room.available < bytes)
      throw h5::Error("write the file", path,
                      std::string(std::strerror(ENOSPC)) + " (the snapshot needs about " + size(bytes, true) +
                          ", the file system has " + size(room.available, false) + " free)");
  }
  rlimit limit{};
  if (getrlimit(RLIMIT_FSIZE, &limit) == 0 && limit.rlim_cur != RLIM_INFINITY && limit.rlim_cur < bytes)
    throw h5::Error("write the file", path,
                    std::string(std::strerror(EFBIG)) + " (the snapshot needs about " + size(bytes, true) +
                        ", the file-size limit, ulimit -f, is " + std::to_string(limit.rlim_cur) + " bytes)");
}

// Every rank writes its block of "<path>.tmp" through MPI-IO; rank 0 then renames it. The
// temporary is created new (rank 0 first removes any entry of that name, a link included);
// a failure is reported with what HDF5's error stack says (on every rank alike: together()),
// and rank 0 removes the temporary.
void write_collective(const std::string& path, const Grid& g, const SnapshotMetadata& m, long step, double time,
                      const std::vector<double>& prim, const SnapshotPart& part) {
  const std::string tmp = path + ".tmp";
  std::error_code ec;
  if (part.root) fs::remove(tmp, ec);
#if defined(HALOCLINE_HDF5_PARALLEL)
  MPI_Barrier(*static_cast<MPI_Comm*>(part.mpi_comm));  // removed before anyone creates it
#endif
  try {
    h5::apply_error_printing();
    errno = 0;  // check() reads it after each call (the MPI-IO driver records no errno)
    const StepRunner agreed = together(part, tmp);
    agreed([&] { check_room(tmp, snapshot_bytes(g, m), part.root); });
    std::unique_ptr<Access> access;
    agreed([&] { access = collective_access(part, tmp); });
    // Owned at once: where the create failed on other ranks only, the agreement throws here too
    // and the file is closed on the way out, not left to HDF5's end.
    std::unique_ptr<H5Handle> file;
    agreed([&] {
      file = std::make_unique<H5Handle>(
          check_id(H5Fcreate(tmp.c_str(), H5F_ACC_EXCL, H5P_DEFAULT, access->file), "create file", tmp), H5Fclose);
    });
    fill_snapshot(file->get(), g, m, step, time, prim, part, access->transfer, tmp, agreed);
    agreed([&] { check(file->close(), "close file", tmp); });
  } catch (...) {
    if (part.root) fs::remove(tmp, ec);
    throw;
  }
  if (!part.root) return;
  if (std::rename(tmp.c_str(), path.c_str()) != 0) {
    const int code = errno;
    fs::remove(tmp, ec);
    throw OutputError("cannot write snapshot '" + path + "': cannot rename '" + tmp +
                      "' onto it: " + std::strerror(code));
  }
}

}  // namespace

// A snapshot in the making: serial, the HDF5 file built in memory with its five datasets
// open (written block by block); collective, this rank's block of primitives, written in one
// collective call by finish().
struct SnapshotFile::Parts {
  std::string h5_path;
  int index = 0;
  std::unique_ptr<h5::MemoryFile> image;  // serial
  Datasets datasets;                      // serial, closed before the image
  std::vector<double> local;              // collective
  Grid bounds;                            // the cells this file takes: the whole grid, or this rank's part
  bool single = false;                    // the file stores floats: converted here, on the host's threads
  std::vector<float> narrow;              // one variable of a block, as floats (HDF5 converts on one)
};

SnapshotFile::SnapshotFile(std::unique_ptr<Parts> parts) : parts_(std::move(parts)) {}
SnapshotFile::SnapshotFile(SnapshotFile&&) noexcept = default;
SnapshotFile& SnapshotFile::operator=(SnapshotFile&&) noexcept = default;
SnapshotFile::~SnapshotFile() = default;

void SnapshotFile::write_block(const CellBlock& block, const double* prim) {
  Parts& p = *parts_;
  if (!contains(block_of(p.bounds), block))
    throw std::invalid_argument("snapshot: a block outside the cells of '" + p.h5_path + "'");
  if (!p.image) {  // collective: into this rank's block
    place_block(block, prim, block_of(p.bounds), p.local.data());
    return;
  }
  try {
    write_variables(p.datasets, block, prim, p.single, p.narrow, H5P_DEFAULT, p.h5_path);
  } catch (const h5::Error& e) {
    throw OutputError("cannot write snapshot '" + p.h5_path + "': " + e.reason());
  }
}

bool SnapshotWriter::collective_available() {
#if defined(HALOCLINE_HDF5_PARALLEL)
  return true;
#else
  return false;
#endif
}

SnapshotWriter::SnapshotWriter(std::string out_dir, const Grid& grid, SnapshotMetadata metadata, std::string prefix,
                               const SnapshotPart* part)
    : out_dir_(std::move(out_dir)),
      grid_(grid),
      metadata_(std::move(metadata)),
      prefix_(std::move(prefix)),
      collective_(part != nullptr) {
  if (part) {
    if (!collective_available()) throw std::logic_error("snapshot: a collective write needs a parallel HDF5 build");
    part_ = *part;
  }
  std::error_code ec;
  fs::create_directories(out_dir_, ec);
  // create_directories reports no error when the directory already exists, but a path
  // that exists as a regular file must be rejected too.
  if (ec || !fs::is_directory(out_dir_)) {
    throw OutputError("cannot create output directory '" + out_dir_ + "'" +
                      (ec ? ": " + ec.message() : std::string(": not a directory")));
  }
}

SnapshotInfo SnapshotWriter::write(int index, long step, double time, const std::vector<double>& prim) {
  const Grid& mine = collective_ ? part_.local : grid_;
  const std::size_t ncell = static_cast<std::size_t>(mine.n[0]) * mine.n[1] * mine.n[2];
  if (prim.size() != kNumVars * ncell) {
    throw std::invalid_argument("snapshot: prim has " + std::to_string(prim.size()) + " values, expected " +
                                std::to_string(kNumVars * ncell) + " (5 variables x " + std::to_string(ncell) +
                                " cells)");
  }
  SnapshotFile file = begin(index);
  file.write_block(block_of(mine), prim.data());
  return finish(file, step, time);
}

SnapshotFile SnapshotWriter::begin(int index) const {
  if (index < 0) throw std::invalid_argument("snapshot: negative index " + std::to_string(index));
  auto p = std::make_unique<SnapshotFile::Parts>();
  p->index = index;
  p->h5_path = (fs::path(out_dir_) / (file_stem(prefix_, index) + ".h5")).string();
  p->single = metadata_.single_precision;
  if (collective_) {
    p->local.assign(kNumVars * part_.local.ninterior, 0.0);
    p->bounds = part_.local;
    return SnapshotFile(std::move(p));
  }
  try {
    const std::size_t bytes = kNumVars * grid_.ninterior * (p->single ? sizeof(float) : sizeof(double)) +
                              sizeof(double) * (grid_.n[0] + grid_.n[1] + grid_.n[2]) + metadata_.deck_text.size();
    p->image = std::make_unique<h5::MemoryFile>(p->h5_path, bytes);
    p->datasets = create_datasets(p->image->get(), grid_, p->single, p->h5_path);
  } catch (const h5::Error& e) {
    throw OutputError("cannot write snapshot '" + p->h5_path + "': " + e.reason());
  }
  p->bounds = grid_;
  return SnapshotFile(std::move(p));
}

SnapshotInfo SnapshotWriter::finish(SnapshotFile& file, long step, double time) {
  SnapshotFile::Parts& p = *file.parts_;
  const std::string stem = file_stem(prefix_, p.index);
  const fs::path xmf_path = fs::path(out_dir_) / (stem + ".xmf");
  try {
    if (collective_) {  // every rank creates, writes and closes the one file together
      write_collective(p.h5_path, grid_, metadata_, step, time, p.local, part_);
    } else {
      for (auto& dset : p.datasets) check(dset->close(), "close a dataset", p.h5_path);
      write_description(p.image->get(), grid_, metadata_, H5P_DEFAULT, true, p.h5_path);
      write_time_attributes(p.image->get(), step, time, p.h5_path);
      p.image->finish();
      write_file_atomically(p.h5_path, p.image->data(), p.image->size(), "snapshot", /*sync_directory=*/false);
    }
  } catch (const h5::Error& e) {
    throw OutputError("cannot write snapshot '" + p.h5_path + "': " + e.reason());
  }
  p.image.reset();  // the file's bytes are on disk: the host lets them go before the XDMF
  if (!collective_ || part_.root) {
    // The xmf sits next to the h5, so it refers to it by bare file name: the pair can be
    // moved or copied elsewhere together.
    write_text_atomically(
        xmf_path, xdmf_document(xdmf_grid(grid_, metadata_.single_precision, stem + ".h5", time, "    ")), "snapshot");
  }

  SnapshotInfo info{p.h5_path, xmf_path.string()};
  // Rewriting an index (e.g. after a restart) replaces its entry rather than listing it twice.
  for (std::size_t i = 0; i < written_.size(); ++i) {
    if (written_[i].h5_path == info.h5_path) {
      times_[i] = time;
      return info;
    }
  }
  written_.push_back(info);
  times_.push_back(time);
  return info;
}

namespace {

// The time a snapshot file of the series `series` says it holds; false for anything else (not
// a regular file, not HDF5, no time, another series: an attribute absent is the empty series).
bool snapshot_time(const fs::path& h5_path, const std::string& series, double& time) {
  std::error_code ec;
  if (!fs::is_regular_file(fs::symlink_status(h5_path, ec))) return false;
  H5Handle file(H5Fopen(h5_path.c_str(), H5F_ACC_RDONLY, H5P_DEFAULT), H5Fclose);
  std::string its;
  if (file.get() < 0 || !h5::read_text_attribute(file.get(), "series", its) || its != series) return false;
  H5Handle attr(H5Aopen(file.get(), "time", H5P_DEFAULT), H5Aclose);
  return attr.get() >= 0 && H5Aread(attr.get(), H5T_NATIVE_DOUBLE, &time) >= 0;
}

}  // namespace

// The number of the snapshot file `name` (<prefix>_NNNN.h5), or -1 for another name.
static int snapshot_number(const std::string& name, const std::string& prefix) {
  const std::string head = prefix + "_";
  if (name.size() < head.size() + 7 || name.compare(0, head.size(), head) != 0 ||
      name.compare(name.size() - 3, 3, ".h5") != 0)
    return -1;
  const std::string digits = name.substr(head.size(), name.size() - head.size() - 3);
  if (digits.size() > 9 || digits.find_first_not_of("0123456789") != std::string::npos) return -1;
  return std::stoi(digits);
}

std::vector<SnapshotWriter::SeriesFile> SnapshotWriter::series_files() const {
  h5::apply_error_printing();
  std::vector<SeriesFile> files;
  std::error_code ec;
  for (fs::directory_iterator it(out_dir_, ec), end; !ec && it != end; it.increment(ec)) {
    const std::string name = it->path().filename().string();
    const int number = snapshot_number(name, prefix_);
    double t = 0;
    if (number >= 0 && name == file_stem(prefix_, number) + ".h5" && snapshot_time(it->path(), metadata_.series, t))
      files.push_back({number, it->path().string(), t});
  }
  std::sort(files.begin(), files.end(), [](const SeriesFile& a, const SeriesFile& b) { return a.number < b.number; });
  return files;
}

int SnapshotWriter::continue_series(int at_least, double time) {
  const std::vector<SeriesFile> files = series_files();  // one read of the directory's snapshots
  int first_index = at_least;
  for (const SeriesFile& f : files)
    if (f.time <= time) first_index = std::max(first_index, f.number + 1);
  for (const SeriesFile& f : files) {
    if (f.time <= time && f.number < first_index) {
      written_.push_back({f.path, fs::path(f.path).replace_extension(".xmf").string()});
      times_.push_back(f.time);
    } else if (f.time > time) {
      // Past the restart: left out of the series, or one this run numbers again and may
      // write over (a note says so: replaced_snapshots).
      if (f.number < first_index)
        later_.push_back(f.path);
      else
        beyond_.push_back(f);
    }
  }
  return first_index;
}

std::vector<std::string> SnapshotWriter::replaced_snapshots() const {
  std::vector<std::string> paths;
  for (const SeriesFile& b : beyond_)
    for (std::size_t i = 0; i < written_.size(); ++i)
      if (written_[i].h5_path == b.path && times_[i] != b.time) paths.push_back(b.path);
  return paths;
}

std::vector<std::string> SnapshotWriter::snapshots_after(int index) const {
  std::vector<std::pair<int, std::string>> found;
  std::error_code ec;
  for (fs::directory_iterator it(out_dir_, ec), end; !ec && it != end; it.increment(ec)) {
    const int number = snapshot_number(it->path().filename().string(), prefix_);
    if (number > index) found.emplace_back(number, it->path().string());
  }
  std::sort(found.begin(), found.end());
  std::vector<std::string> paths;
  for (const auto& [number, path] : found) paths.push_back(path);
  return paths;
}

void SnapshotWriter::write_series() const {
  if (collective_ && !part_.root) return;
  std::string body = "    <Grid Name=\"series\" GridType=\"Collection\" CollectionType=\"Temporal\">\n";
  for (std::size_t i = 0; i < written_.size(); ++i) {
    const std::string h5_name = fs::path(written_[i].h5_path).filename().string();
    body += xdmf_grid(grid_, metadata_.single_precision, h5_name, times_[i], "      ");
  }
  body += "    </Grid>\n";
  write_text_atomically(fs::path(out_dir_) / (prefix_ + ".xmf"), xdmf_document(body), "snapshot series");
}

}  // namespace halocline
