// Device-wide reductions behind one small interface: CUB on NVIDIA, rocPRIM on AMD.
// Used for the maximum signal rate (the time step) and the conservation sums. Both
// libraries reduce in a fixed order for a given size and device, so results repeat
// run to run.
#pragma once

#include <cstddef>

#include "kernels/hip/runtime.hpp"

#if defined(HALOCLINE_HIP_NVIDIA)
#include <cub/device/device_reduce.cuh>
#include <cuda/functional>
#else
#include <rocprim/rocprim.hpp>
#endif

namespace halocline::hip {

enum class ReduceOp { Max, Sum };

// Reduces n values at `in` into *out (both device pointers) on `stream`, keeping its
// temporary storage between calls.
template <class Real>
class DeviceReducer {
 public:
  DeviceReducer() = default;
  DeviceReducer(const DeviceReducer&) = delete;
  DeviceReducer& operator=(const DeviceReducer&) = delete;
  ~DeviceReducer() {
    if (temp_) (void)hipFree(temp_);
  }

  void reduce(ReduceOp op, const Real* in, Real* out, std::size_t n, hipStream_t stream) {
    std::size_t bytes = 0;
    HIP_CHECK(run(op, nullptr, bytes, in, out, n, stream));  // asks for the storage size
    if (bytes > bytes_) {
      if (temp_) HIP_CHECK(hipFree(temp_));
      HIP_CHECK(hipMalloc(&temp_, bytes));
      bytes_ = bytes;
    }
    HIP_CHECK(run(op, temp_, bytes, in, out, n, stream));
  }

 private:
  static hipError_t run(ReduceOp op, void* temp, std::size_t& bytes, const Real* in, Real* out, std::size_t n,
                        hipStream_t stream) {
#if defined(HALOCLINE_HIP_NVIDIA)
    // CCCL 3: cuda::maximum<> and cuda::std::plus<> (cub::Max and cub::Sum are gone).
    if (op == ReduceOp::Max)
      return cub::DeviceReduce::Reduce(temp, bytes, in, out, n, cuda::maximum<>{},
                                       -cuda::std::numeric_limits<Real>::infinity(), stream);
    return cub::DeviceReduce::Reduce(temp, bytes, in, out, n, cuda::std::plus<>{}, Real(0), stream);
#else
    if (op == ReduceOp::Max)
      return rocprim::reduce(temp, bytes, in, out, -std::numeric_limits<Real>::infinity(), n, rocprim::maximum<Real>(),
                             stream);
    return rocprim::reduce(temp, bytes, in, out, Real(0), n, rocprim::plus<Real>(), stream);
#endif
  }

  void* temp_ = nullptr;
  std::size_t bytes_ = 0;
};

}  // namespace halocline::hip
