// The probe's arithmetic microbenchmarks (kernels/hip/probe.cpp, kernels/kokkos/probe.cpp),
// written once: a thread runs kRateChains independent chains of one operation, so that a core
// or an SM always has operations in flight (throughput, not latency), through the physics' own
// mul_add and square_root (kernels/hydro.hpp): the fused multiply-add of the strict-FP build,
// where the compiler contracts nothing. Each thread returns the sum of its chains, which the
// probe stores and checks, so that no loop can be folded away.
#pragma once

#include <cstddef>
#include <stdexcept>

#include "kernels/hydro.hpp"

namespace halocline {

enum class RateOp : int { Fma = 0, Div = 1, Sqrt = 2 };

// 256 bytes of chains per thread: 8 vectors of 32 bytes (4 doubles, 8 floats), which keep a
// CPU core's two FMA pipes of 4 cycles' latency busy (4 vectors of floats would fill half).
template <class Real>
constexpr int kRateChains = 256 / sizeof(Real);

// `iterations` rounds of the operation on every chain of thread `thread`, with the run-time
// constants `factor` and `term` (the compiler knows neither): x = x factor + term, x = term / x
// or x = sqrt(x), each of which keeps x near 1 (no overflow, no subnormal slow path).
template <class Real, RateOp Op>
HC_INLINE Real rate_chains(int thread, int iterations, Real factor, Real term) {
  Real x[kRateChains<Real>];
  for (int c = 0; c < kRateChains<Real>; ++c) x[c] = Real(1) + Real(0.01) * Real(c + thread % 3);
  for (int n = 0; n < iterations; ++n)
    for (int c = 0; c < kRateChains<Real>; ++c) {
      if (Op == RateOp::Fma) x[c] = mul_add(x[c], factor, term);
      if (Op == RateOp::Div) x[c] = term / x[c];
      if (Op == RateOp::Sqrt) x[c] = square_root(x[c]);
    }
  Real sum = Real(0);
  for (int c = 0; c < kRateChains<Real>; ++c) sum = sum + x[c];
  return sum;
}

// The operations rate_chains<Real, ...> makes on `threads` threads.
template <class Real>
double rate_operations(long threads, int iterations) {
  return static_cast<double>(threads) * iterations * kRateChains<Real>;
}

// Throws unless every thread's sum (sums[0 .. n)) is a positive finite number: chains that
// overflowed or went to NaN measured nothing.
template <class Real>
void check_rate_sums(const Real* sums, std::size_t n) {
  for (std::size_t i = 0; i < n; ++i)
    if (!(sums[i] > 0) || !(sums[i] < Real(1e30))) throw std::runtime_error("probe: an arithmetic rate's chains broke");
}

// factor and term of each operation: x factor + term has its fixed point at 1; term / x
// alternates between x and term / x.
constexpr double kRateFactor = 0.999, kRateTerm = 0.001, kRateDivTerm = 1.0;

}  // namespace halocline
