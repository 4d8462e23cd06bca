// The HIP runtime, on AMD and on NVIDIA.
//
// The HIP backend is written against the HIP API. On AMD it is HIP itself. On NVIDIA,
// HIP's own nvidia headers do not compile against CUDA 13, so hip_nvidia.hpp maps the HIP
// names this project uses onto the CUDA runtime (HALOCLINE_HIP_NVIDIA is set by CMake when
// the backend is compiled with nvcc).
#pragma once

#include <stdexcept>
#include <string>

#if defined(HALOCLINE_HIP_NVIDIA)
#include "kernels/hip/hip_nvidia.hpp"
#else
#include <hip/hip_runtime.h>
#endif

namespace halocline::hip {

// Every runtime call is checked; a failure becomes an exception naming the call and place.
inline void check(hipError_t status, const char* call, const char* file, int line) {
  if (status != hipSuccess)
    throw std::runtime_error(std::string("HIP error '") + hipGetErrorString(status) + "' in " + call + " at " + file +
                             ":" + std::to_string(line));
}

}  // namespace halocline::hip

#define HIP_CHECK(call) ::halocline::hip::check((call), #call, __FILE__, __LINE__)
// After a kernel launch: launch errors are reported by hipGetLastError.
#define HIP_CHECK_LAUNCH() HIP_CHECK(hipGetLastError())
