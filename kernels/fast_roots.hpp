// Square roots and reciprocals of floats for a face flux on an NVIDIA GPU: the hardware's
// approximation and one correction, as nvcc's own sqrtf and 1 / x take them for most inputs,
// but without the branch that nvcc puts around each (to a slow path for the inputs outside that
// range). Each call ANDs whether its input is in the range where it gives IEEE's bits into a
// flag; a caller makes a whole result with them and, where any input was outside, makes it
// again with IEEE's (kernels/hydro.hpp's with_fast_roots): one test for a face's seven roots and reciprocals instead
// of a branch around each. The fused stage in fp32 is bound by instruction issue
// (docs/performance.md). That the fast forms give IEEE's bits on the whole of their ranges is
// checked on the GPU for every float (tools/gpu/fast_roots_check.cpp), on Hopper (sm_90), the one
// architecture that takes them. Elsewhere (the host, AMD, other NVIDIA architectures, fp64, a
// counting scalar) the roots are IEEE's: square_root and 1 / x.
#pragma once

#include "base/portability.hpp"

namespace halocline {

#if defined(__CUDACC__)  // nvcc, both passes (the roots are device code)
// On an NVIDIA GPU in fp32: the approximations and their corrections, and whether every input
// so far was in the range where they give IEEE's bits.
struct FastFloatRoots {
  static constexpr bool kFast = true;
  bool in_range = true;
  // sqrt: x in [2^-101, the largest float] (nvcc's own test for its fast path); the reciprocal
  // square root's approximation r, then s = x r corrected by (x - s^2) r / 2.
  __device__ float sqrt(float x) {
    in_range &= __float_as_uint(x) - 0x0d000000u <= 0x727fffffu;
    float r;
    asm("rsqrt.approx.ftz.f32 %0, %1;" : "=f"(r) : "f"(x));
    const float s = __fmul_rn(x, r), half_r = __fmul_rn(0.5f, r);
    return __fmaf_rn(__fmaf_rn(-s, s, x), half_r, s);
  }
  // 1 / x: |x| in [2^-125, 2^126) (the result a normal float); the approximation r corrected
  // by r (1 - x r).
  __device__ float reciprocal(float x) {
    in_range &= ((__float_as_uint(x) >> 23) & 0xffu) - 2u <= 250u;
    float r;
    asm("rcp.approx.ftz.f32 %0, %1;" : "=f"(r) : "f"(x));
    return __fmaf_rn(r, __fmaf_rn(-x, r, 1.0f), r);
  }
};
#endif

}  // namespace halocline
