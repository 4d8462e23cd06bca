// Checkpoints in a run: saving the state at a step, and starting from a saved one
// (--restart). The file format is io/checkpoint.hpp's; this file adds what a run knows:
// the ranks, the deck and the checks that a checkpoint fits the run.
#pragma once

#include <string>
#include <vector>

#include "app/comm.hpp"
#include "io/checkpoint.hpp"
#include "io/config.hpp"
#include "kernels/grid.hpp"

namespace halocline {

struct RestartPoint {
  std::vector<double> state;  // this rank's block, canonical
  double time = 0;
  long step = 0;
};

// Reads the header of `config.restart_path` and checks that it fits the deck (problem,
// domain, boundaries, grid, gamma, precision equal; its time before time.t_end), and that
// the run's checkpoint directory holds no checkpoint after it (a restart there would mix
// two runs' checkpoints and prune the other's); throws CheckpointError (exit code 2) when
// not. Cheap: the command line calls it before any work.
CheckpointHeader check_restart(const Config& config);

// Reads the checkpoint `config.restart_path` for this rank's subdomain `local`. Refuses
// (CheckpointError, exit code 2) what check_restart refuses and a file whose state does not
// match its checksum; every rank throws alike.
RestartPoint load_restart(const Config& config, const Comm& comm, const Grid& local, const Grid& global);

// Writes the checkpoint of step `step` at `time` from the ranks' blocks `local` (rank 0
// gathers and writes), removes all but the newest `keep` (never the checkpoint the run
// restarted from), and returns its path. Every rank throws alike when rank 0 fails:
// OutputError when the file could not be written (the previous checkpoints are kept).
std::string save_checkpoint(const Config& config, const Comm& comm, long step, double time,
                            const std::vector<double>& local, const Grid& local_grid, const Grid& global);

// The checkpoint directory of a run: checkpoint.dir below the output directory.
std::string checkpoint_dir(const Config& config);

}  // namespace halocline
