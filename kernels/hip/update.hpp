// The conservative update of one SSP-RK2 stage, the time-step reduction's per-cell rates,
// the checksum, the conservation totals and the initial state.
#pragma once

#include "kernels/checksum.hpp"
#include "kernels/hip/policies.hpp"
#include "kernels/hip/step_control.hpp"
#include "kernels/initial_state.hpp"
#include "kernels/stencil.hpp"
#include "kernels/totals.hpp"

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

// The pass kernels over a box (the signal rate, the checksum, the totals): a thread walks its
// (x, y) column through kRateChunkZ planes, so that there are few blocks and few atomics
// (one per block).
constexpr int kRateChunkZ = 32;
inline dim3 rate_blocks(const Box& box) {
  return dim3((box.hi[0] - box.lo[0] + 63) / 64, (box.hi[1] - box.lo[1] + 3) / 4,
              (box.hi[2] - box.lo[2] + kRateChunkZ - 1) / kRateChunkZ);
}
// A thread's column of cells in a pass kernel launched with rate_blocks: its (i, j) and
// planes k0 to k1 (none when outside the box).
struct Column {
  int i, j, k0, k1;
  __device__ explicit Column(const Box& box)
      : i(box.lo[0] + static_cast<int>(blockIdx.x * blockDim.x + threadIdx.x)),
        j(box.lo[1] + static_cast<int>(blockIdx.y * blockDim.y + threadIdx.y)),
        k0(box.lo[2] + static_cast<int>(blockIdx.z) * kRateChunkZ),
        k1(i < box.hi[0] && j < box.hi[1] ? min(k0 + kRateChunkZ, box.hi[2]) : k0) {}
};

// The largest signal rate of the cells of `box` (cell_signal_rate, kernels/stencil.hpp)
// into *max_bits.
template <class Real, class L>
__global__ void signal_rate_kernel(Grid g, Box box, StateRef<Real, L> u, IdealGas<Real> gas, RateBits<Real>* max_bits) {
  const Column col(box);
  const RateScale<Real> scale = rate_scale<Real>(g);
  Real most = 0;
  for (int k = col.k0; k < col.k1; ++k) {
    const Real rate = cell_signal_rate(u, g.index(col.i, col.j, k), gas, scale);
    if (rate > most) most = rate;
  }
  block_max_into<Real, 64 * 4>(max_bits, most);
}

// Adds every thread's x into *into: the block's sum through shared memory, then one atomic
// add (integers: the same in any order). Every thread of a 64 x 4 block must call it.
__device__ inline void block_add_into(unsigned long long* into, unsigned long long x) {
  __shared__ unsigned long long part[64 * 4];
  const int t = threadIdx.x + blockDim.x * threadIdx.y;
  part[t] = x;
  __syncthreads();
  for (int s = 64 * 4 / 2; s > 0; s /= 2) {
    if (t < s) part[t] += part[t + s];
    __syncthreads();
  }
  if (t == 0) atomicAdd(into, part[0]);
}

// This block's cells' part of the state's checksum (kernels/checksum.hpp), added into *sum
// (an integer sum modulo 2^64: the same in any order).
template <class Real, class L>
__global__ void checksum_kernel(Grid g, Box box, StateRef<Real, L> u, unsigned long long* sum) {
  const Column col(box);
  unsigned long long mine = 0;
  for (int k = col.k0; k < col.k1; ++k) {
    const std::size_t c = g.index(col.i, col.j, k);
    const std::uint64_t cell = global_cell(g, col.i, col.j, k);
    for (int v = 0; v < kNumVars; ++v) mine += checksum_term(static_cast<double>(u(v, c)), cell, v);
  }
  block_add_into(sum, mine);
}

// The conservation totals' two passes (kernels/totals.hpp): each variable's largest |value|
// into max_bits[5] (as bits: non-negative doubles order as their bits), then the fixed-point
// sums into sums[20] (hi[10], then lo[10]: FixedSums' layout).
template <class Real, class L>
__global__ void max_abs_kernel(Grid g, Box box, StateRef<Real, L> u, unsigned long long* max_bits) {
  const Column col(box);
  MaxAbs m;
  reset(m);
  for (int k = col.k0; k < col.k1; ++k) add_state_cell(m, u, g.index(col.i, col.j, k));
  for (int v = 0; v < kNumVars; ++v) block_max_into<double, 64 * 4>(max_bits + v, m.v[v]);
}

template <class Real, class L>
__global__ void fixed_sums_kernel(Grid g, Box box, StateRef<Real, L> u, TotalsScale scale, unsigned long long* sums) {
  const Column col(box);
  FixedSums s;
  reset(s);
  for (int k = col.k0; k < col.k1; ++k) add_state_cell(s, u, g.index(col.i, col.j, k), scale);
  for (int n = 0; n < kTotalsSums; ++n) {
    block_add_into(sums + n, static_cast<unsigned long long>(s.hi[n]));
    block_add_into(sums + kTotalsSums + n, static_cast<unsigned long long>(s.lo[n]));
  }
}

// The initial state of `ic` in every interior cell of u (kernels/initial_state.hpp).
template <class Real, class L>
__global__ void initial_state_kernel(Grid g, Box box, InitialCondition ic, StateRef<Real, L> u) {
  int i, j, k;
  if (!box.cell(i, j, k)) return;
  double w[kNumVars];
  initial_cell_at(ic, g, i, j, k, w);
  const std::size_t c = g.index(i, j, k);
  for (int v = 0; v < kNumVars; ++v) u(v, c) = static_cast<Real>(w[v]);
}

}  // namespace halocline::hip
