// The time loop. This file is where every timer starts and stops: each backend call of a
// step sits inside one PhaseTimers scope, named after the phase:
//   dt_reduction                      max signal speed -> time step
//   stageN.ghost_fill                 boundary conditions of the stage's input
//   stageN.reconstruct_flux           MUSCL + Riemann fluxes, all active directions
//   stageN.update                     conservative update of the stage
//   output                            snapshot (device-to-host copy + HDF5/XDMF)
#include "app/driver.hpp"

#include <chrono>
#include <cmath>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <limits>
#include <memory>

#include "app/problems.hpp"
#include "app/select.hpp"
#include "io/snapshot.hpp"

namespace halocline {

namespace {

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

// One SSP-RK2 stage: stage 1 reads u0 and writes u1, stage 2 reads u1 and writes u0.
void rk_stage(Backend& backend, PhaseTimers& timers, const Grid& grid, int stage) {
  const Slot input = stage == 1 ? Slot::U0 : Slot::U1;
  const std::string prefix = "stage" + std::to_string(stage) + ".";
  {
    auto t = timers.scope(prefix + "ghost_fill");
    backend.fill_ghosts(input);
  }
  {
    auto t = timers.scope(prefix + "reconstruct_flux");
    for (int d = 0; d < 3; ++d)
      if (grid.active(d)) backend.compute_fluxes(d, input);
  }
  {
    auto t = timers.scope(prefix + "update");
    backend.update(stage);
    if (stage == 2) backend.finish_step();  // t += dt, step += 1: part of the last update
  }
}

}  // namespace

RunResult run_simulation(const Config& config, const RunOptions& options) {
  const auto t_start = std::chrono::steady_clock::now();
  RunResult r;
  r.grid = grid_of(config);
  const Grid& g = r.grid;

  std::unique_ptr<Backend> backend = make_backend(config, g);
  r.backend_description = backend->description();
  r.device_bytes = backend->bytes_allocated();
  r.device = backend->device_info();
  std::unique_ptr<PhaseClock> clock = backend->make_clock();
  PhaseTimers timers(*clock);

  std::vector<double> state = initial_state(config, g);
  backend->set_state(state);
  // The initial totals are taken from the backend's copy, so that an fp32 run measures
  // drift from its own rounded start.
  backend->get_state(state, Purpose::Setup);
  r.initial = conserved_totals(state, g);

  std::unique_ptr<SnapshotWriter> writer;
  int snapshot_index = 0;
  long last_snapshot_step = -1;
  auto write_snapshot = [&](long step, double time) {
    last_snapshot_step = step;
    auto t = timers.host_scope("output");
    backend->get_state(state);
    const auto info = writer->write(snapshot_index++, step, time,
                                    primitives(state, g.ninterior, config.physics.gamma));
    writer->write_series();
    r.snapshots.push_back(info.xmf_path);
  };
  const bool periodic_output = options.write_output && config.output_interval > 0;
  if (options.write_output && (periodic_output || config.output_final))
    writer = std::make_unique<SnapshotWriter>(config.out_dir, g,
                                              config.precision == Precision::FP32);
  if (periodic_output) write_snapshot(0, 0.0);

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
  double t_stop = std::min(config.t_end, next_output());
  StepControl control;
  control.cfl = config.physics.cfl;
  control.t_stop = t_stop;
  control.step_limit = step_limit;
  backend->reset_control(control);

  double output_s = 0;
  long asked = 0;  // steps asked of the backend
  struct Snapshot {
    long step;
    double t;
  } pending{-1, 0.0};  // a snapshot whose copy has started, to be written after the next step is asked
  const auto loop_start = std::chrono::steady_clock::now();
  auto last_submit = loop_start;
  for (;;) {
    control = backend->step_status(false);
    if (control.failed || control.t >= t_stop || control.step >= step_limit) {
      control = backend->step_status(true);
      if (control.failed)
        throw NumericalError("step " + std::to_string(control.step) + ", t = " +
                             std::to_string(control.t) + ": no valid time step (max signal rate " +
                             std::to_string(control.max_rate) +
                             "); the state holds a NaN, Inf or non-positive pressure");
      const bool last = control.t >= config.t_end || control.step >= step_limit;
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
      backend->set_stop(t_stop, step_limit);
      last_submit = std::chrono::steady_clock::now();  // a stop is not part of a step
      continue;
    }
    if (backend->moves_state_each_step()) {
      auto timer = timers.scope("state_upload");
      backend->upload_state();
    }
    {
      auto timer = timers.scope("dt_reduction");
      backend->plan_step();
    }
    rk_stage(*backend, timers, g, 1);
    rk_stage(*backend, timers, g, 2);
    if (backend->moves_state_each_step()) {
      auto timer = timers.scope("state_download");
      backend->download_state();
    }
    // Measure the timers now and then, so their marks do not pile up over a long run.
    if (++asked % 256 == 0) timers.resolve();
    // The host is at most one step ahead of the device, so in a steady loop the time
    // between two submissions is one step of the device: these are the step times.
    const auto now = std::chrono::steady_clock::now();
    r.step_times.push_back(std::chrono::duration<double>(now - last_submit).count());
    last_submit = now;
    if (pending.step >= 0) {
      write_snapshot(pending.step, pending.t);
      pending.step = -1;
      output_s += seconds_since(now);
      last_submit = std::chrono::steady_clock::now();  // the file is not part of a step
    }
  }
  const double loop_s = seconds_since(loop_start) - output_s;
  const long step = control.step;
  const double t = control.t;

  backend->get_state(state);
  double sums[5];
  if ((r.has_device_final = backend->device_sums(sums))) {
    const double volume = g.dx[0] * g.dx[1] * g.dx[2];
    for (int v = 0; v < kNumVars; ++v) r.device_final[v] = sums[v] * volume;
  }
  if (writer && config.output_final && last_snapshot_step != step) write_snapshot(step, t);

  r.steps = step;
  r.sim_time = t;
  r.loop_s = loop_s;
  r.cell_updates_per_s = loop_s > 0 ? static_cast<double>(g.ninterior) * step / loop_s : 0.0;
  r.final = conserved_totals(state, g);
  r.checksum = state_checksum(state);
  r.final_state = std::move(state);
  timers.resolve();
  r.timers = timers.phases();
  r.transfers = backend->transfers();
  r.wall_s = seconds_since(t_start);
  return r;
}

Totals conserved_totals(const std::vector<double>& s, const Grid& g) {
  Totals out;
  const double volume = g.dx[0] * g.dx[1] * g.dx[2];
  for (int v = 0; v < kNumVars; ++v) {
    // Neumaier's compensated sum: the totals must resolve drifts near 1e-15.
    double sum = 0, comp = 0, abs_sum = 0;
    for (std::size_t c = 0; c < g.ninterior; ++c) {
      const double x = s[v * g.ninterior + c];
      const double t = sum + x;
      comp += std::fabs(sum) >= std::fabs(x) ? (sum - t) + x : (x - t) + sum;
      sum = t;
      abs_sum += std::fabs(x);
    }
    out.sum[v] = (sum + comp) * volume;
    out.abs_sum[v] = abs_sum * volume;
  }
  return out;
}

double max_relative_drift(const Totals& a, const Totals& b) {
  // Momentum totals are often zero, and so can be their absolute sums (a gas at rest): a
  // momentum drift is measured against sqrt(2 M E), the momentum the gas's mass M would
  // carry with all of its energy E as kinetic energy.
  const double momentum_scale = std::sqrt(2 * a.abs_sum[kRho] * a.abs_sum[kEnergy]);
  double worst = 0;
  for (int v = 0; v < kNumVars; ++v) {
    const bool momentum = v >= kMomX && v <= kMomZ;
    const double scale = momentum ? std::max(a.abs_sum[v], momentum_scale) : a.abs_sum[v];
    if (scale > 0) worst = std::max(worst, std::fabs(b.sum[v] - a.sum[v]) / scale);
  }
  return worst;
}

std::string state_checksum(const std::vector<double>& s) {
  std::uint64_t h = 0xcbf29ce484222325ull;
  for (double x : s) {
    unsigned char bytes[sizeof(double)];
    std::memcpy(bytes, &x, sizeof x);
    for (unsigned char b : bytes) h = (h ^ b) * 0x100000001b3ull;
  }
  char hex[17];
  std::snprintf(hex, sizeof hex, "%016llx", static_cast<unsigned long long>(h));
  return hex;
}

std::vector<double> primitives(const std::vector<double>& s, std::size_t n, double gamma) {
  std::vector<double> p(kNumVars * n);
  for (std::size_t c = 0; c < n; ++c) {
    const double rho = s[c];
    const double u = s[n + c] / rho, v = s[2 * n + c] / rho, w = s[3 * n + c] / rho;
    p[c] = rho;
    p[n + c] = u;
    p[2 * n + c] = v;
    p[3 * n + c] = w;
    p[4 * n + c] = (gamma - 1) * (s[4 * n + c] - 0.5 * rho * (u * u + v * v + w * w));
  }
  return p;
}

}  // namespace halocline
