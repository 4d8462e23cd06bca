// The set-up of a run (app/simulation.hpp): the backend and its timers, the state, the
// snapshot writer, the controller and snapshot 0. What the loop then does: app/driver.cpp.
#include <algorithm>
#include <cstdint>
#include <string>

#include "app/failures.hpp"
#include "app/problems.hpp"
#include "app/provenance.hpp"
#include "app/resources.hpp"
#include "app/signals.hpp"
#include "app/simulation.hpp"
#include "base/host_parallel.hpp"

namespace halocline::simulation {

namespace {

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

}  // namespace

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
    // The choices this binary cannot run here first, then memory, counted before any
    // allocation, for the ranks that share this node.
    check_backend_choices(config_);  // app/select.cpp
    check_memory(config_, comm_.grid().dims, !runs_on_gpu(config_.backend), comm_.node_size(), comm_.node_has_root());
    const MemoryPlan plan = plan_memory(config_, comm_.grid().dims, !runs_on_gpu(config_.backend), comm_.node_size(),
                                        comm_.node_has_root());
    r_.host_bytes_planned = static_cast<double>(plan.host_bytes());
    r_.host_bytes_planned_largest_process = static_cast<double>(plan.largest_process_bytes);
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
    // The exchange's buffers, checked against the memory left (refused, exit code 2, on every
    // rank where one rank's do not fit: a failed allocation there was one rank's exit 1).
    backend_->configure_halo(halo_);
  });
  r_.halo = halo_.strategy;
  r_.kernels = backend_->kernels();
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
  // Rank 0's alone: it reads the directory once, writes the series and says what a restart
  // left out or replaced.
  const int passed = outputs_.periodic() ? static_cast<int>(outputs_.done) + 1 : 0;
  const int first = comm_.root() && writer_ ? writer_->continue_series(passed, start_.time) : passed;
  snapshot_index_ = std::stoi(comm_.broadcast(std::to_string(first)));
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

}  // namespace halocline::simulation
