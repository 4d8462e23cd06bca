// The conservative update of one SSP-RK2 stage, the time-step reduction's per-cell rates,
// and the gather of one variable for a device sum.
#pragma once

#include "kernels/hip/policies.hpp"
#include "kernels/stencil.hpp"

namespace halocline::hip {
template <class Real, class L>
struct FluxRefs {
  StateRef<Real, L> f[3];
};

template <class Real, class L>
__global__ void update_kernel(Grid g, Box box, StateRef<Real, L> u0, StateRef<Real, L> u1, StateRef<Real, L> out,
                              FluxRefs<Real, L> flux, int stage, const StepControl* control) {
  int i, j, k;
  if (!box.cell(i, j, k)) return;
  if (!step_planned(control)) {
    // A step past a stop carries u0 over; after a fault u0 is the last good state and
    // stays where it is.
    if (stage == 2 && !control->failed) carry_cell(u0, out, g.index(i, j, k));
    return;
  }
  update_cell(u0, u1, out, flux.f, g.stride, stage_update(stage, control->dt, g), g.index(i, j, k));
}

// The signal rate of every interior cell (cell_signal_rate, kernels/stencil.hpp), in
// interior order, for the device-wide max.
template <class Real, class L>
__global__ void signal_rate_kernel(Grid g, Box box, StateRef<Real, L> u, Real gamma, Real* rates) {
  int i, j, k;
  if (!box.cell(i, j, k)) return;
  Real inv_dx[3];
  bool active[3];
  for (int d = 0; d < 3; ++d) {
    inv_dx[d] = static_cast<Real>(1.0 / g.dx[d]);
    active[d] = g.active(d);
  }
  rates[interior_index(box, i, j, k)] = cell_signal_rate(u, g.index(i, j, k), gamma, inv_dx, active);
}

// One conserved variable of every interior cell, in interior order, for a device sum.
template <class Real, class L>
__global__ void gather_kernel(Grid g, Box box, StateRef<Real, L> u, int var, Real* out) {
  int i, j, k;
  if (!box.cell(i, j, k)) return;
  out[interior_index(box, i, j, k)] = u(var, g.index(i, j, k));
}

}  // namespace halocline::hip
