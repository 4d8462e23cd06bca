// Checkpoint files (see checkpoint.hpp): dataset "state" of (5, nz, ny, nx) doubles, the
// header as root attributes, among them "header_checksum" over all the others, and the
// group "provenance" (h5util.hpp's write_provenance).
#include "io/checkpoint.hpp"

#include <algorithm>
#include <cerrno>
#include <cmath>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <sstream>
#include <system_error>

#include <unistd.h>

#include "io/h5util.hpp"
#include "io/output_error.hpp"

namespace fs = std::filesystem;

namespace halocline {
namespace {

using h5::check;
using h5::check_id;
using h5::H5Handle;
using h5::write_attribute;
using h5::write_text_attribute;
using h5::zyx_hyperslab;

constexpr char kFaceNames[6][5] = {"x_lo", "x_hi", "y_lo", "y_hi", "z_lo", "z_hi"};

// Shortest text that reads back as the same double (0.1, not 0.10000000000000001).
std::string number(double x) {
  char buf[32];
  std::snprintf(buf, sizeof buf, "%.15g", x);
  if (std::strtod(buf, nullptr) != x) std::snprintf(buf, sizeof buf, "%.17g", x);
  return buf;
}

std::string grid_text(const std::array<int, 3>& n) {
  return std::to_string(n[0]) + " x " + std::to_string(n[1]) + " x " + std::to_string(n[2]);
}

// A name the restart compares with the deck's (problem, precision, boundary): it is
// quoted in messages, so only short plain words pass.
bool plain_word(const std::string& s) {
  if (s.empty() || s.size() > 32) return false;
  return std::all_of(s.begin(), s.end(),
                     [](char c) { return (c >= 'a' && c <= 'z') || (c >= '0' && c <= '9') || c == '_' || c == '-'; });
}

// Why no run could continue from this header (after "checkpoint 'PATH' "); empty if one can.
std::string header_fault(const CheckpointHeader& h) {
  constexpr long kMaxStep = 1L << 53;  // steps count in doubles elsewhere (the report)
  if (h.step < 0 || h.step >= kMaxStep)
    return "has step " + std::to_string(h.step) + "; a step must be >= 0 and below 2^53";
  if (!std::isfinite(h.time) || h.time < 0) return "has time " + number(h.time) + "; the time must be finite and >= 0";
  if (!std::isfinite(h.gamma) || h.gamma <= 1) return "has gamma " + number(h.gamma) + "; gamma must be finite and > 1";
  if (*std::min_element(h.grid.begin(), h.grid.end()) < 1)
    return "has a grid of " + grid_text(h.grid) + " cells; every size must be >= 1";
  for (int d = 0; d < 3; ++d)
    if (!std::isfinite(h.lo[d]) || !std::isfinite(h.hi[d]) || !(h.lo[d] < h.hi[d]))
      return std::string("has domain ") + "xyz"[d] + " in [" + number(h.lo[d]) + ", " + number(h.hi[d]) +
             "]; the extent must be finite, its low end below its high end";
  if (!plain_word(h.problem)) return "has an invalid 'problem' attribute";
  if (!plain_word(h.precision)) return "has an invalid 'precision' attribute";
  for (const std::string& b : h.boundaries)
    if (!plain_word(b)) return "has an invalid 'boundaries' attribute";
  if (!h.series.empty() && !plain_word(h.series)) return "has an invalid 'series' attribute";
  if (h.format >= 5) {
    if (!std::isfinite(h.cfl) || !(h.cfl > 0)) return "has cfl " + number(h.cfl) + "; it must be finite and > 0";
    if (!plain_word(h.limiter)) return "has an invalid 'limiter' attribute";
    if (!plain_word(h.riemann)) return "has an invalid 'riemann' attribute";
  }
  return "";
}

std::string canonical_text(const CheckpointHeader& h) {
  std::ostringstream t;
  auto text = [&](const char* key, const std::string& v) { t << key << '=' << v.size() << ':' << v << '\n'; };
  auto bits = [&](double x) {  // the exact value, NaN payloads and signed zeros included
    std::uint64_t u;
    std::memcpy(&u, &x, sizeof u);
    char hex[20];
    std::snprintf(hex, sizeof hex, "%016llx", static_cast<unsigned long long>(u));
    t << ' ' << hex;
  };
  t << "halocline-checkpoint\nformat_version= " << h.format << '\n';
  text("halocline_version", h.halocline_version);
  t << "step= " << h.step << "\ntime=";
  bits(h.time);
  t << '\n';
  text("problem", h.problem);
  t << "lo=";
  for (double x : h.lo) bits(x);
  t << "\nhi=";
  for (double x : h.hi) bits(x);
  t << '\n';
  for (int f = 0; f < 6; ++f) text(kFaceNames[f], h.boundaries[f]);
  t << "grid= " << h.grid[0] << ' ' << h.grid[1] << ' ' << h.grid[2] << "\ngamma=";
  bits(h.gamma);
  t << '\n';
  text("precision", h.precision);
  text("layout", h.layout);
  text("backend", h.backend);
  t << "ranks_grid= " << h.ranks_grid[0] << ' ' << h.ranks_grid[1] << ' ' << h.ranks_grid[2] << '\n';
  text("deck", h.deck_text);
  if (h.format >= 4) text("series", h.series);
  if (h.format >= 5) {
    t << "cfl=";
    bits(h.cfl);
    t << '\n';
    text("limiter", h.limiter);
    text("riemann", h.riemann);
  }
  text("checksum", h.checksum);
  return t.str();
}

std::string join_boundaries(const std::array<std::string, 6>& b) {
  std::string s;
  for (const std::string& name : b) s += (s.empty() ? "" : " ") + name;
  return s;
}

// Every attribute of the header into the (in-memory) file `f`.
void write_header(hid_t f, const CheckpointHeader& h, const std::string& path) {
  write_text_attribute(f, "format", "halocline-checkpoint", path);
  write_attribute(f, "format_version", H5T_NATIVE_INT, 0, &h.format, path);
  write_text_attribute(f, "halocline_version", h.halocline_version, path);
  const std::int64_t step = h.step;
  write_attribute(f, "step", H5T_NATIVE_INT64, 0, &step, path);
  write_attribute(f, "time", H5T_NATIVE_DOUBLE, 0, &h.time, path);
  write_text_attribute(f, "problem", h.problem, path);
  write_attribute(f, "lo", H5T_NATIVE_DOUBLE, 3, h.lo.data(), path);
  write_attribute(f, "hi", H5T_NATIVE_DOUBLE, 3, h.hi.data(), path);
  write_text_attribute(f, "boundaries", join_boundaries(h.boundaries), path);
  write_attribute(f, "grid", H5T_NATIVE_INT, 3, h.grid.data(), path);
  write_attribute(f, "gamma", H5T_NATIVE_DOUBLE, 0, &h.gamma, path);
  write_text_attribute(f, "precision", h.precision, path);
  write_text_attribute(f, "layout", h.layout, path);
  write_text_attribute(f, "backend", h.backend, path);
  write_attribute(f, "ranks_grid", H5T_NATIVE_INT, 3, h.ranks_grid.data(), path);
  write_text_attribute(f, "deck", h.deck_text, path);
  if (h.format >= 4) write_text_attribute(f, "series", h.series, path);
  if (h.format >= 5) {
    write_attribute(f, "cfl", H5T_NATIVE_DOUBLE, 0, &h.cfl, path);
    write_text_attribute(f, "limiter", h.limiter, path);
    write_text_attribute(f, "riemann", h.riemann, path);
  }
  write_text_attribute(f, "checksum", h.checksum, path);
  write_text_attribute(f, "header_checksum", checkpoint_header_checksum(h), path);
}

// The hyperslab of `block` in the dataset "state", stored (variable, z, y, x).
void state_hyperslab(const CellBlock& block, hsize_t start[4], hsize_t count[4]) {
  start[0] = 0;
  count[0] = kNumVars;
  zyx_hyperslab(block, start + 1, count + 1);
}

// Reading: every failure is the file's fault, so it is a CheckpointError (exit code 2).
[[noreturn]] void refuse(const std::string& path, const std::string& why) {
  throw CheckpointError("checkpoint '" + path + "' " + why);
}

bool has_attribute(hid_t file, const char* name) { return H5Aexists(file, name) > 0; }

H5Handle open_attribute(hid_t file, const char* name, const std::string& path) {
  if (!has_attribute(file, name)) refuse(path, std::string("has no '") + name + "' attribute");
  return H5Handle(H5Aopen(file, name, H5P_DEFAULT), H5Aclose);
}

[[noreturn]] void unreadable(const std::string& path, const char* name) {
  refuse(path, std::string("has an unreadable '") + name + "' attribute");
}

template <class T>
T read_scalar(hid_t file, const char* name, hid_t type, const std::string& path) {
  const H5Handle attr = open_attribute(file, name, path);
  H5Handle space(attr.get() >= 0 ? H5Aget_space(attr.get()) : -1, H5Sclose);
  T value{};
  if (space.get() < 0 || H5Sget_simple_extent_npoints(space.get()) != 1 || H5Aread(attr.get(), type, &value) < 0)
    unreadable(path, name);
  return value;
}

template <class T>
std::array<T, 3> read_triple(hid_t file, const char* name, hid_t type, const std::string& path) {
  const H5Handle attr = open_attribute(file, name, path);
  std::array<T, 3> v{};
  H5Handle space(attr.get() >= 0 ? H5Aget_space(attr.get()) : -1, H5Sclose);
  if (space.get() < 0 || H5Sget_simple_extent_npoints(space.get()) != 3 || H5Aread(attr.get(), type, v.data()) < 0)
    unreadable(path, name);
  return v;
}

std::string read_string(hid_t file, const char* name, const std::string& path) {
  const H5Handle attr = open_attribute(file, name, path);
  H5Handle type(attr.get() >= 0 ? H5Aget_type(attr.get()) : -1, H5Tclose);
  if (type.get() < 0 || H5Tget_class(type.get()) != H5T_STRING || H5Tis_variable_str(type.get()) != 0)
    unreadable(path, name);
  std::string value(H5Tget_size(type.get()), '\0');
  if (H5Aread(attr.get(), type.get(), value.data()) < 0) unreadable(path, name);
  return value.substr(0, value.find('\0'));
}

std::array<std::string, 6> read_boundaries(hid_t file, const std::string& path) {
  std::istringstream words(read_string(file, "boundaries", path));
  std::array<std::string, 6> b;
  std::string extra;
  for (std::string& name : b)
    if (!(words >> name)) unreadable(path, "boundaries");
  if (words >> extra) unreadable(path, "boundaries");
  return b;
}

// Opens a checkpoint for reading, with HDF5's own error printing off unless asked for (the
// refusal says what is wrong in one line).
hid_t open_for_reading(const std::string& path) {
  std::error_code ec;
  const fs::file_status status = fs::status(path, ec);
  // A folder on the way that this user cannot enter: said, not thrown as a filesystem error.
  if (ec && ec != std::errc::no_such_file_or_directory) refuse(path, "cannot be reached: " + ec.message());
  if (!fs::exists(status)) refuse(path, "does not exist");
  // A FIFO or a device would be read for ever or give no file at all.
  if (!fs::is_regular_file(status)) refuse(path, "is not a regular file");
  // Not "truncated or not a checkpoint" (HDF5's open fails alike): a good file this user may
  // not read is not to be taken for a broken one.
  if (::access(path.c_str(), R_OK) != 0) refuse(path, "cannot be read: " + std::string(std::strerror(errno)));
  h5::apply_error_printing();
  const hid_t file = H5Fopen(path.c_str(), H5F_ACC_RDONLY, H5P_DEFAULT);
  if (file < 0) refuse(path, "is not a readable HDF5 file (truncated or not a checkpoint)");
  return file;
}

// checkpoint_<digits>.h5 -> the step; -1 for any other name.
long step_of_name(const std::string& name) {
  const std::string head = "checkpoint_", tail = ".h5";
  if (name.size() < head.size() + 8 + tail.size() || name.size() > head.size() + 18 + tail.size() ||
      name.compare(0, head.size(), head) != 0 || name.compare(name.size() - tail.size(), tail.size(), tail) != 0)
    return -1;
  const std::string digits = name.substr(head.size(), name.size() - head.size() - tail.size());
  if (!std::all_of(digits.begin(), digits.end(), [](char c) { return c >= '0' && c <= '9'; })) return -1;
  return std::stol(digits);
}

}  // namespace

std::string checkpoint_header_checksum(const CheckpointHeader& h) {
  std::uint64_t hash = 0xcbf29ce484222325ull;
  for (unsigned char c : canonical_text(h)) hash = (hash ^ c) * 0x100000001b3ull;
  char hex[17];
  std::snprintf(hex, sizeof hex, "%016llx", static_cast<unsigned long long>(hash));
  return hex;
}

std::string checkpoint_path(const std::string& dir, long step) {
  char name[40];
  std::snprintf(name, sizeof name, "checkpoint_%08ld.h5", step);
  return (fs::path(dir) / name).string();
}

struct CheckpointImage::Parts {
  std::string path;
  CheckpointHeader header;
  Provenance provenance;
  std::unique_ptr<h5::MemoryFile> image;
  std::unique_ptr<H5Handle> state;  // the dataset, closed before the image
};

CheckpointImage::CheckpointImage(const std::string& path, const CheckpointHeader& h, const Provenance& provenance)
    : parts_(new Parts{path, h, provenance, {}, {}}) {
  const std::string fault = header_fault(h);
  if (!fault.empty()) throw std::invalid_argument("checkpoint '" + path + "' not written: it " + fault);
  const std::size_t cells = static_cast<std::size_t>(h.grid[0]) * h.grid[1] * h.grid[2];
  try {
    parts_->image = std::make_unique<h5::MemoryFile>(path, kNumVars * cells * sizeof(double) + h.deck_text.size());
    const hsize_t dims[4] = {static_cast<hsize_t>(kNumVars), static_cast<hsize_t>(h.grid[2]),
                             static_cast<hsize_t>(h.grid[1]), static_cast<hsize_t>(h.grid[0])};
    H5Handle space(check_id(H5Screate_simple(4, dims, nullptr), "create dataspace", path), H5Sclose);
    parts_->state = std::make_unique<H5Handle>(check_id(H5Dcreate2(parts_->image->get(), "state", H5T_NATIVE_DOUBLE,
                                                                   space.get(), H5P_DEFAULT, H5P_DEFAULT, H5P_DEFAULT),
                                                        "create dataset 'state'", path),
                                               H5Dclose);
  } catch (const h5::Error& e) {
    throw OutputError("cannot write checkpoint '" + path + "': " + e.reason());
  }
}

CheckpointImage::~CheckpointImage() = default;

void CheckpointImage::write_block(const CellBlock& block, const double* state) {
  const Parts& p = *parts_;
  if (!contains(CellBlock{{0, 0, 0}, {p.header.grid[0], p.header.grid[1], p.header.grid[2]}}, block))
    throw std::invalid_argument("checkpoint: a block outside the grid of '" + p.path + "'");
  try {
    const hid_t dset = p.state->get();
    H5Handle space(check_id(H5Dget_space(dset), "get a dataspace", p.path), H5Sclose);
    hsize_t start[4], count[4];
    state_hyperslab(block, start, count);
    check(H5Sselect_hyperslab(space.get(), H5S_SELECT_SET, start, nullptr, count, nullptr), "select a block", p.path);
    H5Handle memory(check_id(H5Screate_simple(4, count, nullptr), "create dataspace", p.path), H5Sclose);
    check(H5Dwrite(dset, H5T_NATIVE_DOUBLE, memory.get(), space.get(), H5P_DEFAULT, state), "write dataset 'state'",
          p.path);
  } catch (const h5::Error& e) {
    throw OutputError("cannot write checkpoint '" + p.path + "': " + e.reason());
  }
}

void CheckpointImage::finish() {
  Parts& p = *parts_;
  try {
    check(p.state->close(), "close dataset 'state'", p.path);
    write_header(p.image->get(), p.header, p.path);
    h5::write_provenance(p.image->get(), p.provenance, p.path);
    p.image->finish();
    write_file_atomically(p.path, p.image->data(), p.image->size(), "checkpoint", /*sync_directory=*/true);
  } catch (const h5::Error& e) {
    throw OutputError("cannot write checkpoint '" + p.path + "': " + e.reason());
  }
  p.image.reset();
}

void write_checkpoint(const std::string& path, const CheckpointHeader& h, const std::vector<double>& state,
                      const Provenance& provenance) {
  const std::size_t cells = static_cast<std::size_t>(h.grid[0]) * h.grid[1] * h.grid[2];
  if (header_fault(h).empty() && state.size() != kNumVars * cells)
    throw std::invalid_argument("checkpoint: state has " + std::to_string(state.size()) + " values, the grid needs " +
                                std::to_string(kNumVars * cells));
  CheckpointImage file(path, h, provenance);
  file.write_block(CellBlock{{0, 0, 0}, {h.grid[0], h.grid[1], h.grid[2]}}, state.data());
  file.finish();
}

CheckpointHeader read_checkpoint_header(const std::string& path) {
  H5Handle file(open_for_reading(path), H5Fclose);
  const hid_t f = file.get();
  if (!has_attribute(f, "format") || read_string(f, "format", path) != "halocline-checkpoint")
    refuse(path, "is not a Halocline checkpoint");
  CheckpointHeader h;
  h.format = read_scalar<int>(f, "format_version", H5T_NATIVE_INT, path);
  if (h.format < kOldestCheckpointFormat || h.format > kCheckpointFormat)
    refuse(path, "has format version " + std::to_string(h.format) + "; this Halocline reads versions " +
                     std::to_string(kOldestCheckpointFormat) + " to " + std::to_string(kCheckpointFormat));
  h.halocline_version = read_string(f, "halocline_version", path);
  h.step = static_cast<long>(read_scalar<std::int64_t>(f, "step", H5T_NATIVE_INT64, path));
  h.time = read_scalar<double>(f, "time", H5T_NATIVE_DOUBLE, path);
  h.problem = read_string(f, "problem", path);
  h.lo = read_triple<double>(f, "lo", H5T_NATIVE_DOUBLE, path);
  h.hi = read_triple<double>(f, "hi", H5T_NATIVE_DOUBLE, path);
  h.boundaries = read_boundaries(f, path);
  h.grid = read_triple<int>(f, "grid", H5T_NATIVE_INT, path);
  h.gamma = read_scalar<double>(f, "gamma", H5T_NATIVE_DOUBLE, path);
  h.precision = read_string(f, "precision", path);
  h.layout = read_string(f, "layout", path);
  h.backend = read_string(f, "backend", path);
  h.ranks_grid = read_triple<int>(f, "ranks_grid", H5T_NATIVE_INT, path);
  h.deck_text = read_string(f, "deck", path);
  if (h.format >= 4) h.series = read_string(f, "series", path);
  if (h.format >= 5) {
    h.cfl = read_scalar<double>(f, "cfl", H5T_NATIVE_DOUBLE, path);
    h.limiter = read_string(f, "limiter", path);
    h.riemann = read_string(f, "riemann", path);
  }
  h.checksum = read_string(f, "checksum", path);
  h.header_checksum = read_string(f, "header_checksum", path);
  if (h.header_checksum != checkpoint_header_checksum(h))
    refuse(path, "is corrupted: its header does not match its checksum");
  const std::string fault = header_fault(h);
  if (!fault.empty()) refuse(path, fault);
  return h;
}

struct CheckpointReader::Parts {
  explicit Parts(const std::string& name)
      : path(name),
        file(open_for_reading(name), H5Fclose),
        state(H5Dopen2(file.get(), "state", H5P_DEFAULT), H5Dclose) {}
  std::string path;
  H5Handle file, state;
};

CheckpointReader::CheckpointReader(const std::string& path, const int n_global[3])
    : parts_(std::make_unique<Parts>(path)) {
  const Parts& p = *parts_;
  if (p.state.get() < 0) refuse(path, "has no 'state' dataset");
  H5Handle space(H5Dget_space(p.state.get()), H5Sclose);
  hsize_t dims[4] = {0, 0, 0, 0};
  if (space.get() < 0 || H5Sget_simple_extent_ndims(space.get()) != 4 ||
      H5Sget_simple_extent_dims(space.get(), dims, nullptr) != 4 || dims[0] != kNumVars ||
      dims[1] != static_cast<hsize_t>(n_global[2]) || dims[2] != static_cast<hsize_t>(n_global[1]) ||
      dims[3] != static_cast<hsize_t>(n_global[0]))
    refuse(path, "has a 'state' dataset of another shape than its grid");
}

CheckpointReader::~CheckpointReader() = default;

void CheckpointReader::read_block(const CellBlock& block, double* out) {
  const Parts& p = *parts_;
  H5Handle space(H5Dget_space(p.state.get()), H5Sclose);
  hsize_t start[4], count[4];
  state_hyperslab(block, start, count);
  H5Handle memory(H5Screate_simple(4, count, nullptr), H5Sclose);
  if (space.get() < 0 || memory.get() < 0 ||
      H5Sselect_hyperslab(space.get(), H5S_SELECT_SET, start, nullptr, count, nullptr) < 0 ||
      H5Dread(p.state.get(), H5T_NATIVE_DOUBLE, memory.get(), space.get(), H5P_DEFAULT, out) < 0)
    refuse(p.path, "has a 'state' dataset that cannot be read (truncated or corrupted)");
}

std::vector<double> read_checkpoint_block(const std::string& path, const Grid& local) {
  CheckpointReader reader(path, local.n_global);
  std::vector<double> block(kNumVars * local.ninterior);
  reader.read_block(block_of(local), block.data());
  return block;
}

std::vector<CheckpointFile> list_checkpoints(const std::string& dir) {
  std::vector<CheckpointFile> found;
  std::error_code ec;
  for (const auto& e : fs::directory_iterator(dir, ec)) {
    const long step = step_of_name(e.path().filename().string());
    if (step >= 0) found.push_back({step, e.path().string()});
  }
  std::sort(found.begin(), found.end(), [](const CheckpointFile& a, const CheckpointFile& b) {
    return a.step != b.step ? a.step < b.step : a.path < b.path;
  });
  return found;
}

std::optional<std::string> checkpoint_series(const std::string& path) {
  try {
    return read_checkpoint_header(path).series;
  } catch (const std::exception&) {
    return std::nullopt;
  }
}

void prune_checkpoints(const std::string& dir, int keep, long newest, const std::string& spare,
                       const std::string* series) {
  std::vector<CheckpointFile> found = list_checkpoints(dir);
  std::error_code ec;
  found.erase(std::remove_if(found.begin(), found.end(),
                             [&](const CheckpointFile& f) {
                               return f.step > newest ||
                                      (series && checkpoint_series(f.path) != *series);  // none: no series
                             }),
              found.end());
  // The spare is neither counted nor removed: renamed by hand to a later step, it would
  // otherwise count as the newest and have the run's own new checkpoints removed.
  // equivalent() compares the files themselves: another spelling of the path, a link.
  found.erase(
      std::remove_if(found.begin(), found.end(),
                     [&](const CheckpointFile& f) { return !spare.empty() && fs::equivalent(f.path, spare, ec); }),
      found.end());
  for (std::size_t i = 0; i + keep < found.size(); ++i) fs::remove(found[i].path, ec);
}

}  // namespace halocline
