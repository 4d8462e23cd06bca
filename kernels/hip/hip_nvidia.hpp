// The HIP runtime names Halocline uses, mapped onto the CUDA runtime (CUDA 12 and 13).
//
// Only what the HIP backend calls is here, each mapped by hand and checked against the
// CUDA 13 runtime API: HIP's own nvidia headers (up to ROCm 6.3) no longer compile against
// CUDA 13 (cudaMemLocation in the prefetch API, removed cudaDeviceProp fields, graph API
// changes). Kernels launch with the <<<grid, block, shared, stream>>> syntax both share.
#pragma once

#include <cuda_runtime.h>

#include <cstddef>

using hipError_t = cudaError_t;
using hipStream_t = cudaStream_t;
using hipEvent_t = cudaEvent_t;
using hipDeviceProp_t = cudaDeviceProp;
using hipMemcpyKind = cudaMemcpyKind;

constexpr hipError_t hipSuccess = cudaSuccess;
constexpr hipError_t hipErrorNotReady = cudaErrorNotReady;
constexpr hipError_t hipErrorNoDevice = cudaErrorNoDevice;
constexpr hipError_t hipErrorOutOfMemory = cudaErrorMemoryAllocation;
constexpr hipMemcpyKind hipMemcpyHostToDevice = cudaMemcpyHostToDevice;
constexpr hipMemcpyKind hipMemcpyDeviceToHost = cudaMemcpyDeviceToHost;
constexpr hipMemcpyKind hipMemcpyDeviceToDevice = cudaMemcpyDeviceToDevice;
constexpr unsigned hipStreamNonBlocking = cudaStreamNonBlocking;
constexpr unsigned hipEventDefault = cudaEventDefault;
constexpr unsigned hipEventDisableTiming = cudaEventDisableTiming;
constexpr unsigned hipHostMallocDefault = cudaHostAllocDefault;
constexpr unsigned hipHostMallocMapped = cudaHostAllocMapped;
constexpr unsigned hipMemAttachGlobal = cudaMemAttachGlobal;
constexpr int hipCpuDeviceId = cudaCpuDeviceId;

inline const char* hipGetErrorString(hipError_t e) { return cudaGetErrorString(e); }
inline hipError_t hipGetLastError() { return cudaGetLastError(); }

// Devices.
inline hipError_t hipGetDeviceCount(int* n) { return cudaGetDeviceCount(n); }
inline hipError_t hipSetDevice(int d) { return cudaSetDevice(d); }
inline hipError_t hipGetDevice(int* d) { return cudaGetDevice(d); }
inline hipError_t hipGetDeviceProperties(hipDeviceProp_t* p, int d) { return cudaGetDeviceProperties(p, d); }
inline hipError_t hipDeviceSynchronize() { return cudaDeviceSynchronize(); }

// Kernels: dynamic shared memory beyond the default 48 KiB must be allowed per kernel.
using hipFuncAttribute = cudaFuncAttribute;
constexpr hipFuncAttribute hipFuncAttributeMaxDynamicSharedMemorySize = cudaFuncAttributeMaxDynamicSharedMemorySize;
inline hipError_t hipFuncSetAttribute(const void* kernel, hipFuncAttribute attr, int value) {
  return cudaFuncSetAttribute(kernel, attr, value);
}
inline hipError_t hipRuntimeGetVersion(int* v) { return cudaRuntimeGetVersion(v); }
inline hipError_t hipDriverGetVersion(int* v) { return cudaDriverGetVersion(v); }
inline hipError_t hipMemGetInfo(std::size_t* free_bytes, std::size_t* total) {
  return cudaMemGetInfo(free_bytes, total);
}
inline hipError_t hipDeviceGetPCIBusId(char* id, int length, int d) { return cudaDeviceGetPCIBusId(id, length, d); }
// The attributes halocline info reports (CUDA 13 removed the clock fields of cudaDeviceProp).
using hipDeviceAttribute_t = cudaDeviceAttr;
constexpr hipDeviceAttribute_t hipDeviceAttributeClockRate = cudaDevAttrClockRate;
constexpr hipDeviceAttribute_t hipDeviceAttributeMemoryClockRate = cudaDevAttrMemoryClockRate;
constexpr hipDeviceAttribute_t hipDeviceAttributeMemoryBusWidth = cudaDevAttrGlobalMemoryBusWidth;
constexpr hipDeviceAttribute_t hipDeviceAttributeL2CacheSize = cudaDevAttrL2CacheSize;
inline hipError_t hipDeviceGetAttribute(int* value, hipDeviceAttribute_t a, int d) {
  return cudaDeviceGetAttribute(value, a, d);
}

