// The time loop. Each backend call of a step sits inside one PhaseTimers scope, named after
// the phase (app/phases.hpp): the step's own start and stop here, the stages' in
// app/stages.cpp:
//   dt_reduction              max signal speed -> time step (an MPI allreduce with ranks)
//   stageN.ghost_fill         boundary conditions (the faces without a neighbour)
//   stageN.pack               halo exchange (faces with a neighbour): messages packed,
//   stageN.d2h                copied to the host staging buffers,
//   stageN.mpi                sent and received (host time),
//   stageN.h2d                copied back to the device,
//   stageN.unpack             and unpacked into the ghosts
//   stageN.reconstruct_flux   MUSCL + Riemann fluxes of every cell (halo none/sync/gpu-aware)
//   stageN.update             conservative update of every cell
//   stageN.fused              fused kernels: the two above in one kernel (docs/performance.md)
//   stageN.interior           halo overlap: fluxes + update of the cells that read no ghost,
//                             while the exchange runs on the halo stream
//   stageN.boundary           halo overlap: fluxes + update of the shell, once ghosts landed
//   state_upload/_download    the per-step copies of the host owner model (and of managed
//                             memory with prefetch)
//   output                    snapshot (device-to-host copy + HDF5/XDMF)
//   checkpoint                the state gathered and written for a restart (host)
// Exchange phases are timed on the halo stream's clock, the others on the compute
// stream's; the MPI phase and output on the host.
//
// Read run_simulation() first: set-up, then a loop of four named steps (the controller's
// status, requests to stop, a stop, a step), then the finish. Each is a short member of
// Simulation (app/simulation.hpp); this file has the loop's steps, app/simulation_setup.cpp
// the set-up, app/simulation_outputs.cpp the files, faults and the finish.
#include "app/driver.hpp"

#include <algorithm>
#include <chrono>
#include <limits>
#include <string>

#include "app/failures.hpp"
#include "app/phases.hpp"
#include "app/signals.hpp"
#include "app/simulation.hpp"

