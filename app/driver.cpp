// The time loop. This file is where every timer starts and stops: each backend call of a
// step sits inside one PhaseTimers scope, named after the phase:
//   dt_reduction              max signal speed -> time step (an MPI allreduce with ranks)
//   stageN.ghost_fill         boundary conditions (the faces without a neighbour)
//   stageN.pack               halo exchange (faces with a neighbour): messages packed,
//   stageN.d2h                copied to the host staging buffers,
//   stageN.mpi                sent and received (host time),
//   stageN.h2d                copied back to the device,
//   stageN.unpack             and unpacked into the ghosts
//   stageN.reconstruct_flux   MUSCL + Riemann fluxes of every cell (halo none/sync/gpu-aware)
//   stageN.update             conservative update of every cell
//   stageN.interior           halo overlap: fluxes + update of the cells that read no ghost,
//                             while the exchange runs on the halo stream
//   stageN.boundary           halo overlap: fluxes + update of the shell, once ghosts landed
//   state_upload/_download    the host owner model's per-step copies
//   output                    snapshot (device-to-host copy + HDF5/XDMF)
//   checkpoint                the state gathered and written for a restart (host)
// Exchange phases are timed on the halo stream's clock, the others on the compute
// stream's; the MPI phase and output on the host.
#include "app/driver.hpp"

#include <chrono>
#include <cmath>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <future>
#include <limits>
#include <memory>

#include <unistd.h>  // gethostname

#include "app/checkpoints.hpp"
#include "app/comm.hpp"
#include "app/failures.hpp"
#include "app/problems.hpp"
#include "app/progress.hpp"
#include "app/signals.hpp"
#include "app/select.hpp"
#include "io/deck.hpp"
#include "io/snapshot.hpp"
#include "kernels/host_parallel.hpp"