// Memory.
inline hipError_t hipMalloc(void** p, std::size_t n) { return cudaMalloc(p, n); }
inline hipError_t hipFree(void* p) { return cudaFree(p); }
inline hipError_t hipMallocManaged(void** p, std::size_t n, unsigned flags = hipMemAttachGlobal) {
  return cudaMallocManaged(p, n, flags);
}
inline hipError_t hipHostMalloc(void** p, std::size_t n, unsigned flags = hipHostMallocDefault) {
  return cudaHostAlloc(p, n, flags);
}
inline hipError_t hipHostFree(void* p) { return cudaFreeHost(p); }
inline hipError_t hipHostGetDevicePointer(void** device, void* host, unsigned flags) {
  return cudaHostGetDevicePointer(device, host, flags);
}
inline hipError_t hipMemcpy(void* dst, const void* src, std::size_t n, hipMemcpyKind kind) {
  return cudaMemcpy(dst, src, n, kind);
}
inline hipError_t hipMemcpyAsync(void* dst, const void* src, std::size_t n, hipMemcpyKind kind, hipStream_t s) {
  return cudaMemcpyAsync(dst, src, n, kind, s);
}
inline hipError_t hipMemsetAsync(void* p, int value, std::size_t n, hipStream_t s) {
  return cudaMemsetAsync(p, value, n, s);
}
// CUDA 13 takes a cudaMemLocation and flags where HIP (and CUDA 12) take a device number,
// with hipCpuDeviceId meaning the host.
inline hipError_t hipMemPrefetchAsync(const void* p, std::size_t n, int device, hipStream_t s) {
#if CUDART_VERSION >= 13000
  cudaMemLocation where{};
  where.type = device == hipCpuDeviceId ? cudaMemLocationTypeHost : cudaMemLocationTypeDevice;
  where.id = device == hipCpuDeviceId ? 0 : device;
  return cudaMemPrefetchAsync(p, n, where, 0, s);
#else
  return cudaMemPrefetchAsync(p, n, device, s);
#endif
}

// Streams and events.
inline hipError_t hipStreamCreateWithFlags(hipStream_t* s, unsigned flags) {
  return cudaStreamCreateWithFlags(s, flags);
}
inline hipError_t hipStreamCreateWithPriority(hipStream_t* s, unsigned flags, int priority) {
  return cudaStreamCreateWithPriority(s, flags, priority);
}
inline hipError_t hipDeviceGetStreamPriorityRange(int* least, int* greatest) {
  return cudaDeviceGetStreamPriorityRange(least, greatest);
}
inline hipError_t hipStreamDestroy(hipStream_t s) { return cudaStreamDestroy(s); }
inline hipError_t hipStreamSynchronize(hipStream_t s) { return cudaStreamSynchronize(s); }
inline hipError_t hipStreamWaitEvent(hipStream_t s, hipEvent_t e, unsigned flags) {
  return cudaStreamWaitEvent(s, e, flags);
}
inline hipError_t hipEventCreateWithFlags(hipEvent_t* e, unsigned flags) { return cudaEventCreateWithFlags(e, flags); }
inline hipError_t hipEventDestroy(hipEvent_t e) { return cudaEventDestroy(e); }
inline hipError_t hipEventRecord(hipEvent_t e, hipStream_t s) { return cudaEventRecord(e, s); }
inline hipError_t hipEventSynchronize(hipEvent_t e) { return cudaEventSynchronize(e); }
inline hipError_t hipEventQuery(hipEvent_t e) { return cudaEventQuery(e); }
inline hipError_t hipEventElapsedTime(float* ms, hipEvent_t a, hipEvent_t b) { return cudaEventElapsedTime(ms, a, b); }
