// The run of app/driver.cpp's run_simulation(): the Simulation it steps and the schedules
// it keeps, shared by the three files that make a run (internal to app/):
//   app/driver.cpp              run_simulation() and the loop's steps (where the step's timers
//                               start and stop)
//   app/simulation_setup.cpp    the set-up: backend, state, outputs, controller, snapshot 0
//   app/simulation_outputs.cpp  snapshots, checkpoints and faults inside the loop, and the finish
#pragma once

#include <algorithm>
#include <array>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <limits>
#include <memory>
#include <string>
#include <vector>

#include "app/checkpoints.hpp"
#include "app/comm.hpp"
#include "app/driver.hpp"
#include "app/progress.hpp"
#include "app/select.hpp"
#include "app/stages.hpp"
#include "app/step_samples.hpp"
#include "io/snapshot.hpp"
#include "kernels/totals.hpp"

namespace halocline::simulation {

using Clock = std::chrono::steady_clock;

// A time or rate for a message, to 6 significant digits at any scale (std::to_string's fixed
// 6 decimals says 0.000000 for a rate of 1e-308 or a time of 1e-9).
inline std::string g6(double v) {
  char text[32];
  std::snprintf(text, sizeof text, "%.6g", v);
  return text;
}

inline double seconds_since(Clock::time_point t0) { return std::chrono::duration<double>(Clock::now() - t0).count(); }

// k * interval rounded to 15 significant digits: the output times a user wrote in decimal
// (3 * 0.05 is 0.15000000000000002 in binary; the snapshot should be at 0.15).
inline double decimal_time(double t) {
  char text[32];
  std::snprintf(text, sizeof text, "%.15g", t);
  return std::strtod(text, nullptr);
}

// The snapshot schedule: output times k * interval (none when the interval is 0), and
// which of them are written.
struct SnapshotTimes {
  double interval = 0;
  long done = 0;  // periodic snapshots written after t = 0
  bool periodic() const { return interval > 0; }
  double next() const {
    return periodic() ? decimal_time((done + 1) * interval) : std::numeric_limits<double>::infinity();
  }
};

// The checkpoint schedule: every N steps (a step stop of the controller, which leaves dt
// alone), and on request (wall time, SIGINT/SIGTERM/SIGHUP) at the next step the device has not
// begun.
struct CheckpointSteps {
  long every = 0;
  long next = std::numeric_limits<long>::max();
  Clock::time_point last = Clock::now();
  int signal = 0;  // the signal that ends the run once its checkpoint is written
  long after(long step) const { return every > 0 ? (step / every + 1) * every : std::numeric_limits<long>::max(); }
  void written(long step) {
    next = after(step);
    last = Clock::now();
  }
};

// Where the time outside the step loop goes (the report's outside_loop_s): each lap is the
// host time since the one before.
struct Laps {
  RunResult& r;
  Clock::time_point start = Clock::now();
  void operator()(const char* what) {
    const auto now = Clock::now();
    r.outside_loop.emplace_back(what, std::chrono::duration<double>(now - start).count());
    start = now;
  }
};

class Simulation {
 public:
  Simulation(const Config& config, const RunOptions& options, RunResult& r);
  // The loop's four steps: see run_simulation().
  void read_status() { control_ = backend_->step_status(false); }
  void take_stop_requests();
  bool at_stop() const { return control_.failed || control_.t >= t_stop_ || control_.step >= step_stop(); }
  bool stop();  // true at the end of the run
  void step();
  void check_the_end_is_reachable() const;
  void finish();

 private:
  void set_up_backend();
  void set_up_state();
  void set_up_outputs();
  void start_controller();
  void write_first_snapshot();
  void write_snapshot(long step, double time);       // timed: app/driver.cpp
  void write_snapshot_file(long step, double time);  // its work: app/simulation_outputs.cpp
  std::vector<double> gather_state();
  Totals state_totals();
  [[noreturn]] void report_fault();
  void check_state_at_stop();
  void checkpoint_at_stop();  // timed: app/driver.cpp
  void write_checkpoint();    // its work: app/simulation_outputs.cpp
  void sample_step();
  void settle_steps_past_the_stop();
  void reduce_timers();
  long step_stop() const { return std::min(step_limit_, checkpoints_.next); }

  const Config& config_;
  const RunOptions& options_;
  RunResult& r_;
  Laps laps_;
  const Comm comm_;
  const Grid g_;  // this rank's part of the domain
  HaloSetup halo_;
  std::unique_ptr<Backend> backend_;
  std::unique_ptr<PhaseClock> clock_, halo_clock_;
  std::unique_ptr<PhaseTimers> timers_;
  std::unique_ptr<Stages> stages_;
  RestartPoint start_;
  bool collective_ = false;  // every rank writes its block of one snapshot file
  std::unique_ptr<SnapshotWriter> writer_;
  int snapshot_index_ = 0;
  long last_snapshot_step_ = -1;
  SnapshotTimes outputs_;
  CheckpointSteps checkpoints_;
  long step_limit_ = std::numeric_limits<long>::max();
  double t_stop_ = 0;
  StepControl control_;
  // The loop's own bookkeeping.
  long asked_ = 0;       // steps asked of the backend
  StepSamples samples_;  // their times, less those of steps asked past a stop
  double output_s_ = 0;  // host seconds of snapshots written inside the loop
  Clock::time_point loop_start_, last_submit_;
  std::unique_ptr<ProgressLine> progress_;
};

}  // namespace halocline::simulation
