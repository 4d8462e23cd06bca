// Checkpoints: the whole conserved state and everything a restart needs, in one HDF5 file,
// written so that a crash at any moment leaves the previous checkpoint intact.
//
// The state is stored in canonical order (variable-major, x fastest) as 64-bit floats: an
// fp32 run's values convert to double and back exactly, so a restart continues bit for
// bit in any layout and on any number of ranks. A checksum of the stored state (the
// report's, kernels/checksum.hpp) and one of the header (every other field, the state's checksum among
// them) are checked on reading, so a corrupted file is refused, never used.
#pragma once

#include <array>
#include <memory>
#include <optional>
#include <stdexcept>
#include <string>
#include <vector>

#include "base/grid.hpp"
#include "io/provenance_record.hpp"
#include "kernels/contract/state_slabs.hpp"  // CellBlock

namespace halocline {

// Bumped whenever the file's contents change. 2: the problem, the domain extent and the
// boundaries stored, and the header covered by its own checksum. 3: the state's checksum is
// kernels/checksum.hpp's order-independent sum (it was a sequential FNV-1a). 4: the run's
// series (below). 5: the numerics the run took (cfl, limiter, Riemann solver), which a restart
// may change and then names. Formats 3 and 4 are still read, without what came after them.
constexpr int kCheckpointFormat = 5;
constexpr int kOldestCheckpointFormat = 3;

// What a checkpoint holds besides the state.
struct CheckpointHeader {
  int format = kCheckpointFormat;
  std::string halocline_version;
  long step = 0;                                   // >= 0, below 2^53
  double time = 0;                                 // finite, >= 0
  std::string problem;                             // problem_name(), as the deck's problem.type
  std::array<double, 3> lo{0, 0, 0}, hi{1, 1, 1};  // the domain extent
  // boundary_name() of each face: x_lo, x_hi, y_lo, y_hi, z_lo, z_hi
  std::array<std::string, 6> boundaries;
  std::array<int, 3> grid{1, 1, 1};  // global interior cells
  double gamma = 0;
  std::string precision;        // fp64 or fp32: a restart must use the same
  std::string layout, backend;  // of the run that wrote it (any may restart it)
  std::array<int, 3> ranks_grid{1, 1, 1};
  std::string deck_text;
  // The series: an id a fresh run makes and its restarts carry on (16 hex digits; empty from
  // format 3), so that a restart's snapshot series lists the snapshots of its own runs only.
  std::string series;
  // The numerics of the run that wrote it (format 5; 0 and empty before): physics.cfl, and the
  // deck's names of physics.limiter and physics.riemann.
  double cfl = 0;
  std::string limiter, riemann;
  std::string checksum;         // of the state, as state_checksum()
  std::string header_checksum;  // as read; write_checkpoint computes its own
};

// 64-bit FNV-1a (16 hex digits) over a canonical text of every field above but
// header_checksum (doubles by their exact bits, strings with their lengths). Public so
// that tests can forge a consistent header.
std::string checkpoint_header_checksum(const CheckpointHeader& header);

// Writes `state` (the whole domain, canonical), the header and the run's provenance (the
// attributes of group "provenance": who wrote the file, not covered by the header's checksum
// nor read by a restart) into `path`: built in memory, written to "<path>.tmp", fsync'ed,
// renamed onto `path`, and the directory fsync'ed. A file that cannot be written throws
// OutputError ("cannot write checkpoint 'PATH': REASON", the OS's reason), leaving no
// temporary and any earlier file at `path` untouched; a header that could not be restarted
// (see read_checkpoint_header) throws std::invalid_argument.
void write_checkpoint(const std::string& path, const CheckpointHeader& header, const std::vector<double>& state,
                      const Provenance& provenance = Provenance());

// The same in parts, so that the host needs no copy of the state besides the file's own
// bytes: the constructor checks the header (as write_checkpoint), write_block() takes the
// conserved values of any block of the grid (canonical within the block: state[v *
// block.cells() + n]) in any order, finish() writes the file. `header.checksum` must be the
// state's. Dropped unfinished, nothing reaches the disk.
class CheckpointImage {
 public:
  CheckpointImage(const std::string& path, const CheckpointHeader& header, const Provenance& provenance);
  ~CheckpointImage();
  CheckpointImage(const CheckpointImage&) = delete;
  CheckpointImage& operator=(const CheckpointImage&) = delete;
  void write_block(const CellBlock& block, const double* state);
  void finish();

 private:
  struct Parts;
  std::unique_ptr<Parts> parts_;
};

// Reads the header and checks it; throws CheckpointError (exit code 2) for a file that is
// missing, not HDF5, truncated, of another format version, missing a field, whose header
// does not match its checksum, or whose values cannot be a run's (a step below 0 or from
// 2^53, a time not finite or below 0, gamma not finite or <= 1, a grid size below 1, an
// empty or non-finite domain, names that are not plain lower-case words).
CheckpointHeader read_checkpoint_header(const std::string& path);

// Reads the block of `local` (a subdomain of the checkpoint's grid) in canonical order.
std::vector<double> read_checkpoint_block(const std::string& path, const Grid& local);

// The same a block at a time, the file kept open: a restart reads its state slab by slab
// (Backend::write_state). The constructor refuses (CheckpointError) a file without a state
// of the grid `n_global`; read_block one whose block cannot be read.
class CheckpointReader {
 public:
  CheckpointReader(const std::string& path, const int n_global[3]);
  ~CheckpointReader();
  CheckpointReader(const CheckpointReader&) = delete;
  CheckpointReader& operator=(const CheckpointReader&) = delete;
  // The conserved values of `block`, canonical within it, into `out` (kNumVars * cells).
  void read_block(const CellBlock& block, double* out);

 private:
  struct Parts;
  std::unique_ptr<Parts> parts_;
};

struct CheckpointError : std::runtime_error {
  using std::runtime_error::runtime_error;
};

// "<dir>/checkpoint_<step, 8 digits or more>.h5"
std::string checkpoint_path(const std::string& dir, long step);

// The checkpoints of checkpoint_path's form in `dir` (none when it does not exist), by step.
struct CheckpointFile {
  long step = 0;
  std::string path;
};
std::vector<CheckpointFile> list_checkpoints(const std::string& dir);

// Removes all but the newest `keep` checkpoints of checkpoint_path's form in `dir` up to step
// `newest` (the one the run just wrote), never `spare` (the checkpoint the run restarted from,
// compared as the same file, not by name). Later ones are another run's, left in the
// directory by a run that went further: counted, they would have the run's own removed.
// With `series`, only that series' checkpoints count and go: another run's in the same
// directory (another problem, or a fresh run of the same deck) are not this run's to remove
// ("" is a series too: the checkpoints made before series were, which a restart from one goes on).
void prune_checkpoints(const std::string& dir, int keep, long newest, const std::string& spare = "",
                       const std::string* series = nullptr);
// The series a checkpoint file belongs to; "" where it names none (made before series were);
// none for a file that cannot be read as a checkpoint, which no series owns: pruning never
// counts nor removes it (it was "", so that a restart from a checkpoint made before series
// removed any unreadable file of its steps).
std::optional<std::string> checkpoint_series(const std::string& path);

}  // namespace halocline
