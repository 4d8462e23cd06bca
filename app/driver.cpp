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
// Simulation below.
#include "app/driver.hpp"

#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <exception>
#include <limits>
#include <memory>
#include <optional>

#include "app/bad_cells.hpp"
#include "app/checkpoints.hpp"
#include "app/comm.hpp"
#include "app/failures.hpp"
#include "app/phases.hpp"
#include "app/problems.hpp"
#include "app/progress.hpp"
#include "app/provenance.hpp"
#include "app/report.hpp"  // device_identity
#include "app/resources.hpp"
#include "app/select.hpp"
#include "app/signals.hpp"
#include "app/stages.hpp"
#include "app/step_samples.hpp"
#include "base/host_parallel.hpp"
#include "io/snapshot.hpp"
#include "kernels/totals.hpp"

namespace halocline {

namespace {

using Clock = std::chrono::steady_clock;

// A time or rate for a message, to 6 significant digits at any scale (std::to_string's fixed
// 6 decimals says 0.000000 for a rate of 1e-308 or a time of 1e-9).
std::string g6(double v) {
  char text[32];
  std::snprintf(text, sizeof text, "%.6g", v);
  return text;
}

// Why no time step came of a rate: a positive, finite rate fails only by making a step of
// kLargestTimeStep or more (kernels/step_control.hpp), cells too large for the flow's speeds.
std::string rate_failure(double max_rate, double cfl) {
  const std::string rate = "max signal rate " + g6(max_rate);
  if (!(max_rate > 0) || !std::isfinite(max_rate)) return rate;
  return rate + ": a step of cfl / rate = " + g6(cfl / max_rate) + ", " + g6(kLargestTimeStep) +
         " or more; the domain's cells are too large for its speeds";
}

double seconds_since(Clock::time_point t0) { return std::chrono::duration<double>(Clock::now() - t0).count(); }

// k * interval rounded to 15 significant digits: the output times a user wrote in decimal
// (3 * 0.05 is 0.15000000000000002 in binary; the snapshot should be at 0.15).
double decimal_time(double t) {
  char text[32];
  std::snprintf(text, sizeof text, "%.15g", t);
  return std::strtod(text, nullptr);
}

// What every snapshot of the run says about it (io/snapshot.hpp).
SnapshotMetadata snapshot_metadata(const Config& c, const Provenance& provenance, const std::string& series) {
  SnapshotMetadata m;
  m.single_precision = c.precision == Precision::FP32;
  m.problem = problem_name(c.problem);
  m.gamma = c.physics.gamma;
  m.layout = layout_name(c.layout);
  m.backend = backend_name(c.backend);
  m.deck_text = c.deck_text;
  m.series = series;
  m.provenance = provenance;
  return m;
}

std::array<bool, 3> periodic_directions(const Config& c) {
  std::array<bool, 3> periodic{};
  for (int d = 0; d < 3; ++d)
    periodic[d] = c.boundary[d][0] == Boundary::Periodic && c.boundary[d][1] == Boundary::Periodic;
  return periodic;
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
  void write_snapshot(long step, double time);
  std::vector<double> gather_state();
  Totals state_totals();
  [[noreturn]] void report_fault();
  void check_state_at_stop();
  void checkpoint_at_stop();
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

// ---- Set-up -------------------------------------------------------------------------------

Simulation::Simulation(const Config& config, const RunOptions& options, RunResult& r)
    : config_(config),
      options_(options),
      r_(r),
      laps_{r},
      comm_(config.n, config.ranks_grid, periodic_directions(config)),
      g_(grid_of(config, comm_.grid().dims.data(), comm_.grid().coords.data())) {
  r_.grid = grid_of(config);            // the whole domain
  ranks_on_node() = comm_.node_size();  // they share the node's cores in host passes
  r_.rank = comm_.rank();
  r_.ranks = comm_.size();
  r_.ranks_grid = comm_.grid().dims;
  set_up_backend();
  laps_("backend");  // MPI grid, halo set-up, the backend's allocations
  set_up_state();
  set_up_outputs();
  start_controller();
  write_first_snapshot();
  laps_("before_loop");  // snapshot writer, the first snapshot, the warm-up exchange
  progress_ = std::make_unique<ProgressLine>(options.progress && comm_.root(), config.t_end, config.max_steps);
  loop_start_ = last_submit_ = Clock::now();
}

// Each set-up step that may fail on one rank alone (the backend's memory, a file that one
// node cannot read) is agreed by every rank (app/failures.hpp): all end together.
void Simulation::set_up_backend() {
  agreed([&] {
    // Memory first, counted before any allocation, for the ranks that share this node.
    check_memory(config_, comm_.grid().dims, !runs_on_gpu(config_.backend), comm_.node_size(), comm_.node_has_root());
    r_.host_bytes_planned = static_cast<double>(
        plan_memory(config_, comm_.grid().dims, !runs_on_gpu(config_.backend), comm_.node_size(), comm_.node_has_root())
            .host_bytes());
    halo_ = choose_halo(config_, comm_, g_);  // app/select.cpp
    BoundaryFaces faces = boundary_of(config_);
    for (int d = 0; d < 3; ++d)
      for (int side = 0; side < 2; ++side)
        if (halo_.exchanged[d][side]) faces.face[d][side] = Boundary::Exchanged;
    try {
      backend_ = make_backend(config_, g_, faces, comm_.node_rank(), comm_.grid().dims);
    } catch (const ResourceError& e) {
      if (e.device_free == 0) throw;
      throw ResourceError(device_refusal(e.what(), config_, comm_.grid().dims, comm_.node_size(), comm_.node_has_root(),
                                         e.device_free));
    }
    // A fused stage whose tile fits nothing on this device is refused here, before any step.
    if (backend_->kernels() == KernelStrategy::Fused) r_.fused_shape = backend_->fused_shape();
  });
  r_.halo = halo_.strategy;
  r_.kernels = backend_->kernels();
  backend_->configure_halo(halo_);
  if (comm_.size() > 1) backend_->set_global_max([this](double x) { return comm_.max(x); });
  r_.backend_description = backend_->description();
  r_.device_bytes = backend_->bytes_allocated();
  r_.device = backend_->device_info();
  Provenance provenance = options_.provenance;
  add_device(provenance, r_.device);
  r_.provenance = rank0_provenance(comm_, provenance);
  clock_ = backend_->make_clock(Stream::Compute);
  halo_clock_ = backend_->make_clock(Stream::Halo);
  timers_ = std::make_unique<PhaseTimers>(*clock_);
  // The exchange's clock reads the halo stream, which is the compute stream unless the
  // strategy overlaps.
  timers_->name_clock(*halo_clock_, halo_.strategy == HaloStrategy::Overlap ? "halo" : "compute");
  stages_ = std::make_unique<Stages>(make_stages(*backend_, comm_, *timers_, *halo_clock_, halo_, g_));
}

// The state on this rank: the deck's initial state, made by the backend where the state
// lives (kernels/initial_state.hpp), or a checkpoint's (--restart), copied in; the initial
// totals from the backend's state, so that an fp32 run measures drift from its own rounded
// start. The host keeps no copy.
void Simulation::set_up_state() {
  const bool restart = !config_.restart_path.empty();
  agreed([&] {
    if (!restart) backend_->make_initial_state(initial_condition_of(config_, g_));  // app/problems.cpp
  });
  laps_("initial_state");
  if (restart) start_ = load_restart(config_, comm_, g_, *backend_);
  // A fresh run's series (CheckpointHeader::series), in every snapshot and checkpoint it writes;
  // a restart's came with its checkpoint.
  if (!restart) start_.series = comm_.broadcast(comm_.root() ? new_series() : std::string());
  r_.initial = state_totals();
  laps_("upload");  // a restart's state read into the backend and checked; the initial totals
}

// The conservation totals of u0 over every rank (kernels/totals.hpp): the same bits for any
// layout, rank count, process grid and backend, and as conserved_totals() makes them on the
// host. Two passes where the state lives, and two small allreduces.
Totals Simulation::state_totals() {
  MaxAbs most = backend_->max_abs_part();
  comm_.max_in_place(most.v, kNumVars);
  const TotalsScale scale = totals_scale(most, r_.grid.ninterior);
  FixedSums sums = backend_->fixed_sums_part(scale);
  carry(sums);  // so that the ranks' sums add without overflow
  comm_.sum_mod64_in_place(reinterpret_cast<std::uint64_t*>(&sums), 2 * kTotalsSums);
  return fixed_point_totals(sums, scale, g_.dx[0] * g_.dx[1] * g_.dx[2]);
}

// Snapshots: with several ranks and a parallel HDF5 every rank writes its block of one
// shared file; otherwise rank 0 gathers the state and writes alone. A restarted run goes on
// with the numbering of output times, beside the snapshots before its checkpoint.
void Simulation::set_up_outputs() {
  collective_ = comm_.size() > 1 && config_.output_collective && SnapshotWriter::collective_available();
  r_.output_mode = collective_ ? "collective" : comm_.size() > 1 ? "gather" : "serial";
  const bool restart = !config_.restart_path.empty();
  outputs_.interval = options_.write_output ? config_.output_interval : 0.0;
  const SnapshotPart part{g_, comm_.mpi_comm(), comm_.root()};
  // The writer is agreed, as the first snapshot is (write_first_snapshot): rank 0 may fail to
  // write it after the gather that every rank took part in.
  agreed([&] {
    if ((comm_.root() || collective_) && options_.write_output && (outputs_.periodic() || config_.output_final))
      writer_ = std::make_unique<SnapshotWriter>(config_.out_dir, r_.grid,
                                                 snapshot_metadata(config_, r_.provenance, start_.series), "snapshot",
                                                 collective_ ? &part : nullptr);
  });
  while (restart && outputs_.periodic() && outputs_.next() <= start_.time) ++outputs_.done;
  if (!restart) return;
  // The first free index: after the output times passed, and after every snapshot up to the
  // restart's time (the final one of the run it continues lies between output times, or is
  // snapshot 0 where there are none), as rank 0 sees the directory.
  const int passed = outputs_.periodic() ? static_cast<int>(outputs_.done) + 1 : 0;
  const int found = comm_.root() && writer_ ? writer_->index_after(start_.time) : 0;
  snapshot_index_ = std::max(passed, std::stoi(comm_.broadcast(std::to_string(found))));
  // Rank 0's alone: it writes the series and says what a restart left out or replaced.
  if (writer_ && comm_.root()) writer_->continue_series(snapshot_index_, start_.time);
}

// The controller starts at the restart point (or 0), stopping at the first output time,
// the step limit or the first checkpoint; then one exchange before the clock starts, timed
// apart and dropped: MPI sets up its connections and the staging buffers are touched once,
// so the first step does not carry that one-off cost.
void Simulation::start_controller() {
  if (config_.max_steps > 0) step_limit_ = config_.max_steps;
  if (options_.checkpoints) {
    checkpoints_.every = config_.checkpoint.every_steps;
    checkpoints_.next = checkpoints_.after(start_.step);
    install_stop_signals();
  } else {
    // A signal ends the run at once, with nothing saved; one recorded before (a command's
    // handlers, in before this run's) ends it here.
    if (const int signal = stop_signal()) throw Interrupted(signal, start_.step, "");
    install_start_signals();
  }
  t_stop_ = std::min(config_.t_end, outputs_.next());
  control_.cfl = config_.physics.cfl;
  control_.t = start_.time;
  control_.step = start_.step;
  control_.t_stop = t_stop_;
  control_.step_limit = step_stop();
  backend_->reset_control(control_);
  if (halo_.strategy == HaloStrategy::None) return;
  PhaseTimers setup_timers(*clock_);
  Stages warmup = *stages_;
  warmup.timers = &setup_timers;
  fill_ghosts(warmup, Slot::U0, "setup.");
  backend_->fence();
  setup_timers.resolve();
}

// A fresh run's snapshot 0, of an initial state checked first: one that cannot make its first
// step is refused (exit code 2, report_fault) and never written (a snapshot of NaNs was left
// beside the refusal).
void Simulation::write_first_snapshot() {
  if (!outputs_.periodic() || !config_.restart_path.empty()) return;
  check_state_at_stop();
  agreed([&] { write_snapshot(0, 0.0); });
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

// ---- Output, checkpoints, faults --------------------------------------------------------------

// Every rank takes part: its state goes to the file slab by slab (Backend::read_state), as
// primitives, into its own block of one shared file (collective) or through rank 0, which
// writes alone (Comm::funnel). The host holds the file's bytes and a few slabs, never another
// copy of the state. Rank 0 writes the series.
void Simulation::write_snapshot(long step, double time) {
  last_snapshot_step_ = step;
  auto t = timers_->host_scope(phase::kOutput);
  std::vector<double> prim;
  auto primitives_of = [&](const StateSlab& slab) {
    const std::size_t cells = slab.block.cells();
    prim.resize(kNumVars * cells);
    primitives(slab.values, cells, config_.physics.gamma, prim.data());
    return prim.data();
  };
  std::optional<SnapshotFile> file;
  const auto finish_file = [&] {
    const SnapshotInfo info = writer_->finish(*file, step, time);
    writer_->write_series();
    if (comm_.root()) r_.snapshots.push_back(info.xmf_path);
  };
  if (collective_) {
    // Every rank writes its block of one file in collective calls, so a failure on any rank is
    // every rank's (agreed here, and on each write by the snapshot's own steps): none waits in
    // a collective call that another has left.
    agreed([&] {
      file.emplace(writer_->begin(snapshot_index_++));
      backend_->read_state([&](const StateSlab& slab) { file->write_block(slab.block, primitives_of(slab)); });
    });
    agreed(finish_file);
    return;
  }
  // Rank 0 takes part in the funnel even when its file could not be begun, so that no rank
  // waits for ever; it says why afterwards.
  std::exception_ptr failed;
  try {
    if (writer_) file.emplace(writer_->begin(snapshot_index_++));
  } catch (...) {
    failed = std::current_exception();
  }
  comm_.funnel(
      [&](const Comm::BlockSink& give) {
        backend_->read_state([&](const StateSlab& slab) { give(slab.block, primitives_of(slab)); });
      },
      [&](const CellBlock& block, const double* values) {
        if (file) file->write_block(block, values);
      });
  if (failed) std::rethrow_exception(failed);
  if (writer_) finish_file();  // gathered: rank 0 writes
}

// The whole state on rank 0 (empty elsewhere), canonical: for a caller that keeps the final
// state (verify, tests) and the message of a numerical failure.
std::vector<double> Simulation::gather_state() {
  std::vector<double> whole(comm_.root() ? kNumVars * r_.grid.ninterior : 0);
  comm_.funnel(
      [&](const Comm::BlockSink& give) {
        backend_->read_state([&](const StateSlab& slab) { give(slab.block, slab.values); });
      },
      [&](const CellBlock& block, const double* values) {
        place_block(block, values, block_of(r_.grid), whole.data());
      });
  return whole;
}

// The state was checked first (check_state_at_stop): a broken state is never saved. A
// checkpoint that cannot be written ends the run (exit code 4), unless a signal asked for it:
// the signal is still the news.
void Simulation::checkpoint_at_stop() {
  auto t = timers_->host_scope(phase::kCheckpoint);
  std::string path;
  try {
    path = save_checkpoint(config_, comm_, r_.provenance, start_.series, control_.step, control_.t, *backend_);
  } catch (const std::exception& e) {
    if (checkpoints_.signal) throw Interrupted(checkpoints_.signal, control_.step, "", e.what());
    throw AgreedExit(ExitStatus{4, "error: ", e.what(), true, -1});  // every rank knows
  }
  if (!path.empty()) r_.checkpoints.push_back(path);
  checkpoints_.written(control_.step);
  if (checkpoints_.signal && !path.empty()) throw Interrupted(checkpoints_.signal, control_.step, path);
}

// Says where the state broke (rank 0 looks through the whole state and tells every rank)
// and saves the state it was made from, intact in the backend (the steps after the fault
// did nothing), as a checkpoint to restart from, e.g. with a smaller CFL number.
void Simulation::report_fault() {
  backend_->select_after_fault(AfterFault::Broken);
  std::string where;
  {  // the whole state, gone again before the checkpoint's file is built
    const std::vector<double> whole = gather_state();
    where = comm_.root() ? describe_bad_cell(whole, r_.grid, config_.physics.gamma) : std::string();
  }
  where = comm_.broadcast(where);
  const std::string failure = "step " + std::to_string(control_.step) + ", t = " + g6(control_.t) +
                              ": no valid time step (" + rate_failure(control_.max_rate, control_.cfl) + "); " + where;
  // No step of this run was made: what it was given cannot be run (a gamma, states or cells
  // the deck's rules let through, or a checkpoint's state under this deck), so it is bad input
  // (exit code 2, said once), not a run that broke.
  if (control_.step == start_.step)
    throw AgreedExit(ExitStatus{2, "error: ",
                                (config_.restart_path.empty() ? "the deck's initial state" : "the checkpoint's state") +
                                    std::string(" cannot be run: ") + failure,
                                true, -1});
  std::string saved = "this run saves no checkpoints";
  if (options_.checkpoints) {
    backend_->select_after_fault(AfterFault::LastGood);
    const std::string good =
        "the last good state (step " + std::to_string(control_.step - 1) + ", t = " + g6(control_.t_before) + ")";
    try {  // the fault is the news; a checkpoint that cannot be written is said with it
      const std::string path = save_checkpoint(config_, comm_, r_.provenance, start_.series, control_.step - 1,
                                               control_.t_before, *backend_);
      saved =
          good + (path.empty() ? " is not saved: it has a cell that is not physical either" : " is saved in " + path);
    } catch (const std::exception& e) {
      saved = good + " could not be saved: " + e.what();
    }
  }
  throw NumericalError(failure + "; " + saved);
}

// ---- Finish ------------------------------------------------------------------------------------

// The slowest rank's loop is the run's; the state is copied from the backend and gathered
// once for the final snapshot and the diagnostics; the timers are reduced over the ranks.
void Simulation::finish() {
  progress_->update(control_.step, control_.t, true);
  const double loop_s = comm_.max(seconds_since(loop_start_) - output_s_);
  const long step = control_.step;
  const double t = control_.t;
  laps_.start = Clock::now();
  // The checksum and the totals where the state lives (kernels/checksum.hpp, totals.hpp);
  // the state comes to the host only for a final snapshot or when the caller keeps it.
  r_.checksum = state_checksum(comm_, *backend_);
  r_.final = state_totals();
  if (options_.write_output && config_.output_final && last_snapshot_step_ != step) write_snapshot(step, t);
  // Snapshots numbered after this run's last, and those of the run it continues past its
  // checkpoint, are an earlier run's in the same directory: its series file lists only this
  // run's (the caller says so, of each apart).
  if (comm_.root() && writer_) {
    r_.snapshots_past_restart = writer_->later_snapshots();
    if (snapshot_index_ > 0) r_.earlier_snapshots = writer_->snapshots_after(snapshot_index_ - 1);
    r_.snapshots_replaced = writer_->replaced_snapshots();
  }
  settle_steps_past_the_stop();
  r_.step_times = samples_.times();
  r_.steps = step;
  r_.first_step = start_.step;
  r_.first_time = start_.time;
  r_.restart_changes = start_.changes;
  r_.steps_submitted = asked_;
  r_.timed_steps = asked_ - r_.timed_steps_from;
  r_.sim_time = t;
  r_.loop_s = loop_s;
  r_.loop_cell_updates_per_s =
      loop_s > 0 ? static_cast<double>(r_.grid.ninterior) * (step - start_.step) / loop_s : 0.0;
  if (options_.keep_final_state) r_.final_state = gather_state();
  laps_("final_state");  // checksum, totals, and where asked the copy, the gather, the snapshot
  reduce_timers();
  r_.devices_over_ranks = comm_.gather(device_identity(r_.device));
  r_.transfers = backend_->transfers();
  laps_("timers");
}

// Every rank times the same phases in the same order: each is reduced over the ranks.
void Simulation::reduce_timers() {
  timers_->resolve();
  r_.timers = timers_->phases();
  r_.timeline = timers_->trace();
  std::vector<double> totals;
  for (const PhaseStats& p : r_.timers) totals.push_back(p.total_s);
  comm_.min_max_mean(totals, r_.timers_min_s, r_.timers_max_s, r_.timers_mean_s);
}

}  // namespace

// The run, top to bottom: set-up; then the loop asks the backend for steps until the
// controller reports a stop (the end time, the step limit, an output time, a checkpoint).
// The backend makes each dt where its state is; the host learns t and step from the
// status, possibly a step late (a step asked for past a stop does nothing), and only waits
// for the device at a stop.
RunResult run_simulation(const Config& config, const RunOptions& options) {
  const auto t_start = Clock::now();
  RunResult r;
  Simulation run(config, options, r);
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

}  // namespace halocline
