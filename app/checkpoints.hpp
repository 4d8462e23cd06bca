// Checkpoints in a run: saving the state at a step, and starting from a saved one
// (--restart). The file format is io/checkpoint.hpp's; this file adds what a run knows:
// the ranks, the deck and the checks that a checkpoint fits the run.
#pragma once

#include <optional>
#include <string>
#include <vector>

#include "app/comm.hpp"
#include "base/grid.hpp"
#include "io/checkpoint.hpp"
#include "io/config.hpp"
#include "kernels/contract/backend.hpp"

namespace halocline {

struct RestartPoint {
  double time = 0;
  long step = 0;
  std::string series;  // the run's (CheckpointHeader::series): the checkpoint's, or a fresh run's new one
  // The numerics this restart changes from the run it continues (restart_changes).
  std::optional<std::vector<std::string>> changes;
};

// The numerics a restart from `h` changes, each "key (before -> now)": physics.cfl,
// physics.limiter, physics.riemann, as the checkpoint's run took them (format 5); nothing for
// an older checkpoint, which does not say.
std::optional<std::vector<std::string>> restart_changes(const CheckpointHeader& h, const Config& config);

// The note of a restart that changes its numerics, or empty.
std::string restart_changes_note(const std::optional<std::vector<std::string>>& changes);

// Reads the header of `config.restart_path` and checks that it fits the deck (problem,
// domain, boundaries, grid, gamma, precision equal; its time before time.t_end), and that
// the run's checkpoint directory holds no checkpoint after it (a restart there would mix
// two runs' checkpoints and prune the other's); throws CheckpointError (exit code 2) when
// not. Cheap: the command line calls it before any work.
CheckpointHeader check_restart(const Config& config);

// Reads the checkpoint `config.restart_path` into `backend`: this rank's subdomain `local`,
// slab by slab (Backend::write_state), so that the host holds a slab at a time. Refuses
// (CheckpointError, exit code 2) what check_restart refuses, a block that cannot be read,
// and a state whose checksum, computed where it now lives and summed over the ranks, is not
// the file's (a corrupted file is never used); every rank throws alike.
RestartPoint load_restart(const Config& config, const Comm& comm, const Grid& local, Backend& backend);

// Writes the checkpoint of step `step` at `time` of the state in `backend` (with its checksum,
// kernels/checksum.hpp, made where it lives, the run's `provenance` and its `series`,
// CheckpointHeader::series): every rank's slabs reach rank 0
// (Comm::funnel), which builds the file and writes it. Removes all but the newest `keep`
// (never the checkpoint the run restarted from) and returns its path; returns "" and writes
// nothing when a cell of the state is not physical (a broken state is never saved). Every
// rank throws alike when rank 0 fails: OutputError when the file could not be written (the
// previous checkpoints are kept).
std::string save_checkpoint(const Config& config, const Comm& comm, const Provenance& provenance,
                            const std::string& series, long step, double time, Backend& backend);

// A new run's series (CheckpointHeader::series): 16 random hex digits.
std::string new_series();

// The checkpoint directory of a run: checkpoint.dir below the output directory.
std::string checkpoint_dir(const Config& config);

// The checkpoints already in the run's checkpoint directory that are not of the series the run
// goes on (a restart's; a fresh run starts a series of its own): an earlier run's. The run's
// checkpoints of the same steps replace them; its pruning leaves them (prune_checkpoints).
std::vector<std::string> other_runs_checkpoints(const Config& config);

}  // namespace halocline
