// The time-step controller's own kernels (kernels/step_control.hpp), one thread each: the
// controller lives on the device, beside the state.
#pragma once

#include <type_traits>

#include "kernels/hip/runtime.hpp"
#include "kernels/step_control.hpp"

namespace halocline::hip {

// The largest signal rate of a pass over the cells, kept on the device as the bits of a Real:
// rates are never negative (+inf stands for a broken cell), and for such values the order of
// the bits as unsigned integers is the order of the values, so an integer atomic max gives
// the max exactly, whatever order the blocks finish in. 0 (the bits of +0) starts a pass.
template <class Real>
using RateBits = std::conditional_t<sizeof(Real) == 8, unsigned long long, unsigned int>;
template <class Real>
__host__ __device__ inline RateBits<Real> rate_bits(Real rate) {
  return bit_cast<RateBits<Real>>(rate);
}
template <class Real>
__host__ __device__ inline Real rate_of_bits(RateBits<Real> bits) {
  return bit_cast<Real>(bits);
}

// Folds each thread's largest rate into *max_bits: the block's max through shared memory
// (`part`, Threads Reals that no thread reads or writes meanwhile), then one atomic max per
// block. Every thread of the block (Threads of them) must call it.
template <class Real, int Threads>
__device__ void block_max_into(RateBits<Real>* max_bits, Real rate, Real* part) {
  const int t = threadIdx.x + blockDim.x * threadIdx.y;
  part[t] = rate;
  __syncthreads();
  int half = 1;  // half of Threads rounded up to a power of two: the tree then takes any count
  while (2 * half < Threads) half *= 2;
  for (int s = half; s > 0; s /= 2) {
    if (t < s && t + s < Threads && part[t + s] > part[t]) part[t] = part[t + s];
    __syncthreads();
  }
  if (t == 0) atomicMax(max_bits, rate_bits(part[0]));
}
// The same in a shared array of its own.
template <class Real, int Threads>
__device__ void block_max_into(RateBits<Real>* max_bits, Real rate) {
  __shared__ Real part[Threads];
  block_max_into<Real, Threads>(max_bits, rate, part);
}

// The controller's own kernels: one thread each. Planning takes the pass's max and starts
// the next pass at 0.
template <class Real>
__global__ void plan_step_kernel(StepControl* control, RateBits<Real>* max_bits, int array) {
  const Real rate = rate_of_bits<Real>(*max_bits);
  *max_bits = 0;
  plan_step(*control, static_cast<double>(rate), array);
}

// Finishes the step and publishes the controller into host-mapped memory, where the host
// reads it after this step's event, with no copy call.
static __global__ void finish_step_kernel(StepControl* control, StepControl* published) {
  finish_step(*control);
  *published = *control;
}

// Publishes the controller as plan_step left it, into the mapped slot a check at a stop reads.
static __global__ void publish_control_kernel(const StepControl* control, StepControl* published) {
  *published = *control;
}

static __global__ void set_stop_kernel(StepControl* control, double t_stop, long step_limit) {
  control->t_stop = t_stop;
  control->step_limit = step_limit;
}

}  // namespace halocline::hip
