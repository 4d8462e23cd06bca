// The physics functions of kernels/hydro.hpp and kernels/stencil.hpp at inputs a test
// chooses (zeros of both signs, subnormals, the largest finite values, infinities, NaNs of
// both signs, and ordinary states), evaluated by a backend where its kernels run (a GPU's
// device code, or the host): the test compares each output's bits with the host's, which a
// run's bitwise agreement across backends rests on (tests/test_physics_samples.cpp). Each
// backend evaluates them in a loop of its own (kernels/hip/physics_samples.cpp,
// kernels/kokkos/physics_samples.cpp); the function below is the one they all call.
#pragma once

#include "kernels/hydro.hpp"
#include "kernels/stencil.hpp"

namespace halocline {

// Which function a sample calls, with its inputs and outputs in the sample's arrays (a Prim
// or Cons is its five values in order: rho, u[0..2], p; or mass, momentum, energy):
enum class SampledFunction : int {
  Slopes,      // limited_slopes(in 0-4, in 5-9, in 10-14, option: Limiter) -> out 0-4
  FaceState,   // face_state(in 0-4, slope in 5-9, option 0: side -1, 1: side +1) -> out 0-4
  MusclCell,   // muscl_cell(in 0-4, 5-9, 10-14, option: Limiter) -> low out 0-4, high out 5-9
  Riemann,     // riemann_flux(left in 0-4, right in 5-9, option: RiemannSolver) -> out 0-4
  CellPrims,   // cell_prims(cons in 0-4) -> rho, u[0..2], p[0..2] in out 0-6
  SignalRate,  // state_signal_rate(cons in 0-4, 1/dx in 5-7, all active) -> out 0
  Update,      // u0 in 0, u1 in 1, (high, low) fluxes in 2-7, dt/dx in 8-10 (as double):
               // the divergence summed over x, y, z, then stage 1's value in out 0, stage 2's in out 1
};
constexpr int kSampledFunctions = 7;
constexpr int kSampleInputs = 15, kSampleOutputs = 10;

template <class Real>
struct PhysicsSample {
  SampledFunction function;
  int option;
  Real in[kSampleInputs];
  Real out[kSampleOutputs];
};

namespace samples {

template <class Real>
HC_INLINE Prim<Real> prim_at(const Real* x) {
  return {x[0], {x[1], x[2], x[3]}, x[4]};
}
template <class Real>
HC_INLINE Cons<Real> cons_at(const Real* x) {
  return {{x[0], x[1], x[2], x[3], x[4]}};
}
template <class Real>
HC_INLINE void put(const Prim<Real>& q, Real* out) {
  out[0] = q.rho;
  for (int c = 0; c < 3; ++c) out[1 + c] = q.u[c];
  out[4] = q.p;
}
template <class Real>
HC_INLINE void put(const Cons<Real>& w, Real* out) {
  for (int v = 0; v < kNumVars; ++v) out[v] = w.q[v];
}

template <class Real>
HC_INLINE void update(PhysicsSample<Real>& s) {
  StageUpdate st{};
  Real div = Real(0);
  for (int d = 0; d < 3; ++d) {
    st.active[d] = true;
    st.dt_over_dx[d] = static_cast<double>(s.in[8 + d]);
    div = add_flux_difference(div, st.dt_over_dx[d], s.in[2 + 2 * d], s.in[3 + 2 * d]);
  }
  st.stage = 1;
  s.out[0] = stage_value(st, s.in[0], Real(0), div);
  st.stage = 2;
  s.out[1] = stage_value(st, s.in[0], s.in[1], div);
}

}  // namespace samples

// Sample s's function at its inputs, into its outputs (those it does not name are left as
// they are), with the gas `gas`.
template <class Real>
HC_INLINE void evaluate_sample(PhysicsSample<Real>& s, const IdealGas<Real>& gas) {
  using namespace samples;
  const Real* in = s.in;
  const Limiter lim = static_cast<Limiter>(s.option);
  switch (s.function) {
    case SampledFunction::Slopes:
      put(limited_slopes(prim_at(in), prim_at(in + 5), prim_at(in + 10), lim), s.out);
      break;
    case SampledFunction::FaceState:
      put(face_state(prim_at(in), prim_at(in + 5), s.option == 0 ? Real(-1) : Real(1)), s.out);
      break;
    case SampledFunction::MusclCell: {
      const FaceStates<Real> f = muscl_cell(prim_at(in), prim_at(in + 5), prim_at(in + 10), lim);
      put(f.low, s.out);
      put(f.high, s.out + 5);
      break;
    }
    case SampledFunction::Riemann:
      put(riemann_flux(prim_at(in), prim_at(in + 5), gas, static_cast<RiemannSolver>(s.option)), s.out);
      break;
    case SampledFunction::CellPrims: {
      const CellPrims<Real> q = cell_prims(cons_at(in), gas);
      s.out[0] = q.rho;
      for (int c = 0; c < 3; ++c) s.out[1 + c] = q.u[c];
      for (int d = 0; d < 3; ++d) s.out[4 + d] = q.p[d];
      break;
    }
    case SampledFunction::SignalRate: {
      const RateScale<Real> scale{{in[5], in[6], in[7]}, {true, true, true}};
      s.out[0] = state_signal_rate(cons_at(in), gas, scale);
      break;
    }
    case SampledFunction::Update: update(s); break;
  }
}

}  // namespace halocline
