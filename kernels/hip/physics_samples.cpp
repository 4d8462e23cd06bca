// The physics functions at a test's chosen inputs, in device code (kernels/physics_samples.hpp):
// a thread a sample, on the current GPU.
#include <vector>

#include "kernels/hip/hip_backend.hpp"
#include "kernels/hip/memory.hpp"
#include "kernels/hip/runtime.hpp"
#include "kernels/physics_samples.hpp"

namespace halocline {

namespace {

template <class Real>
__global__ void samples_kernel(PhysicsSample<Real>* samples, std::size_t n, IdealGas<Real> gas) {
  const std::size_t i = static_cast<std::size_t>(blockIdx.x) * blockDim.x + threadIdx.x;
  if (i < n) evaluate_sample(samples[i], gas);
}

template <class Real>
void evaluate_on_device(std::vector<PhysicsSample<Real>>& samples, Real gamma) {
  const std::size_t n = samples.size(), bytes = n * sizeof(PhysicsSample<Real>);
  if (n == 0) return;
  hip::DeviceArray on_device(bytes, false);
  auto* device_samples = static_cast<PhysicsSample<Real>*>(on_device.get());
  HIP_CHECK(hipMemcpy(device_samples, samples.data(), bytes, hipMemcpyHostToDevice));
  const unsigned threads = 128, blocks = static_cast<unsigned>((n + threads - 1) / threads);
  samples_kernel<Real><<<blocks, threads>>>(device_samples, n, IdealGas<Real>(gamma));
  HIP_CHECK_LAUNCH();
  HIP_CHECK(hipMemcpy(samples.data(), device_samples, bytes, hipMemcpyDeviceToHost));
}

}  // namespace

void evaluate_samples_hip(std::vector<PhysicsSample<double>>& samples, double gamma) {
  evaluate_on_device(samples, gamma);
}
void evaluate_samples_hip(std::vector<PhysicsSample<float>>& samples, float gamma) {
  evaluate_on_device(samples, gamma);
}

}  // namespace halocline