namespace halocline {

namespace {

// The device this rank runs on, as the report lists it per rank: the host's name and the
// GPU's PCI bus (or, on a CPU backend, the CPU's name).
std::string device_identity(const DeviceInfo& d) {
  char host[256] = {};
  gethostname(host, sizeof host - 1);
  return std::string(host) + " " + (d.pci_bus_id.empty() ? d.kind + " " + d.name : d.pci_bus_id);
}

// Where a state stops being physical: the first cell, in index order, with a non-finite
// value or a non-positive density or pressure; n when there is none.
std::size_t first_bad_cell(const std::vector<double>& s, std::size_t n, double gamma) {
  for (std::size_t c = 0; c < n; ++c) {
    const double rho = s[c], e = s[4 * n + c];
    const double m2 = s[n + c] * s[n + c] + s[2 * n + c] * s[2 * n + c] + s[3 * n + c] * s[3 * n + c];
    const double p = (gamma - 1) * (e - 0.5 * m2 / rho);
    bool finite = true;
    for (int var = 0; var < kNumVars; ++var) finite = finite && std::isfinite(s[var * n + c]);
    if (!(finite && rho > 0 && p > 0)) return c;
  }
  return n;
}

// The first bad cell of the whole state `s` in global indices, with its primitive values.
std::string describe_bad_cell(const std::vector<double>& s, const Grid& g, double gamma) {
  const std::size_t n = g.ninterior, c = first_bad_cell(s, n, gamma);
  if (c == n) return "every cell is finite with positive density and pressure, but the signal rate is not";
  const double rho = s[c], e = s[4 * n + c];
  const double u = s[n + c] / rho, v = s[2 * n + c] / rho, w = s[3 * n + c] / rho;
  const double p = (gamma - 1) * (e - 0.5 * rho * (u * u + v * v + w * w));
  const std::size_t i = c % g.n[0], j = c / g.n[0] % g.n[1], k = c / g.n[0] / g.n[1];
  char text[256];
  std::snprintf(text, sizeof text,
                "first bad cell (i, j, k) = (%zu, %zu, %zu) of the whole grid: rho = %.6g, "
                "u = %.6g, v = %.6g, w = %.6g, p = %.6g",
                i, j, k, rho, u, v, w, p);
  return text;
}

double seconds_since(std::chrono::steady_clock::time_point t0) {
  return std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
}

// k * interval rounded to 15 significant digits: the output times a user wrote in decimal
// (3 * 0.05 is 0.15000000000000002 in binary; the snapshot should be at 0.15).
double decimal_time(double t) {
  char text[32];
  std::snprintf(text, sizeof text, "%.15g", t);
  return std::strtod(text, nullptr);
}

// What a stage needs besides the backend: the ranks, the timers, and the cell regions.
struct Stages {
  Backend& backend;
  const Comm& comm;
  PhaseTimers* timers;
  PhaseClock& halo_clock;  // the halo stream's (the compute stream's unless overlapping)
  HaloSetup halo;
  Grid grid;
  CellBox all, inner, shell[6];  // every interior cell; for overlap, inner + shell = all
};

// Fills the ghosts of `slot` direction by direction (x, then y including the x ghosts, then
// z), each face from its neighbour through the halo exchange or from its boundary condition.
void fill_ghosts(Stages& s, Slot slot, const std::string& prefix) {
  Backend& b = s.backend;
  for (int d = 0; d < 3; ++d) {
    if (!s.grid.active(d)) continue;
    if (s.halo.any(d)) {
      {
        auto t = s.timers->scope(prefix + "pack", s.halo_clock);
        b.pack_halo(d, slot);
      }
      if (s.halo.staged()) {
        auto t = s.timers->scope(prefix + "d2h", s.halo_clock);
        b.halo_to_host(d);
      }
      b.wait_halo_sent(d);  // MPI reads the messages: they must be there
      {
        auto t = s.timers->host_scope(prefix + "mpi");
        s.comm.exchange(d, b.halo_messages(d));
      }
      if (s.halo.staged()) {
        auto t = s.timers->scope(prefix + "h2d", s.halo_clock);
        b.halo_to_device(d);
      }
      {
        auto t = s.timers->scope(prefix + "unpack", s.halo_clock);
        b.unpack_halo(d, slot);
      }
    }
    auto t = s.timers->scope(prefix + "ghost_fill", s.halo_clock);
    b.fill_boundary(d, slot);
  }
}

// Fluxes of every active direction, then the update, over the cells of `boxes`.
void compute_cells(Stages& s, Slot input, int stage, const CellBox* boxes, int count) {
  for (int i = 0; i < count; ++i)
    for (int d = 0; d < 3; ++d)
      if (s.grid.active(d)) s.backend.compute_fluxes(d, input, boxes[i]);
  for (int i = 0; i < count; ++i) s.backend.update(stage, boxes[i]);
}

// One SSP-RK2 stage: stage 1 reads u0 and writes u1, stage 2 reads u1 (and u0) and writes
// the new state into a third array; finish_step() makes that array u0 (kernels/contract/backend.hpp).
void rk_stage(Stages& s, int stage) {
  Backend& b = s.backend;
  const Slot input = stage == 1 ? Slot::U0 : Slot::U1;
  const std::string prefix = "stage" + std::to_string(stage) + ".";
  if (s.halo.strategy == HaloStrategy::Overlap) {
    // The interior is submitted first and computes while the host drives the exchange;
    // the shell waits on the device (end_halo) until the ghosts have landed.
    b.begin_halo();
    {
      auto t = s.timers->scope(prefix + "interior");
      compute_cells(s, input, stage, &s.inner, 1);
    }
    fill_ghosts(s, input, prefix);
    b.end_halo();
    auto t = s.timers->scope(prefix + "boundary");
    compute_cells(s, input, stage, s.shell, 6);
    if (stage == 2) b.finish_step();  // t += dt, step += 1: part of the last update
    return;
  }
  fill_ghosts(s, input, prefix);
  {
    auto t = s.timers->scope(prefix + "reconstruct_flux");
    for (int d = 0; d < 3; ++d)
      if (s.grid.active(d)) b.compute_fluxes(d, input, s.all);
  }
  auto t = s.timers->scope(prefix + "update");
  b.update(stage, s.all);
  if (stage == 2) b.finish_step();
}

}  // namespace

RunResult run_simulation(const Config& config, const RunOptions& options) {
  const auto t_start = std::chrono::steady_clock::now();
  RunResult r;
  // Where the time outside the step loop goes (the report's outside_loop_s): each lap is
  // the host time since the one before.
  auto lap_start = t_start;
  auto lap = [&](const char* what) {
    const auto now = std::chrono::steady_clock::now();
    r.outside_loop.emplace_back(what, std::chrono::duration<double>(now - lap_start).count());
    lap_start = now;
  };
  r.grid = grid_of(config);  // the whole domain
  std::array<bool, 3> periodic{};
  for (int d = 0; d < 3; ++d)
    periodic[d] = config.boundary[d][0] == Boundary::Periodic &&
                  config.boundary[d][1] == Boundary::Periodic;
  const Comm comm(config.n, config.ranks_grid, periodic);
  ranks_on_node() = comm.node_size();  // they share the node's cores in host passes
  const ProcessGrid& pg = comm.grid();
  const Grid g = grid_of(config, pg.dims.data(), pg.coords.data());  // this rank's part
  r.rank = comm.rank();
  r.ranks = comm.size();
  r.ranks_grid = pg.dims;
  // Each set-up step that may fail on one rank alone (the backend's memory, a file that one
  // node cannot read) is agreed by every rank (app/failures.hpp): all end together.
  HaloSetup halo;
  std::unique_ptr<Backend> backend;
  agreed([&] {
    halo = choose_halo(config, comm, g);  // app/select.cpp
    BoundaryFaces faces = boundary_of(config);
    for (int d = 0; d < 3; ++d)
      for (int side = 0; side < 2; ++side)
        if (halo.exchanged[d][side]) faces.face[d][side] = Boundary::Exchanged;
    backend = make_backend(config, g, faces, comm.node_rank());
  });
  r.halo = halo.strategy;
  backend->configure_halo(halo);
  if (comm.size() > 1) backend->set_global_max([&comm](double x) { return comm.max(x); });
  r.backend_description = backend->description();
  r.device_bytes = backend->bytes_allocated();
  r.device = backend->device_info();
  lap("backend");  // MPI grid, halo set-up, the backend's allocations
  std::unique_ptr<PhaseClock> clock = backend->make_clock(Stream::Compute);
  std::unique_ptr<PhaseClock> halo_clock = backend->make_clock(Stream::Halo);
  PhaseTimers timers(*clock);
  // The exchange's clock reads the halo stream, which is the compute stream unless the
  // strategy overlaps.
  timers.name_clock(*halo_clock, halo.strategy == HaloStrategy::Overlap ? "halo" : "compute");
  Stages stages{*backend, comm, &timers, *halo_clock, halo, g, interior_cells(g), {}, {}};
  split_for_overlap(g, stages.inner, stages.shell);

  // The state on this rank, and the whole state gathered on rank 0 (empty elsewhere):
  // the deck's initial state, or a checkpoint's (--restart).
  const bool restart = !config.restart_path.empty();
  RestartPoint start;
  if (restart) start = load_restart(config, comm, g, r.grid);
  std::vector<double> state;
  agreed([&] { state = restart ? std::move(start.state) : initial_state(config, g); });
  lap("initial_state");
  backend->set_state(state);
  // The initial totals are taken from the backend's copy, so that an fp32 run measures
  // drift from its own rounded start.
  backend->get_state(state, Purpose::Setup);
  std::vector<double> whole = comm.gather(state, g, r.grid);
  if (comm.root()) r.initial = conserved_totals(whole, r.grid);
  lap("upload");  // the state into the backend, back, gathered, its totals

  // Snapshots: with several ranks and a parallel HDF5 every rank writes its block of one
  // shared file; otherwise rank 0 gathers the state and writes alone.
  const bool collective = comm.size() > 1 && config.output_collective &&
                          SnapshotWriter::collective_available();
  r.output_mode = collective ? "collective" : comm.size() > 1 ? "gather" : "serial";
  std::unique_ptr<SnapshotWriter> writer;
  int snapshot_index = 0;
  long last_snapshot_step = -1;
  bool whole_is_current = false;  // `whole` was gathered from the latest `state`
  // `fetch` = false: `state` already holds the backend's current state.
  auto write_snapshot = [&](long step, double time, bool fetch = true) {
    last_snapshot_step = step;
    auto t = timers.host_scope("output");
    if (fetch) backend->get_state(state);
    const double gamma = config.physics.gamma;
    SnapshotInfo info;
    whole_is_current = false;
    if (collective) {
      info = writer->write(snapshot_index++, step, time, primitives(state, g.ninterior, gamma));
    } else {
      whole = comm.gather(state, g, r.grid);
      whole_is_current = true;
      if (!comm.root()) return;
      info = writer->write(snapshot_index++, step, time, primitives(whole, r.grid.ninterior, gamma));
    }
    writer->write_series();
    if (comm.root()) r.snapshots.push_back(info.xmf_path);
  };
  const bool periodic_output = options.write_output && config.output_interval > 0;
  const SnapshotPart part{g, comm.mpi_comm(), comm.root()};
  // The first snapshot is agreed too: rank 0 may fail to write it after the gather that
  // every rank took part in.
  agreed([&] {
    if ((comm.root() || collective) && options.write_output && (periodic_output || config.output_final))
      writer = std::make_unique<SnapshotWriter>(config.out_dir, r.grid, config.precision == Precision::FP32,
                                                "snapshot", collective ? &part : nullptr);
  });
  agreed([&] {
    if (periodic_output && !restart) write_snapshot(0, 0.0);
  });

  // The loop asks the backend for steps until the controller reports a stop: the end
  // time, the step limit, or an output time. The backend makes each dt where its state is;
  // the host learns t and step from step_status(), possibly a step late (a step asked for
  // past a stop does nothing), and only waits for the device at a stop.
  const long step_limit = config.max_steps > 0 ? config.max_steps : std::numeric_limits<long>::max();
  long outputs_done = 0;  // periodic snapshots written after t = 0
  auto next_output = [&] {
    return periodic_output ? decimal_time((outputs_done + 1) * config.output_interval)
                           : std::numeric_limits<double>::infinity();
  };
  // A restarted run has written the snapshots up to its checkpoint's time already.
  while (restart && periodic_output && next_output() <= start.time) ++outputs_done;
  if (restart && periodic_output) {
    // Its snapshots go on with the numbering of output times (snapshot k at t = k *
    // interval), beside the ones before the checkpoint, which stay in the series.
    snapshot_index = static_cast<int>(outputs_done) + 1;
    if (writer) writer->continue_series(snapshot_index);
  }
  // Checkpoints: every N steps (a step stop of the controller, which leaves dt alone), and
  // on request (wall time, SIGINT/SIGTERM) at the next step the device has not begun.
  const long every = config.checkpoint.every_steps;
  auto after = [&](long step) {
    return every > 0 ? (step / every + 1) * every : std::numeric_limits<long>::max();
  };
  long next_checkpoint = after(start.step);
  auto step_stop = [&] { return std::min(step_limit, next_checkpoint); };
  auto last_checkpoint = std::chrono::steady_clock::now();
  int interrupted = 0;  // the signal that ends the run once its checkpoint is written
  install_stop_signals();

  double t_stop = std::min(config.t_end, next_output());
  StepControl control;
  control.cfl = config.physics.cfl;
  control.t = start.time;
  control.step = start.step;
  control.t_stop = t_stop;
  control.step_limit = step_stop();
  backend->reset_control(control);
  if (halo.strategy != HaloStrategy::None) {
    // One exchange before the clock starts, timed apart and dropped: MPI sets up its
    // connections and the staging buffers are touched once, so the first step does not
    // carry that one-off cost.
    PhaseTimers setup_timers(*clock);
    Stages warmup = stages;
    warmup.timers = &setup_timers;
    fill_ghosts(warmup, Slot::U0, "setup.");
    backend->fence();
    setup_timers.resolve();
  }

  lap("before_loop");  // snapshot writer, the first snapshot, the warm-up exchange
  double output_s = 0;
  long asked = 0;  // steps asked of the backend
  struct Snapshot {
    long step;
    double t;
  } pending{-1, 0.0};  // a snapshot whose copy has started, to be written after the next step is asked
  const auto loop_start = std::chrono::steady_clock::now();
  auto last_submit = loop_start;
  ProgressLine progress(options.progress && comm.root(), config.t_end, config.max_steps);
  for (;;) {
    control = backend->step_status(false);
    if (!interrupted && next_checkpoint > control.step + 2) {
      // Asked for a checkpoint now? All ranks agree, so that all stop at the same step.
      int signal = stop_signal();
      bool due = config.checkpoint.every_seconds > 0 &&
                 seconds_since(last_checkpoint) >= config.checkpoint.every_seconds;
      if (comm.size() > 1) {
        signal = static_cast<int>(comm.max(signal));
        due = comm.max(due ? 1.0 : 0.0) > 0;
      }
      if (signal || due) {
        interrupted = signal;
        // The status may be a step late: step + 1 may be on the device already.
        next_checkpoint = control.step + 2;
        backend->set_stop(t_stop, step_stop());
      }
    }
    if (control.failed || control.t >= t_stop || control.step >= step_stop()) {
      control = backend->step_status(true);
      if (control.failed) {
        // Say where: rank 0 looks through the whole state and tells every rank.
        backend->select_after_fault(AfterFault::Broken);
        backend->get_state(state, Purpose::Output);
        whole = comm.gather(state, g, r.grid);
        const std::string where = comm.broadcast(
            comm.root() ? describe_bad_cell(whole, r.grid, config.physics.gamma) : std::string());
        // The state the broken one was made from is intact in the backend (the steps after
        // the fault did nothing): it is saved as a checkpoint to restart from, e.g. with a
        // smaller CFL number.
        std::string saved = "there is no earlier state of this run to save";
        if (control.step > start.step) {
          backend->select_after_fault(AfterFault::LastGood);
          backend->get_state(state, Purpose::Output);
          const std::string good = "the last good state (step " + std::to_string(control.step - 1) + ", t = " +
                                   std::to_string(control.t_before) + ")";
          try {  // the fault is the news; a checkpoint that cannot be written is said with it
            saved = good + " is saved in " +
                    save_checkpoint(config, comm, control.step - 1, control.t_before, state, g, r.grid);
          } catch (const std::exception& e) {
            saved = good + " could not be saved: " + e.what();
          }
        }
        throw NumericalError("step " + std::to_string(control.step) + ", t = " +
                             std::to_string(control.t) + ": no valid time step (max signal rate " +
                             std::to_string(control.max_rate) + "); " + where + "; " + saved);
      }
      const bool last = control.t >= config.t_end || control.step >= step_limit;
      if (control.step >= next_checkpoint) {
        auto t = timers.host_scope("checkpoint");
        backend->get_state(state, Purpose::Output);
        // The step that reached the stop may have broken the state; only the next step's
        // reduction would say so. A broken state is never saved: the run goes on to that
        // step, which stops it and saves the state before (above).
        const bool broken = comm.max(first_bad_cell(state, g.ninterior, config.physics.gamma) <
                                     g.ninterior ? 1.0 : 0.0) > 0;
        if (!broken) {
          try {
            r.checkpoints.push_back(save_checkpoint(config, comm, control.step, control.t, state, g, r.grid));
          } catch (const std::exception& e) {
            // Every rank knows (save_checkpoint agrees on its outcome). A signal is still the
            // reason the run ends, and is said so; otherwise the write failure ends it.
            if (interrupted) throw Interrupted(interrupted, control.step, "", e.what());
            throw AgreedExit(ExitStatus{4, "error: ", e.what(), true, -1});
          }
        }
        next_checkpoint = after(control.step);
        last_checkpoint = std::chrono::steady_clock::now();
        if (interrupted && !broken) throw Interrupted(interrupted, control.step, r.checkpoints.back());
      }
      if (periodic_output && control.t >= next_output()) {
        ++outputs_done;
        // Where the backend can capture the state asynchronously (device owner), start the
        // copy now and write the file once the next step is on its way, so that the copy
        // and the writing overlap that step; otherwise write it now.
        if (!last && backend->begin_state_copy())
          pending = Snapshot{control.step, control.t};
        else
          write_snapshot(control.step, control.t);
      }
      if (last) break;
      t_stop = std::min(config.t_end, next_output());
      backend->set_stop(t_stop, step_stop());
      last_submit = std::chrono::steady_clock::now();  // a stop is not part of a step
      continue;
    }
    // The first timed step is also traced: each call's start and end on its stream, from
    // an idle device (so this one step does not overlap the one before it).
    const bool trace = asked == kWarmupSteps;
    if (trace) {
      backend->fence();
      timers.start_trace();
      r.traced_step = asked;
    }
    if (backend->moves_state_each_step()) {
      auto timer = timers.scope("state_upload");
      backend->upload_state();
    }
    {
      auto timer = timers.scope("dt_reduction");
      backend->plan_step();
    }
    rk_stage(stages, 1);
    rk_stage(stages, 2);
    if (backend->moves_state_each_step()) {
      auto timer = timers.scope("state_download");
      backend->download_state();
    }
    if (trace) timers.stop_trace();
    ++asked;
    // The timers leave out the first kWarmupSteps steps (caches, clocks, lazy set-up), as
    // the report's step-time statistics do, and are measured now and then, so that their
    // marks do not pile up over a long run.
    if (asked == kWarmupSteps) {
      timers.restart({"output", "checkpoint"});  // files are timed from the start
      r.timed_steps_from = asked;
    } else if (asked % 256 == 0) {
      timers.resolve();
    }
    // The host is at most one step ahead of the device, so in a steady loop the time
    // between two submissions is one step of the device: these are the step times. The
    // traced step began from an idle device (its fence), so it and the next one are not
    // steady: the pipeline fills again, as in the first two steps. They are left out.
    const auto now = std::chrono::steady_clock::now();
    const bool refilling = asked > kWarmupSteps && asked <= kWarmupSteps + kTracedStepsUnsampled;
    if (!refilling) r.step_times.push_back(std::chrono::duration<double>(now - last_submit).count());
    last_submit = now;
    progress.update(control.step, control.t);
    if (pending.step >= 0) {
      write_snapshot(pending.step, pending.t);
      pending.step = -1;
      output_s += seconds_since(now);
      last_submit = std::chrono::steady_clock::now();  // the file is not part of a step
    }
  }
  progress.update(control.step, control.t, true);
  // The slowest rank's loop is the run's.
  const double loop_s = comm.max(seconds_since(loop_start) - output_s);
  const long step = control.step;
  const double t = control.t;
  lap_start = std::chrono::steady_clock::now();

  backend->get_state(state);
  double sums[5];
  if ((r.has_device_final = backend->device_sums(sums))) {
    const double volume = g.dx[0] * g.dx[1] * g.dx[2];
    for (int v = 0; v < kNumVars; ++v) r.device_final[v] = comm.sum(sums[v]) * volume;
  }
  // Every rank takes part in a snapshot (the gather), rank 0 writes it; the state is
  // copied from the backend and gathered once for the snapshot and the final diagnostics.
  whole_is_current = false;
  if (options.write_output && config.output_final && last_snapshot_step != step)
    write_snapshot(step, t, false);
  if (!whole_is_current) whole = comm.gather(state, g, r.grid);

  r.steps = step;
  r.steps_submitted = asked;
  r.timed_steps = asked - r.timed_steps_from;
  r.sim_time = t;
  r.loop_s = loop_s;
  r.cell_updates_per_s = loop_s > 0 ? static_cast<double>(r.grid.ninterior) * step / loop_s : 0.0;
  if (comm.root()) {
    // The checksum is a sequential hash (about a second at 256^3): it runs beside the totals.
    auto checksum = std::async(std::launch::async, [&whole] { return state_checksum(whole); });
    r.final = conserved_totals(whole, r.grid);
    r.checksum = checksum.get();
    r.final_state = std::move(whole);
  }
  lap("final_state");  // copied back, reduced, gathered, the final snapshot, checksum
  timers.resolve();
  r.timers = timers.phases();
  r.timeline = timers.trace();
  // Every rank times the same phases in the same order: reduce each over the ranks.
  std::vector<double> totals;
  for (const PhaseStats& p : r.timers) totals.push_back(p.total_s);
  comm.min_max_mean(totals, r.timers_min_s, r.timers_max_s, r.timers_mean_s);
  r.devices_over_ranks = comm.gather(device_identity(r.device));
  r.transfers = backend->transfers();
  lap("timers");
  r.wall_s = seconds_since(t_start);
  return r;
}

}  // namespace halocline
