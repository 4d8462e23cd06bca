// The shared driver: one SSP-RK2 time loop for every backend, with the timers around each
// backend call, output at the deck's interval, and the final diagnostics.
#pragma once

#include <array>
#include <cstdint>
#include <optional>
#include <stdexcept>
#include <string>
#include <utility>
#include <vector>

#include "app/diagnostics.hpp"
#include "app/timers.hpp"
#include "base/grid.hpp"
#include "io/config.hpp"
#include "io/provenance_record.hpp"
#include "kernels/contract/backend.hpp"

namespace halocline {

// A numerical failure (a non-finite or non-positive time step): exit code 3.
struct NumericalError : std::runtime_error {
  using std::runtime_error::runtime_error;
};

// SIGINT or SIGTERM ended the run after writing a checkpoint (or trying to: then
// `checkpoint_failure` says why it could not be written): exit code 128 + signal.
struct Interrupted : std::runtime_error {
  Interrupted(int signal_number, long at_step, std::string checkpoint_path, const std::string& checkpoint_failure = "")
      : std::runtime_error("interrupted by signal " + std::to_string(signal_number) + " at step " +
                           std::to_string(at_step) +
                           (!checkpoint_failure.empty() ? "; the checkpoint could not be written: " + checkpoint_failure
                            : checkpoint_path.empty()   ? std::string("; nothing was saved")
                                                        : "; the state is saved in " + checkpoint_path)),
        signal(signal_number),
        step(at_step),
        checkpoint(std::move(checkpoint_path)) {}
  // A command that keeps something else (a bench's finished rows) says what, `kept`.
  Interrupted(int signal_number, const std::string& kept)
      : std::runtime_error("interrupted by signal " + std::to_string(signal_number) + "; " + kept),
        signal(signal_number),
        step(-1) {}
  int signal;
  long step;
  std::string checkpoint;
};

// The first kWarmupSteps steps of a run are left out of the timers and of the step-time
// samples (caches, clocks, lazy set-up; on a GPU the pipeline filling). The step after
// them is traced (RunResult::timeline) and gives no sample, nor does the one after it.
constexpr long kWarmupSteps = 2;
constexpr long kTracedStepsUnsampled = 2;

struct RunOptions {
  bool write_output = true;  // snapshots at the deck's interval and at the end
  // Checkpoints: the deck's schedule, and a signal's (SIGINT, SIGTERM, SIGHUP: the run stops at
  // the next step with its state saved). Without, a signal ends the run at once with nothing
  // saved: verification's problems are no state to restart, and their runs write nothing,
  // so a signal must not write (or prune) checkpoints in the deck's output folder either.
  bool checkpoints = true;
  bool progress = false;  // a progress line on stderr (app/progress.hpp)
  // The final state copied to the host and gathered into RunResult::final_state (for
  // verification and tests). The command line's runs do not ask: the state then leaves the
  // device only for the files a person asked for.
  bool keep_final_state = true;
  // The command's provenance (app/provenance.hpp make_provenance, made once in app/main.cpp);
  // the run adds its GPU and takes rank 0's. Left as it is, the files say "unknown".
  Provenance provenance;
};

struct RunResult {
  Grid grid;
  std::string backend_description;
  long steps = 0;  // the step reached (a restart's count goes on from its checkpoint's)
  // Where this run began: step 0 at t = 0, or a restart's checkpoint; this run took
  // steps - first_step steps.
  long first_step = 0;
  double first_time = 0;
  // The numerics a restart changed (RestartPoint::changes): none known from an older checkpoint.
  std::optional<std::vector<std::string>> restart_changes;
  // Steps asked of the backend in this run: steps - first_step plus, on a GPU, the one asked past each stop
  // before the host learned of it (it changes nothing, but its exchange still runs).
  long steps_submitted = 0;
  // The phase timers cover the steps submitted after the first `timed_steps_from` (the
  // warm-up, 2 steps, or none in a shorter run): `timed_steps` of them.
  long timed_steps_from = 0, timed_steps = 0;
  double sim_time = 0;
  double wall_s = 0;  // whole run, set-up and output included
  double loop_s = 0;  // the time-step loop without output: the FOM's time
  // Host seconds of each stretch of the run outside the step loop, in order.
  std::vector<std::pair<std::string, double>> outside_loop;
  // Host wall time between step submissions (see driver): the warm-up steps first, then
  // every later step but the traced step and the one after it (the pipeline refills after
  // the trace's fence).
  std::vector<double> step_times;
  // The timeline of one step (the first timed one), each backend call on its stream
  // (compute, halo, host), from an idle device: see app/timers.hpp.
  long traced_step = -1;
  std::vector<TraceEvent> timeline;
  // interior cells x steps / loop_s: the loop's rate (the FOM is per median step: report).
  double loop_cell_updates_per_s = 0;
  // Conserved, canonical order (see Backend), of the whole domain, when the options keep it:
  // with several ranks on rank 0 only.
  std::vector<double> final_state;
  // Totals and checksum, made where the state lives (kernels/totals.hpp, checksum.hpp):
  // on every rank.
  Totals initial, final;
  std::string checksum;
  std::vector<PhaseStats> timers;  // this rank's (rank 0's in the report)
  // Each phase's total seconds over the ranks: min, max and mean (aligned with `timers`).
  std::vector<double> timers_min_s, timers_max_s, timers_mean_s;
  // Each rank's device in rank order (host name, then PCI bus or CPU name): on rank 0 only.
  std::vector<std::string> devices_over_ranks;
  int rank = 0, ranks = 1;
  std::array<int, 3> ranks_grid{1, 1, 1};
  HaloStrategy halo = HaloStrategy::None;          // as resolved for this run
  KernelStrategy kernels = KernelStrategy::Split;  // likewise
  std::string fused_shape;                     // with fused kernels: how the backend runs them (Backend::fused_shape)
  std::string output_mode;                     // serial (one rank), gather (rank 0 writes) or collective
  std::vector<std::string> snapshots;          // XDMF files written
  std::vector<std::string> earlier_snapshots;  // snapshot files after this run's last: an earlier run's
  std::vector<std::string> snapshots_past_restart;  // of the run a restart continues, past its checkpoint
  std::vector<std::string> snapshots_replaced;      // the same, which this run's of the same numbers replaced
  std::vector<std::string> checkpoints;             // checkpoint files written (older ones may be pruned)
  std::size_t device_bytes = 0;
  double host_bytes_planned = 0;                  // this node's host bytes by the memory plan (app/resources.hpp)
  double host_bytes_planned_largest_process = 0;  // the plan's for the node's largest rank (rank 0's, where it is)
  DeviceInfo device;
  Provenance provenance;  // RunOptions' with this run's GPU, rank 0's on every rank: what its files say
  TransferLog transfers;
};

RunResult run_simulation(const Config& config, const RunOptions& options = {});

}  // namespace halocline
