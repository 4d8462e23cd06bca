// What the runtime says about a GPU, for `halocline info` and every report: used by the
// native HIP backend and by the Kokkos backend when Kokkos runs on CUDA or HIP.
#pragma once

#include <cstddef>
#include <string>

#include "kernels/contract/backend.hpp"
#include "kernels/hip/runtime.hpp"

namespace halocline::hip {

inline DeviceInfo describe_device(int device) {
  hipDeviceProp_t prop;
  HIP_CHECK(hipGetDeviceProperties(&prop, device));
  int runtime = 0, driver = 0;
  HIP_CHECK(hipRuntimeGetVersion(&runtime));
  HIP_CHECK(hipDriverGetVersion(&driver));
  DeviceInfo info;
  info.kind = "gpu";
  info.name = prop.name;
  info.memory_bytes = prop.totalGlobalMem;
  info.compute_units = prop.multiProcessorCount;
  HIP_CHECK(hipGetDeviceCount(&info.devices_visible));
  info.device_index = device;
#if defined(HALOCLINE_HIP_NVIDIA)
  auto cuda_version = [](int v) { return std::to_string(v / 1000) + "." + std::to_string(v % 1000 / 10); };
  info.runtime_version = "CUDA runtime " + cuda_version(runtime);
  info.driver_version = "CUDA driver API " + cuda_version(driver);
#else
  info.runtime_version = "HIP runtime " + std::to_string(runtime);
  info.driver_version = "HIP driver " + std::to_string(driver);
#endif
  int value = 0;
  if (hipDeviceGetAttribute(&value, hipDeviceAttributeClockRate, device) == hipSuccess) info.clock_khz = value;
  if (hipDeviceGetAttribute(&value, hipDeviceAttributeMemoryClockRate, device) == hipSuccess)
    info.memory_clock_khz = value;
  if (hipDeviceGetAttribute(&value, hipDeviceAttributeMemoryBusWidth, device) == hipSuccess)
    info.memory_bus_bits = value;
  if (hipDeviceGetAttribute(&value, hipDeviceAttributeL2CacheSize, device) == hipSuccess)
    info.cache_bytes = static_cast<std::size_t>(value);
  char bus[32] = {};
  if (hipDeviceGetPCIBusId(bus, sizeof bus, device) == hipSuccess) info.pci_bus_id = bus;
  (void)hipGetLastError();  // an attribute this runtime lacks is not an error of the run
  return info;
}

}  // namespace halocline::hip
