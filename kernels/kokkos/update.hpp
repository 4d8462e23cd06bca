// The conservative update of one SSP-RK2 stage and the time-step reduction.
#pragma once

#include <cstdint>

#include "kernels/checksum.hpp"
#include "kernels/initial_state.hpp"
#include "kernels/kokkos/policies.hpp"
#include "kernels/stencil.hpp"
#include "kernels/totals.hpp"

namespace halocline::kokkos {

// What the loops below capture, as plain aggregates: a device lambda (CUDA, HIP) cannot
// capture a C array or a type local to its function.
template <class Real, class L>
struct FluxArrays {
  StateRef<Real, L> f[3];
};
struct Strides {
  std::size_t s[3];
};

template <class Real, class L>
void update_stage(const Launch& on, const Grid& g, const CellBox& box, const StageUpdate& st,
                  const StateRef<Real, L>& u0, const StateRef<Real, L>& u1, const StateRef<Real, L>& out,
                  const StateRef<Real, L> (&flux)[3]) {
  const FluxArrays<Real, L> fl{{flux[0], flux[1], flux[2]}};
  const Strides str{{g.stride[0], g.stride[1], g.stride[2]}};
  const std::size_t sy = g.stride[1], sz = g.stride[2];
  for_cells(
      "update", on, box, -1, 0, KOKKOS_LAMBDA(int i, int j, int k) {
        const std::size_t c = static_cast<std::size_t>(i) + sy * j + sz * k;
        update_cell(u0, u1, out, fl.f, str.s, st, c);
      });
}

// The second stage of a step that does nothing: u0 carried over into unew (see carry_cell).
template <class Real, class L>
void carry_stage(const Launch& on, const Grid& g, const CellBox& box, const StateRef<Real, L>& u0,
                 const StateRef<Real, L>& unew) {
  const std::size_t sy = g.stride[1], sz = g.stride[2];
  for_cells(
      "carry", on, box, -1, 0,
      KOKKOS_LAMBDA(int i, int j, int k) { carry_cell(u0, unew, static_cast<std::size_t>(i) + sy * j + sz * k); });
}

// max over interior cells of sum_d (|u_d| + c) / dx_d.
template <class Real, class L>
Real max_signal_rate(const Launch& on, const Grid& g, const Physics& ph, const StateRef<Real, L>& u) {
  const RateScale<Real> scale = rate_scale<Real>(g);
  const IdealGas<Real> gas(static_cast<Real>(ph.gamma));
  const std::size_t sy = g.stride[1], sz = g.stride[2];
  Real result = 0;
  reduce_cells(
      "signal_rate", on, interior_cells(g),
      KOKKOS_LAMBDA(int i, int j, int k, Real& local_max) {
        const std::size_t c = static_cast<std::size_t>(i) + sy * j + sz * k;
        const Real rate = cell_signal_rate(u, c, gas, scale);  // kernels/stencil.hpp
        if (rate > local_max) local_max = rate;
      },
      Kokkos::Max<Real>(result));
  return result;
}

// This rank's part of the state's checksum (kernels/checksum.hpp): an integer sum modulo
// 2^64, the same in any order.
template <class Real, class L>
std::uint64_t checksum_part(const Launch& on, const Grid& g, const StateRef<Real, L>& u) {
  const std::size_t sy = g.stride[1], sz = g.stride[2];
  std::uint64_t result = 0;
  reduce_cells(
      "checksum", on, interior_cells(g),
      KOKKOS_LAMBDA(int i, int j, int k, std::uint64_t& sum) {
        const std::size_t c = static_cast<std::size_t>(i) + sy * j + sz * k;
        const std::uint64_t cell = global_cell(g, i, j, k);
        for (int v = 0; v < kNumVars; ++v) sum += checksum_term(static_cast<double>(u(v, c)), cell, v);
      },
      Kokkos::Sum<std::uint64_t>(result));
  return result;
}

// The initial state of `ic` in every interior cell of u (kernels/initial_state.hpp).
template <class Real, class L>
void make_initial_state(const Launch& on, const Grid& g, const InitialCondition& ic, const StateRef<Real, L>& u) {
  const std::size_t sy = g.stride[1], sz = g.stride[2];
  for_cells(
      "initial_state", on, interior_cells(g), -1, 0, KOKKOS_LAMBDA(int i, int j, int k) {
        double w[kNumVars];
        initial_cell_at(ic, g, i, j, k, w);
        const std::size_t c = static_cast<std::size_t>(i) + sy * j + sz * k;
        for (int v = 0; v < kNumVars; ++v) u(v, c) = static_cast<Real>(w[v]);
      });
}

// A Kokkos reducer over MaxAbs or FixedSums (kernels/totals.hpp): their own reset and merge.
template <class T>
struct TotalsReducer {
  using reducer = TotalsReducer;
  using value_type = T;
  using result_view_type = Kokkos::View<T, Kokkos::HostSpace, Kokkos::MemoryUnmanaged>;
  T* result;
  KOKKOS_INLINE_FUNCTION void join(T& into, const T& x) const { merge(into, x); }
#if KOKKOS_VERSION < 40000  // Kokkos 3 joins through volatile references too
  KOKKOS_INLINE_FUNCTION void join(volatile T& into, const volatile T& x) const {
    T a = const_cast<const T&>(into), b = const_cast<const T&>(x);
    merge(a, b);
    const_cast<T&>(into) = a;
  }
#endif
  KOKKOS_INLINE_FUNCTION void init(T& x) const { reset(x); }
  KOKKOS_INLINE_FUNCTION T& reference() const { return *result; }
  result_view_type view() const { return result_view_type(result); }
  KOKKOS_INLINE_FUNCTION bool references_scalar() const { return true; }
};

// This rank's largest |value| of each variable, and its fixed-point sums at `scale`.
template <class Real, class L>
MaxAbs max_abs_part(const Launch& on, const Grid& g, const StateRef<Real, L>& u) {
  const std::size_t sy = g.stride[1], sz = g.stride[2];
  MaxAbs result;
  reduce_cells(
      "max_abs", on, interior_cells(g),
      KOKKOS_LAMBDA(int i, int j, int k, MaxAbs& m) {
        add_state_cell(m, u, static_cast<std::size_t>(i) + sy * j + sz * k);
      },
      TotalsReducer<MaxAbs>{&result});
  return result;
}

template <class Real, class L>
FixedSums fixed_sums_part(const Launch& on, const Grid& g, const StateRef<Real, L>& u, const TotalsScale& scale) {
  const std::size_t sy = g.stride[1], sz = g.stride[2];
  FixedSums result;
  reduce_cells(
      "fixed_sums", on, interior_cells(g),
      KOKKOS_LAMBDA(int i, int j, int k, FixedSums& s) {
        add_state_cell(s, u, static_cast<std::size_t>(i) + sy * j + sz * k, scale);
      },
      TotalsReducer<FixedSums>{&result});
  return result;
}

}  // namespace halocline::kokkos
