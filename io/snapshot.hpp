// HDF5 snapshots of the primitive variables, each with an XDMF file that ParaView opens,
// and a time-series XDMF tying all snapshots of a run together. Each file describes itself:
// the run's time, step, problem, gamma, deck, precision, layout and provenance, the units,
// the order of dimensions, and the cells' centres (docs/output.md lists every attribute).
#pragma once

#include <memory>
#include <string>
#include <utility>
#include <vector>

#include "base/grid.hpp"
#include "io/provenance_record.hpp"
#include "kernels/contract/state_slabs.hpp"  // CellBlock

namespace halocline {

// Bumped whenever what a snapshot holds changes. 2: the run's description (problem, gamma,
// deck, precision, layout, backend, units, dimension orders, provenance) and the coordinate
// datasets x, y, z; format 1 held the five variables and grid, origin, spacing, step, time.
// 3: the run's series (SnapshotMetadata::series).
constexpr int kSnapshotFormat = 3;

// What a snapshot says about the run that wrote it, besides the grid and the state.
struct SnapshotMetadata {
  bool single_precision = false;    // the datasets as 32-bit floats (an fp32 run), else 64-bit
  std::string problem = "unknown";  // the deck's problem.type
  double gamma = 0;                 // the ratio of specific heats (0: not given)
  std::string layout = "unknown";   // the run's layout in memory (the file's order is always z, y, x)
  std::string backend = "unknown";
  std::string deck_text;  // the deck as read, before the command line's overrides
  // The id a fresh run makes and its restarts carry on (CheckpointHeader::series): a restart
  // lists in its series only the snapshots whose series is its own (empty matches a file
  // without one, from a format before 3).
  std::string series;
  Provenance provenance;
};

// This rank's part of a snapshot written collectively into one shared file (a parallel
// HDF5 build, several ranks): every rank writes its own block of each dataset.
struct SnapshotPart {
  Grid local;                // this rank's subdomain (offset and size in the whole grid)
  void* mpi_comm = nullptr;  // the ranks' MPI_Comm, by address (Comm::mpi_comm())
  bool root = false;         // rank 0 renames the file and writes the XDMF
};

struct SnapshotInfo {
  std::string h5_path;
  std::string xmf_path;
};

// One snapshot being assembled block by block (SnapshotWriter::begin), then written
// whole by SnapshotWriter::finish. It holds the file's bytes in memory (serial: the HDF5
// file's image, io/h5util.hpp says why) or this rank's block (collective): the one copy of
// the state the host keeps for a file.
class SnapshotFile {
 public:
  SnapshotFile(SnapshotFile&&) noexcept;
  SnapshotFile& operator=(SnapshotFile&&) noexcept;
  ~SnapshotFile();
  // Writes the primitive variables rho, u, v, w, p of `block` (cells of the whole grid;
  // with a collective writer, within this rank's part), variable-major, x fastest:
  // prim[v * block.cells() + n].
  void write_block(const CellBlock& block, const double* prim);

 private:
  friend class SnapshotWriter;
  struct Parts;
  explicit SnapshotFile(std::unique_ptr<Parts> parts);
  std::unique_ptr<Parts> parts_;
};

class SnapshotWriter {
 public:
  // `grid` gives the interior size, origin and spacing; `metadata` what every file says
  // about the run (its `single_precision` stores the datasets as 32-bit floats).
  // With `part`, every rank constructs a writer and calls write() with its own cells
  // (collective_available() must be true), and every rank's metadata must be the same.
  SnapshotWriter(std::string out_dir, const Grid& grid, SnapshotMetadata metadata, std::string prefix = "snapshot",
                 const SnapshotPart* part = nullptr);

  // Whether this build's HDF5 can write one file from several ranks (parallel HDF5).
  static bool collective_available();

  // Writes snapshot number `index`. `prim` holds the interior cells' primitive variables
  // rho, u, v, w, p, variable-major, each variable in canonical order (x fastest, then y,
  // then z), ninterior values each (of this rank's part, when writing collectively). Files
  // are written under a temporary name and renamed, so a file with the final name is always
  // complete. A file that cannot be written throws OutputError ("cannot write snapshot
  // 'PATH': REASON", the OS's reason) and leaves no temporary behind.
  SnapshotInfo write(int index, long step, double time, const std::vector<double>& prim);

  // The same in parts: begin(), SnapshotFile::write_block for every cell of the grid (of
  // this rank's part, when writing collectively) in any order, finish(). A file dropped
  // unfinished leaves nothing on disk.
  SnapshotFile begin(int index) const;
  SnapshotInfo finish(SnapshotFile& file, long step, double time);

  // (Re)writes <prefix>.xmf, the temporal collection of every snapshot written so far
  // (OutputError as write()).
  void write_series() const;

  // A restarted run at `time` continues the numbering at the index it returns: `at_least` (after
  // the output times passed), and after the last snapshot of its series in the directory whose
  // time is at or before `time`, so that it writes over none of the run it continues, whose
  // final snapshot may lie between two output times (and, with no output interval, is its only
  // one: snapshot 0). The snapshots before that index that are of its series
  // (SnapshotMetadata::series: the run it continues wrote them), at or before `time`, join the
  // series, with their times, so that <prefix>.xmf still lists them. A file that cannot be
  // read, or of another series, is left out; so is one of a later time (the run it continues
  // went past its checkpoint, with another output interval: this run makes that time again),
  // which later_snapshots() names. The directory's snapshots are read once.
  int continue_series(int at_least, double time);
  // The snapshots continue_series() left out for their time: an earlier run's, past the restart.
  const std::vector<std::string>& later_snapshots() const { return later_; }
  // Of the snapshots of its series numbered from `first_index` on, which continue_series() found
  // past the restart's time (the run it continues went on beyond its checkpoint), those that
  // this run's own of the same number, written since, replaced with another time's: the final
  // snapshot of the run it continues, between two output times. (One of an output time this run
  // makes again, the same state, is not named.)
  std::vector<std::string> replaced_snapshots() const;
  // The snapshot files in the directory numbered after `index`, in order: where `index` is the
  // last this run wrote, an earlier run's, which <prefix>.xmf does not list.
  std::vector<std::string> snapshots_after(int index) const;

  const std::vector<SnapshotInfo>& written() const { return written_; }

 private:
  std::string out_dir_;
  std::vector<std::string> later_;  // continue_series(): of its series, past the restart's time
  // A snapshot of this writer's series in its directory: its number, file and time.
  struct SeriesFile {
    int number;
    std::string path;
    double time;
  };
  std::vector<SeriesFile> series_files() const;  // in order of number
  std::vector<SeriesFile> beyond_;  // continue_series(): of its series, past the restart's time, from first_index on
  Grid grid_;
  SnapshotMetadata metadata_;
  std::string prefix_;
  bool collective_ = false;
  SnapshotPart part_;
  std::vector<SnapshotInfo> written_;
  std::vector<double> times_;
};

}  // namespace halocline
