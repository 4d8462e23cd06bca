// HDF5 + XDMF snapshots of the primitive variables (see snapshot.hpp).
//
// Each snapshot is one HDF5 file holding rho, u, v, w, p as (nz, ny, nx) datasets, plus a
// small XDMF file that tells ParaView/VisIt how to read them as a cell-centred uniform
// grid. Every file is first written under "<name>.tmp" and then renamed: a rename within
// one directory is atomic, so a reader (or a crash) never sees a half-written final file.
// A file that cannot be written throws OutputError naming it and the OS's reason, and
// leaves no temporary behind (io/atomic_file.hpp).
#include "io/snapshot.hpp"
#include "io/h5util.hpp"
#include "io/output_error.hpp"

#include <hdf5.h>
#if defined(HALOCLINE_HDF5_PARALLEL)
#include <mpi.h>
#endif

#include <cerrno>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <memory>
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

const char* const kVarNames[kNumVars] = {"rho", "u", "v", "w", "p"};

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

// One XDMF uniform grid for one snapshot. XDMF lists dimensions slowest-first (z, y, x),
// and 3DCoRectMesh counts nodes, hence n + 1 per direction around the n cells.
std::string xdmf_grid(const Grid& g, bool single, const std::string& h5_name, double time, const std::string& indent) {
  const int nx = g.n[0], ny = g.n[1], nz = g.n[2];
  const std::string cells = std::to_string(nz) + " " + std::to_string(ny) + " " + std::to_string(nx);
  const std::string nodes = std::to_string(nz + 1) + " " + std::to_string(ny + 1) + " " + std::to_string(nx + 1);
  const std::string i1 = indent + "  ", i2 = indent + "    ";
  std::ostringstream s;
  s << indent << "<Grid Name=\"" << fs::path(h5_name).stem().string() << "\" GridType=\"Uniform\">\n"
    << i1 << "<Time Value=\"" << fmt(time) << "\"/>\n"
    << i1 << "<Topology TopologyType=\"3DCoRectMesh\" Dimensions=\"" << nodes << "\"/>\n"
    << i1 << "<Geometry GeometryType=\"ORIGIN_DXDYDZ\">\n"
    << i2 << "<DataItem Format=\"XML\" NumberType=\"Float\" Precision=\"8\" Dimensions=\"3\">" << fmt(g.lo[2]) << " "
    << fmt(g.lo[1]) << " " << fmt(g.lo[0]) << "</DataItem>\n"
    << i2 << "<DataItem Format=\"XML\" NumberType=\"Float\" Precision=\"8\" Dimensions=\"3\">" << fmt(g.dx[2]) << " "
    << fmt(g.dx[1]) << " " << fmt(g.dx[0]) << "</DataItem>\n"
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
  check(H5Pset_fapl_mpio(a->file, *static_cast<MPI_Comm*>(part.mpi_comm), MPI_INFO_NULL), "use MPI-IO", path);
  a->transfer = check_id(H5Pcreate(H5P_DATASET_XFER), "create transfer list", path);
  check(H5Pset_dxpl_mpio(a->transfer, H5FD_MPIO_COLLECTIVE), "select collective writes", path);
#else
  (void)part;
  (void)path;
#endif
  return a;
}

// Writes the datasets and attributes into `file`: the whole grid g, from `prim` holding
// every cell, or (collective) this rank's block `part->local`. Every dataset is closed on
// return, so that the file can be closed for real.
void fill_snapshot(hid_t file, const Grid& g, bool single, long step, double time, const std::vector<double>& prim,
                   const SnapshotPart* part, hid_t transfer, const std::string& path) {
  const hsize_t dims[3] = {static_cast<hsize_t>(g.n[2]), static_cast<hsize_t>(g.n[1]), static_cast<hsize_t>(g.n[0])};
  const Grid& mine = part ? part->local : g;
  const hsize_t count[3] = {static_cast<hsize_t>(mine.n[2]), static_cast<hsize_t>(mine.n[1]),
                            static_cast<hsize_t>(mine.n[0])};
  const hsize_t start[3] = {static_cast<hsize_t>(mine.offset[2]), static_cast<hsize_t>(mine.offset[1]),
                            static_cast<hsize_t>(mine.offset[0])};
  const std::size_t ncell = static_cast<std::size_t>(mine.n[0]) * mine.n[1] * mine.n[2];

  H5Handle space(check_id(H5Screate_simple(3, dims, nullptr), "create dataspace", path), H5Sclose);
  // This rank's block: where it lies in the file, and its shape in memory.
  H5Handle memory(check_id(H5Screate_simple(3, count, nullptr), "create dataspace", path), H5Sclose);
  check(H5Sselect_hyperslab(space.get(), H5S_SELECT_SET, start, nullptr, count, nullptr), "select this rank's block",
        path);

  // The data stay double in memory; with a float file type HDF5 converts while writing,
  // so an fp32 snapshot needs no extra copy here.
  const hid_t file_type = single ? H5T_NATIVE_FLOAT : H5T_NATIVE_DOUBLE;
  for (int v = 0; v < kNumVars; ++v) {
    const std::string name = kVarNames[v];
    H5Handle dset(
        check_id(H5Dcreate2(file, name.c_str(), file_type, space.get(), H5P_DEFAULT, H5P_DEFAULT, H5P_DEFAULT),
                 "create dataset '" + name + "'", path),
        H5Dclose);
    // prim is canonical (x fastest), which is exactly C order for (nz, ny, nx).
    check(H5Dwrite(dset.get(), H5T_NATIVE_DOUBLE, memory.get(), space.get(), transfer, prim.data() + v * ncell),
          "write dataset '" + name + "'", path);
    check(dset.close(), "close dataset '" + name + "'", path);
  }

  const std::int64_t step64 = step;
  write_attribute(file, "time", H5T_NATIVE_DOUBLE, 0, &time, path);
  write_attribute(file, "step", H5T_NATIVE_INT64, 0, &step64, path);
  write_attribute(file, "grid", H5T_NATIVE_INT, 3, g.n, path);
  write_attribute(file, "origin", H5T_NATIVE_DOUBLE, 3, g.lo, path);
  write_attribute(file, "spacing", H5T_NATIVE_DOUBLE, 3, g.dx, path);
}

