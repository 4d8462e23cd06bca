#include "app/stages.hpp"

#include "app/phases.hpp"

namespace halocline {

Stages make_stages(Backend& backend, const Comm& comm, PhaseTimers& timers, PhaseClock& halo_clock,
                   const HaloSetup& halo, const Grid& grid) {
  Stages s{backend, comm, &timers, halo_clock, halo, grid, interior_cells(grid), {}, {}};
  split_for_overlap(grid, s.inner, s.shell);
  return s;
}

void fill_ghosts(Stages& s, Slot slot, const std::string& prefix) {
  Backend& b = s.backend;
  for (int d = 0; d < 3; ++d) {
    if (!s.grid.active(d)) continue;
    if (s.halo.any(d)) {
      {
        auto t = s.timers->scope(prefix + phase::kPack, s.halo_clock);
        b.pack_halo(d, slot);
      }
      if (s.halo.staged()) {
        auto t = s.timers->scope(prefix + phase::kD2h, s.halo_clock);
        b.halo_to_host(d);
      }
      b.wait_halo_sent(d);  // MPI reads the messages: they must be there
      {
        auto t = s.timers->host_scope(prefix + phase::kMpi);
        s.comm.exchange(d, b.halo_messages(d));
      }
      if (s.halo.staged()) {
        auto t = s.timers->scope(prefix + phase::kH2d, s.halo_clock);
        b.halo_to_device(d);
      }
      {
        auto t = s.timers->scope(prefix + phase::kUnpack, s.halo_clock);
        b.unpack_halo(d, slot);
      }
    }
    auto t = s.timers->scope(prefix + phase::kGhostFill, s.halo_clock);
    b.fill_boundary(d, slot);
  }
}

namespace {

// Fluxes of every active direction, then the update, over the cells of `boxes`: split, or
// one fused pass per box.
void compute_cells(Stages& s, Slot input, int stage, const CellBox* boxes, int count) {
  if (s.backend.kernels() == KernelStrategy::Fused) {
    for (int i = 0; i < count; ++i) s.backend.fused_stage(stage, boxes[i]);
    return;
  }
  for (int i = 0; i < count; ++i)
    for (int d = 0; d < 3; ++d)
      if (s.grid.active(d)) s.backend.compute_fluxes(d, input, boxes[i]);
  for (int i = 0; i < count; ++i) s.backend.update(stage, boxes[i]);
}

}  // namespace

void rk_stage(Stages& s, int stage) {
  Backend& b = s.backend;
  const Slot input = stage == 1 ? Slot::U0 : Slot::U1;
  const std::string prefix = phase::stage_prefix(stage);
  if (s.halo.strategy == HaloStrategy::Overlap) {
    // The interior is submitted first and computes while the host drives the exchange;
    // the shell waits on the device (end_halo) until the ghosts have landed.
    b.begin_halo();
    {
      auto t = s.timers->scope(prefix + phase::kInterior);
      compute_cells(s, input, stage, &s.inner, 1);
    }
    fill_ghosts(s, input, prefix);
    b.end_halo();
    auto t = s.timers->scope(prefix + phase::kBoundary);
    compute_cells(s, input, stage, s.shell, 6);
    if (stage == 2) b.finish_step();  // t += dt, step += 1: part of the last update
    return;
  }
  fill_ghosts(s, input, prefix);
  if (b.kernels() == KernelStrategy::Fused) {
    auto t = s.timers->scope(prefix + phase::kFused);
    b.fused_stage(stage, s.all);
  } else {
    {
      auto t = s.timers->scope(prefix + phase::kReconstructFlux);
      for (int d = 0; d < 3; ++d)
        if (s.grid.active(d)) b.compute_fluxes(d, input, s.all);
    }
    auto t = s.timers->scope(prefix + phase::kUpdate);
    b.update(stage, s.all);
  }
  if (stage == 2) b.finish_step();
}

}  // namespace halocline