namespace halocline {

// The run, top to bottom: set-up; then the loop asks the backend for steps until the
// controller reports a stop (the end time, the step limit, an output time, a checkpoint).
// The backend makes each dt where its state is; the host learns t and step from the
// status, possibly a step late (a step asked for past a stop does nothing), and only waits
// for the device at a stop.
RunResult run_simulation(const Config& config, const RunOptions& options) {
  using simulation::Clock, simulation::seconds_since;
  const auto t_start = Clock::now();
  RunResult r;
  simulation::Simulation run(config, options, r);
  for (;;) {
    run.read_status();
    run.take_stop_requests();
    if (run.at_stop()) {
      if (run.stop()) break;
      continue;
    }
    run.step();
  }
  run.finish();
  r.wall_s = seconds_since(t_start);
  return r;
}

namespace simulation {

// ---- The files' timers -----------------------------------------------------------------------

// Each snapshot (snapshot 0, those of the output times, the final one) and each checkpoint at
// a stop inside its host-timed phase (a fault's last good state is saved untimed: the run ends), here with the step's
// other timers.
void Simulation::write_snapshot(long step, double time) {
  auto timer = timers_->host_scope(phase::kOutput);
  write_snapshot_file(step, time);
}
void Simulation::checkpoint_at_stop() {
  auto timer = timers_->host_scope(phase::kCheckpoint);
  write_checkpoint();
}

// ---- The loop's steps ------------------------------------------------------------------------

// Asked for a checkpoint now (a signal, the wall-time interval)? All ranks agree, so that
// all stop at the same step; the status may be a step late, so step + 1 may be on the
// device already: the checkpoint is at step + 2.
void Simulation::take_stop_requests() {
  if (!options_.checkpoints) return;  // a signal ends such a run at once (start_controller)
  if (checkpoints_.signal || checkpoints_.next <= control_.step + 2) return;
  int signal = stop_signal();
  bool due =
      config_.checkpoint.every_seconds > 0 && seconds_since(checkpoints_.last) >= config_.checkpoint.every_seconds;
  if (comm_.size() > 1) {
    signal = static_cast<int>(comm_.max(signal));
    due = comm_.max(due ? 1.0 : 0.0) > 0;
  }
  if (!signal && !due) return;
  checkpoints_.signal = signal;
  checkpoints_.next = control_.step + 2;
  backend_->set_stop(t_stop_, step_stop());
}

// At a stop the host waits for the device, then: a fault ends the run, a checkpoint or a
// snapshot is written where one is due, and the controller is given the next stop.
bool Simulation::stop() {
  control_ = backend_->step_status(true);
  settle_steps_past_the_stop();
  if (control_.failed) report_fault();
  const bool last = control_.t >= config_.t_end || control_.step >= step_limit_;
  const bool snapshot_due = outputs_.periodic() && control_.t >= outputs_.next();
  const bool checkpoint_due = control_.step >= checkpoints_.next;
  if (last || snapshot_due || checkpoint_due) check_state_at_stop();
  if (checkpoint_due) checkpoint_at_stop();
  if (snapshot_due) {
    ++outputs_.done;
    const auto start = Clock::now();
    write_snapshot(control_.step, control_.t);
    output_s_ += seconds_since(start);  // files are not part of the loop's time
  }
  if (last) return true;
  t_stop_ = std::min(config_.t_end, outputs_.next());
  backend_->set_stop(t_stop_, step_stop());
  last_submit_ = Clock::now();  // a stop is not part of a step
  return false;
}

// Whether the step that reached the stop broke the state is known only from the next step's
// time step (its reduction of the signal rates): planned here, before the run ends or writes
// the state, a broken state ends the run with the last good state saved (report_fault), not
// with exit 0 and its NaNs in the final snapshot (the last step had no next step to say so).
// At a stop the plan moves nothing (a step past a stop does nothing); the step after plans
// again. Every rank plans (the rates' maximum over the ranks).
void Simulation::check_state_at_stop() {
  backend_->plan_step();
  control_ = backend_->planned_status();
  if (control_.failed) report_fault();
}

// One time step: the time step reduction, two RK stages (app/stages.cpp), and the owner
// model's copies around them. The first timed step is also traced: each call's start and
// end on its stream, from an idle device (so this one step does not overlap the one before).
void Simulation::step() {
  const bool trace = asked_ == kWarmupSteps;
  if (trace) {
    backend_->fence();
    check_the_end_is_reachable();
    timers_->start_trace();
    r_.traced_step = asked_;
  }
  PhaseTimers& timers = *timers_;
  if (backend_->moves_state_each_step()) {
    auto timer = timers.scope(phase::kStateUpload);
    backend_->upload_state();
  }
  {
    auto timer = timers.scope(phase::kDtReduction);
    backend_->plan_step();
  }
  rk_stage(*stages_, 1);
  rk_stage(*stages_, 2);
  if (backend_->moves_state_each_step()) {
    auto timer = timers.scope(phase::kStateDownload);
    backend_->download_state();
  }
  if (trace) timers.stop_trace();
  ++asked_;
  sample_step();
}

// A run with no step limit whose end is beyond kMostStepsToTheEnd steps of the flow's CFL step
// (cfl / rate, not the step shortened to land on an output time) would run for ever: a
// physics.cfl of 1e-300, a time.t_end of 1e300. Said once the first steps know the rate (the
// same on every rank: one line from rank 0), as bad input.
void Simulation::check_the_end_is_reachable() const {
  constexpr double kMostStepsToTheEnd = 1e12;
  if (step_limit_ != std::numeric_limits<long>::max() || !(control_.max_rate > 0) || !(control_.cfl > 0)) return;
  const double steps = (config_.t_end - control_.t) * control_.max_rate / control_.cfl;
  if (!(steps > kMostStepsToTheEnd)) return;
  const std::string why = "time.t_end = " + g6(config_.t_end) + " is about " + g6(steps) +
                          " steps away at t = " + g6(control_.t) +
                          " (each step about cfl / max signal rate = " + g6(control_.cfl / control_.max_rate) +
                          "); runs of more than " + g6(kMostStepsToTheEnd) +
                          " steps are refused: raise physics.cfl, lower time.t_end, or set time.max_steps (--steps)";
  throw AgreedExit(ExitStatus{2, "error: ", why, true, -1});  // every rank knows: rank 0 says it
}

// The timers leave out the first kWarmupSteps steps (caches, clocks, lazy set-up), as the
// report's step-time statistics do, and are measured now and then, so that their marks do
// not pile up over a long run. The host is at most one step ahead of the device, so in a
// steady loop the time between two submissions is one step of the device: these are the
// step times. The traced step began from an idle device (its fence), so it and the next one
// are not steady: the pipeline fills again, as in the first two steps. They are left out.
void Simulation::sample_step() {
  if (asked_ == kWarmupSteps) {
    timers_->restart({phase::kOutput, phase::kCheckpoint});  // files are timed from the start
    r_.timed_steps_from = asked_;
  } else if (asked_ % 256 == 0) {
    timers_->resolve();
  }
  const auto now = Clock::now();
  samples_.add(asked_, std::chrono::duration<double>(now - last_submit_).count());
  last_submit_ = now;
  progress_->update(control_.step, control_.t);
}

// Steps asked past the stop did nothing: their samples go, and the next two steps, which
// start from an idle device, give none (app/step_samples.hpp).
void Simulation::settle_steps_past_the_stop() { samples_.settle(asked_, control_.step - start_.step); }

}  // namespace simulation

}  // namespace halocline
