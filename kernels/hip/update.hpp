// The conservative update of one SSP-RK2 stage, the time-step reduction's per-cell rates,
// and the gather of one variable for a device sum.
#pragma once

#include "kernels/checksum.hpp"
#include "kernels/hip/policies.hpp"
#include "kernels/hip/step_control.hpp"
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

// The largest signal rate of the cells of `box` (cell_signal_rate, kernels/stencil.hpp)
// into *max_bits. A thread walks its (x, y) column through kRateChunkZ planes, so that there
// are few blocks and few atomics (one per block).
constexpr int kRateChunkZ = 32;
inline dim3 rate_blocks(const Box& box) {
  return dim3((box.hi[0] - box.lo[0] + 63) / 64, (box.hi[1] - box.lo[1] + 3) / 4,
              (box.hi[2] - box.lo[2] + kRateChunkZ - 1) / kRateChunkZ);
}
template <class Real, class L>
__global__ void signal_rate_kernel(Grid g, Box box, StateRef<Real, L> u, Real gamma, RateBits<Real>* max_bits) {
  const int i = box.lo[0] + static_cast<int>(blockIdx.x * blockDim.x + threadIdx.x);
  const int j = box.lo[1] + static_cast<int>(blockIdx.y * blockDim.y + threadIdx.y);
  const int k0 = box.lo[2] + static_cast<int>(blockIdx.z) * kRateChunkZ, k1 = min(k0 + kRateChunkZ, box.hi[2]);
  const RateScale<Real> scale = rate_scale<Real>(g);
  Real most = 0;
  if (i < box.hi[0] && j < box.hi[1])
    for (int k = k0; k < k1; ++k) {
      const Real rate = cell_signal_rate(u, g.index(i, j, k), gamma, scale);
      if (rate > most) most = rate;
    }
  block_max_into<Real, 64 * 4>(max_bits, most);
}

// This block's cells' part of the state's checksum (kernels/checksum.hpp), added into *sum
// (an integer sum modulo 2^64: the same in any order). Launched as signal_rate_kernel.
template <class Real, class L>
__global__ void checksum_kernel(Grid g, Box box, StateRef<Real, L> u, unsigned long long* sum) {
  __shared__ unsigned long long part[64 * 4];
  const int i = box.lo[0] + static_cast<int>(blockIdx.x * blockDim.x + threadIdx.x);
  const int j = box.lo[1] + static_cast<int>(blockIdx.y * blockDim.y + threadIdx.y);
  const int k0 = box.lo[2] + static_cast<int>(blockIdx.z) * kRateChunkZ, k1 = min(k0 + kRateChunkZ, box.hi[2]);
  unsigned long long mine = 0;
  if (i < box.hi[0] && j < box.hi[1])
    for (int k = k0; k < k1; ++k) {
      const std::size_t c = g.index(i, j, k);
      const std::uint64_t cell = global_cell(g, i, j, k);
      for (int v = 0; v < kNumVars; ++v) mine += checksum_term(static_cast<double>(u(v, c)), cell, v);
    }
  const int t = threadIdx.x + blockDim.x * threadIdx.y;
  part[t] = mine;
  __syncthreads();
  for (int s = 64 * 4 / 2; s > 0; s /= 2) {
    if (t < s) part[t] += part[t + s];
    __syncthreads();
  }
  if (t == 0) atomicAdd(sum, part[0]);
}

// One conserved variable of every interior cell, in interior order, for a device sum.
template <class Real, class L>
__global__ void gather_kernel(Grid g, Box box, StateRef<Real, L> u, int var, Real* out) {
  int i, j, k;
  if (!box.cell(i, j, k)) return;
  out[interior_index(box, i, j, k)] = u(var, g.index(i, j, k));
}

}  // namespace halocline::hip