// One writer (serial, or rank 0 of gathered ranks): the file is built in memory and
// written whole by write_file_atomically (io/h5util.hpp says why).
void write_serial(const std::string& path, const Grid& g, bool single, long step, double time,
                  const std::vector<double>& prim) {
  const std::size_t bytes = kNumVars * g.ninterior * (single ? sizeof(float) : sizeof(double));
  h5::MemoryFile file(path, bytes);
  fill_snapshot(file.get(), g, single, step, time, prim, nullptr, H5P_DEFAULT, path);
  file.finish();
  write_file_atomically(path, file.data(), file.size(), "snapshot", /*sync_directory=*/false);
}

// Every rank writes its block of "<path>.tmp" through MPI-IO; rank 0 then renames it. The
// temporary is created new (rank 0 first removes any entry of that name, a link included);
// a failure is reported with what HDF5's error stack says, and rank 0 removes the temporary.
void write_collective(const std::string& path, const Grid& g, bool single, long step, double time,
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
    const std::unique_ptr<Access> access = collective_access(part, tmp);
    H5Handle file(check_id(H5Fcreate(tmp.c_str(), H5F_ACC_EXCL, H5P_DEFAULT, access->file), "create file", tmp),
                  H5Fclose);
    fill_snapshot(file.get(), g, single, step, time, prim, &part, access->transfer, tmp);
    check(H5Fflush(file.get(), H5F_SCOPE_LOCAL), "flush file", tmp);
    check(file.close(), "close file", tmp);
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

bool SnapshotWriter::collective_available() {
#if defined(HALOCLINE_HDF5_PARALLEL)
  return true;
#else
  return false;
#endif
}

SnapshotWriter::SnapshotWriter(std::string out_dir, const Grid& grid, bool single_precision, std::string prefix,
                               const SnapshotPart* part)
    : out_dir_(std::move(out_dir)),
      grid_(grid),
      single_(single_precision),
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
  if (index < 0) throw std::invalid_argument("snapshot: negative index " + std::to_string(index));

  const std::string stem = file_stem(prefix_, index);
  const fs::path h5_path = fs::path(out_dir_) / (stem + ".h5");
  const fs::path xmf_path = fs::path(out_dir_) / (stem + ".xmf");

  try {
    if (collective_)  // every rank creates, writes and closes the one file together
      write_collective(h5_path.string(), grid_, single_, step, time, prim, part_);
    else
      write_serial(h5_path.string(), grid_, single_, step, time, prim);
  } catch (const h5::Error& e) {
    throw OutputError("cannot write snapshot '" + h5_path.string() + "': " + e.reason());
  }
  if (!collective_ || part_.root) {
    // The xmf sits next to the h5, so it refers to it by bare file name: the pair can be
    // moved or copied elsewhere together.
    write_text_atomically(xmf_path, xdmf_document(xdmf_grid(grid_, single_, stem + ".h5", time, "    ")), "snapshot");
  }

  SnapshotInfo info{h5_path.string(), xmf_path.string()};
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

void SnapshotWriter::continue_series(int first_index) {
  h5::apply_error_printing();
  for (int index = 0; index < first_index; ++index) {
    const std::string stem = file_stem(prefix_, index);
    const fs::path h5_path = fs::path(out_dir_) / (stem + ".h5");
    std::error_code ec;
    if (!fs::is_regular_file(fs::symlink_status(h5_path, ec))) continue;
    H5Handle file(H5Fopen(h5_path.c_str(), H5F_ACC_RDONLY, H5P_DEFAULT), H5Fclose);
    H5Handle attr(file.get() >= 0 ? H5Aopen(file.get(), "time", H5P_DEFAULT) : -1, H5Aclose);
    double time = 0;
    if (attr.get() < 0 || H5Aread(attr.get(), H5T_NATIVE_DOUBLE, &time) < 0) continue;
    written_.push_back({h5_path.string(), (fs::path(out_dir_) / (stem + ".xmf")).string()});
    times_.push_back(time);
  }
}

void SnapshotWriter::write_series() const {
  if (collective_ && !part_.root) return;
  std::string body = "    <Grid Name=\"series\" GridType=\"Collection\" CollectionType=\"Temporal\">\n";
  for (std::size_t i = 0; i < written_.size(); ++i) {
    const std::string h5_name = fs::path(written_[i].h5_path).filename().string();
    body += xdmf_grid(grid_, single_, h5_name, times_[i], "      ");
  }
  body += "    </Grid>\n";
  write_text_atomically(fs::path(out_dir_) / (prefix_ + ".xmf"), xdmf_document(body), "snapshot series");
}

}  // namespace halocline
