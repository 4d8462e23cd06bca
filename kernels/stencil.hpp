// The three per-cell operations of a Runge-Kutta stage, written once against the layout
// accessor: a ghost copy, the flux through one face, and the conservative update of one
// cell. Backends loop over cells and call these; they add no arithmetic of their own.
#pragma once

#include <cstddef>

#include "base/grid.hpp"
#include "kernels/boundary.hpp"
#include "kernels/hydro.hpp"
#include "layouts/layouts.hpp"

namespace halocline {

// Conserved state of `cell` in x, y, z order.
template <class Real, class L>
HC_INLINE Cons<Real> load_cell(const StateRef<Real, L>& u, std::size_t cell) {
  Cons<Real> w;
  for (int v = 0; v < kNumVars; ++v) w.q[v] = u(v, cell);
  return w;
}

// Conserved state of `cell` in the frame whose normal is direction d.
template <class Real, class L>
HC_INLINE Cons<Real> load_rotated(const StateRef<Real, L>& u, std::size_t cell, int d) {
  Cons<Real> w;
  w.q[0] = u(kRho, cell);
  w.q[1] = u(kMomX + rotated(d, 0), cell);
  w.q[2] = u(kMomX + rotated(d, 1), cell);
  w.q[3] = u(kMomX + rotated(d, 2), cell);
  w.q[4] = u(kEnergy, cell);
  return w;
}

// Copies ghost cell `ghost` from interior cell `source` (the boundary decides which, see
// ghost_source), negating the momentum normal to direction d when `flip` is set.
template <class Real, class L>
HC_INLINE void copy_ghost(const StateRef<Real, L>& u, std::size_t ghost, std::size_t source, int d, bool flip) {
  for (int v = 0; v < kNumVars; ++v) {
    const Real value = u(v, source);
    u(v, ghost) = (flip && v == kMomX + d) ? -value : value;
  }
}

// The flux (in the face's frame) through the face between cells i-1 and i, from the
// primitive states of cells i-2, i-1, i, i+1 in that frame: MUSCL reconstruction, then the
// chosen Riemann solver.
template <class Real>
HC_INLINE Cons<Real> flux_of_prims(const Prim<Real>& qm2, const Prim<Real>& qm1, const Prim<Real>& q0,
                                   const Prim<Real>& qp1, const IdealGas<Real>& gas, Limiter lim,
                                   RiemannSolver solver) {
  Prim<Real> left, right;
  muscl_face(qm2, qm1, q0, qp1, lim, left, right);
  return riemann_flux(left, right, gas, solver);
}

// Flux through the face between cell c - s and cell c (s: the stride of direction D),
// stored at cell c of the flux array f: MUSCL reconstruction of the primitive variables
// from cells c-2s .. c+s, then the chosen Riemann solver. The direction is a template
// argument so that which momentum is normal is known at compile time (no run-time
// indexing, which on GPUs would put arrays in slow local memory).
template <int D, class Real, class L>
HC_INLINE void face_flux(const StateRef<Real, L>& u, const StateRef<Real, L>& f, std::size_t c, std::size_t s,
                         const IdealGas<Real>& gas, Limiter lim, RiemannSolver solver) {
  constexpr int d = D;
  const Prim<Real> qm2 = to_prim(load_rotated(u, c - 2 * s, d), gas);
  const Prim<Real> qm1 = to_prim(load_rotated(u, c - s, d), gas);
  const Prim<Real> q0 = to_prim(load_rotated(u, c, d), gas);
  const Prim<Real> qp1 = to_prim(load_rotated(u, c + s, d), gas);
  const Cons<Real> flux = from_frame(flux_of_prims(qm2, qm1, q0, qp1, gas, lim, solver), d);
  for (int v = 0; v < kNumVars; ++v) f(v, c) = flux.q[v];
}

// Coefficients of one SSP-RK2 stage, out = a * u0 + b * (u - dt div F(u)):
//   stage 1: u1   = u0 - dt div F(u0)                   (a = 0: u0 is not read)
//   stage 2: unew = 1/2 u0 + 1/2 (u1 - dt div F(u1))
// Stage 2 writes a third array, unew, not u0: the step's input survives the step, and the
// backend makes unew the next step's u0 (and u0 the next unew). When the next step finds
// the new state broken (a NaN, p <= 0) it does nothing, so the last good state is still
// there for a checkpoint. (Not u1 either: with the halo overlap, the shell's fluxes read
// u1 after the interior's update has run.)
struct StageUpdate {
  int stage;             // 1 or 2
  double dt_over_dx[3];  // dt / dx per direction (0 for inactive directions)
  bool active[3];
};

// The update of stage `stage` with time step `dt` on grid `g`: every backend builds it the
// same way, where its dt is (on the host, or on the device from the device's controller).
HC_INLINE StageUpdate stage_update(int stage, double dt, const Grid& g) {
  StageUpdate st{};
  st.stage = stage;
  for (int d = 0; d < 3; ++d) {
    st.active[d] = g.active(d);
    st.dt_over_dx[d] = st.active[d] ? dt / g.dx[d] : 0.0;
  }
  return st;
}

// The state-sized arrays a backend holds: u0, u1, unew, and with the split kernels one flux
// array per active direction (for memory checks and the memory plan).
HC_INLINE int solver_arrays(int active_directions, bool flux_arrays) {
  return 3 + (flux_arrays ? active_directions : 0);
}
HC_INLINE int solver_arrays(const Grid& g, bool flux_arrays) {
  return solver_arrays(int(g.active(0)) + g.active(1) + g.active(2), flux_arrays);
}

// `div` plus dt / dx times the difference of a value's fluxes through a cell's high and low
// faces along one direction: one term of the flux divergence, which every kernel sums over
// x, y, z in that order, starting from 0.
template <class Real>
HC_INLINE Real add_flux_difference(Real div, double dt_over_dx, Real high, Real low) {
  return mul_add(Real(dt_over_dx), high - low, div);
}

// One value of a cell after the stage, from its value in u0 and in u1 (stage 2 only) and
// dt times the divergence of its fluxes, `div` (summed over x, y, z in that order).
template <class Real>
HC_INLINE Real stage_value(const StageUpdate& st, Real u0, Real u1, Real div) {
  return st.stage == 1 ? u0 - div : Real(0.5) * u0 + Real(0.5) * (u1 - div);
}

// Applies the stage update to interior cell c, writing `out` (u1 in stage 1, unew in stage
// 2). `flux` holds the face fluxes of the active directions (the flux at the low face of
// each cell).
template <class Real, class L>
HC_INLINE void update_cell(const StateRef<Real, L>& u0, const StateRef<Real, L>& u1, const StateRef<Real, L>& out,
                           const StateRef<Real, L> flux[3], const std::size_t stride[3], const StageUpdate& st,
                           std::size_t c) {
  for (int v = 0; v < kNumVars; ++v) {
    Real div = Real(0);
    for (int d = 0; d < 3; ++d)
      if (st.active[d]) div = add_flux_difference(div, st.dt_over_dx[d], flux[d](v, c + stride[d]), flux[d](v, c));
    out(v, c) = stage_value(st, u0(v, c), st.stage == 1 ? Real(0) : u1(v, c), div);
  }
}

// The second stage of a step that does nothing (dt = 0: asked for past a stop): u0 is
// carried over unchanged into unew, so that the swap of roles after every step holds
// whether or not the step advanced.
template <class Real, class L>
HC_INLINE void carry_cell(const StateRef<Real, L>& u0, const StateRef<Real, L>& unew, std::size_t c) {
  for (int v = 0; v < kNumVars; ++v) unew(v, c) = u0(v, c);
}

// What a cell's signal rate needs besides its state: 1/dx per direction (computed in double,
// then rounded to Real, the same way by every backend) and which directions are active.
template <class Real>
struct RateScale {
  Real inv_dx[3];
  bool active[3];
};
template <class Real>
HC_INLINE RateScale<Real> rate_scale(const Grid& g) {
  RateScale<Real> s{};
  for (int d = 0; d < 3; ++d) {
    s.inv_dx[d] = static_cast<Real>(1.0 / g.dx[d]);
    s.active[d] = g.active(d);
  }
  return s;
}

// The signal rate of a cell's conserved state `w` for the time step's max (signal_rate in
// hydro.hpp). A NaN counts as infinitely fast, so that a broken cell cannot hide behind the
// max (NaN loses every comparison): the controller then refuses the step and the run stops.
// Never negative, so that the order of the bits of the rates is the order of the rates.
template <class Real>
HC_INLINE Real state_signal_rate(const Cons<Real>& w, const IdealGas<Real>& gas, const RateScale<Real>& s) {
  const Real rate = signal_rate(w, gas, s.inv_dx, s.active);
  return rate != rate ? static_cast<Real>(HUGE_VAL) : rate;
}

// The same for cell `c` of `u`.
template <class Real, class L>
HC_INLINE Real cell_signal_rate(const StateRef<Real, L>& u, std::size_t c, const IdealGas<Real>& gas,
                                const RateScale<Real>& s) {
  return state_signal_rate(load_cell(u, c), gas, s);
}

}  // namespace halocline
