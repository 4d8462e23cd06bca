// Host/device annotations for the physics functions.
//
// The physics is written once, as inline functions that every backend calls from its own
// kernels: Kokkos (any execution space) and native HIP. Under nvcc or hipcc the
// functions must be callable from device code; under a plain C++ compiler the
// annotations vanish. This header must not include Kokkos or HIP, so that each backend
// can use the physics without the others.
#pragma once

#if defined(__CUDACC__) || defined(__HIPCC__)
#define HC_HOST_DEVICE __host__ __device__
#else
#define HC_HOST_DEVICE
#endif

#define HC_INLINE HC_HOST_DEVICE inline

// A small function (HC_HOT_INLINE) or lambda (HC_HOT_LAMBDA, after its parameters) on the
// stencils' hot path, inlined by a host compiler whatever its size budget for the caller says:
// GCC 12 left face_state out of line in the fused march's fp32 body under Debian's Kokkos 3.4
// and, forced to inline it, outlined the face's body instead in fp64; with both forced the
// host's fused stage ran 26% faster in fp32 and 5% in fp64, split 5-11% (docs/performance.md).
// GPU compilers inline them anyway.
#if defined(__GNUC__) && !defined(__CUDACC__) && !defined(__HIPCC__)
#define HC_HOT_INLINE inline __attribute__((always_inline))
#define HC_HOT_LAMBDA __attribute__((always_inline))
#else
#define HC_HOT_INLINE HC_INLINE
#define HC_HOT_LAMBDA
#endif

// Before a loop: keep it rolled in device code (nvcc and hipcc unroll short loops with a
// known trip count, which in the fused stage spilled registers); nothing on the host.
#if defined(__CUDA_ARCH__) || defined(__HIP_DEVICE_COMPILE__)
#define HC_KEEP_ROLLED _Pragma("unroll 1")
#else
#define HC_KEEP_ROLLED
#endif

namespace halocline {

// The bits of `from` as a To of the same size (std::bit_cast is C++20). __builtin_memcpy,
// which GCC, Clang (HIP device code included) and nvcc all know: std::memcpy is a host
// function to hipcc's device compiler.
template <class To, class From>
HC_INLINE To bit_cast(const From& from) {
  static_assert(sizeof(To) == sizeof(From), "the same size");
  To to;
  __builtin_memcpy(&to, &from, sizeof to);
  return to;
}

}  // namespace halocline
