// Memory of the HIP backend: device or managed arrays, pinned or pageable host buffers,
// and the one wrapper every host-device copy goes through (so each is counted).
#pragma once

#include <cstdlib>
#include <cstring>
#include <string>

#include "kernels/contract/backend.hpp"
#include "kernels/contract/strategy.hpp"
#include "kernels/contract/transfers.hpp"
#include "kernels/hip/runtime.hpp"

namespace halocline::hip {

// Thrown when the device (or host) cannot hold what a run needs; exit code 2.
struct OutOfMemory : ResourceError {
  using ResourceError::ResourceError;
};

inline std::string gib(std::size_t bytes) {
  return std::to_string(static_cast<double>(bytes) / (1u << 30)).substr(0, 6) + " GiB";
}

// Refuses, before any allocation, a run whose device (or managed) memory would not fit in
// what the device has free: never ask for more managed memory than the device has.
inline void check_fits(std::size_t needed, const char* what) {
  std::size_t free_bytes = 0, total = 0;
  HIP_CHECK(hipMemGetInfo(&free_bytes, &total));
  if (needed > free_bytes)
    throw OutOfMemory(std::string(what) + " needs " + std::to_string(needed) + " bytes (" + gib(needed) +
                          ") of device memory; the device has " + std::to_string(free_bytes) + " bytes (" +
                          gib(free_bytes) + ") free of " + gib(total),
                      free_bytes);
}

// An array in device memory (hipMalloc) or managed memory (hipMallocManaged).
class DeviceArray {
 public:
  DeviceArray() = default;
  DeviceArray(std::size_t bytes, bool managed) : bytes_(bytes), managed_(managed) {
    if (bytes == 0) return;
    const hipError_t status = managed ? hipMallocManaged(&ptr_, bytes, hipMemAttachGlobal) : hipMalloc(&ptr_, bytes);
    if (status == hipErrorOutOfMemory) refuse_out_of_memory(bytes);
    HIP_CHECK(status);
  }
  DeviceArray(DeviceArray&& o) noexcept { swap(o); }
  DeviceArray& operator=(DeviceArray&& o) noexcept {
    swap(o);
    return *this;
  }
  DeviceArray(const DeviceArray&) = delete;
  DeviceArray& operator=(const DeviceArray&) = delete;
  ~DeviceArray() {
    if (ptr_) (void)hipFree(ptr_);
  }
  void* get() const { return ptr_; }
  std::size_t bytes() const { return bytes_; }
  bool managed() const { return managed_; }

 private:
  // The backend checks its whole footprint against the free memory before allocating
  // (check_fits), so there a failure here lost memory that was free then: another process on
  // the device took it (the probe's arrays, sized by the free memory, alike). Refused as the
  // check refuses (exit code 2, one line), with no grid advised: what is free keeps changing.
  [[noreturn]] static void refuse_out_of_memory(std::size_t bytes) {
    (void)hipGetLastError();  // clear the error
    std::size_t free_bytes = 0, total = 0;
    (void)hipMemGetInfo(&free_bytes, &total);
    throw OutOfMemory("allocating " + std::to_string(bytes) + " bytes (" + gib(bytes) +
                      ") of device memory failed; the device has " + std::to_string(free_bytes) + " bytes (" +
                      gib(free_bytes) + ") free of " + gib(total) + " now: another process may be using it");
  }
  void swap(DeviceArray& o) noexcept {
    std::swap(ptr_, o.ptr_);
    std::swap(bytes_, o.bytes_);
    std::swap(managed_, o.managed_);
  }
  void* ptr_ = nullptr;
  std::size_t bytes_ = 0;
  bool managed_ = false;
};

// A host buffer for transfers: page-locked (hipHostMalloc), which the DMA engines read
// directly, or pageable (malloc), which the runtime must stage through its own pinned
// buffers.
class HostBuffer {
 public:
  HostBuffer() = default;
  HostBuffer(std::size_t bytes, HostMemory kind) : bytes_(bytes), kind_(kind) {
    if (bytes == 0) return;
    if (kind == HostMemory::Pinned) {
      HIP_CHECK(hipHostMalloc(&ptr_, bytes, hipHostMallocDefault));
    } else {
      ptr_ = std::malloc(bytes);
      if (!ptr_) throw OutOfMemory("cannot allocate " + std::to_string(bytes) + " bytes of host memory");
    }
    // Touch every page now, so first-touch page faults are not timed as transfers.
    std::memset(ptr_, 0, bytes);
  }
  HostBuffer(HostBuffer&& o) noexcept { swap(o); }
  HostBuffer& operator=(HostBuffer&& o) noexcept {
    swap(o);
    return *this;
  }
  HostBuffer(const HostBuffer&) = delete;
  HostBuffer& operator=(const HostBuffer&) = delete;
  ~HostBuffer() {
    if (!ptr_) return;
    if (kind_ == HostMemory::Pinned)
      (void)hipHostFree(ptr_);
    else
      std::free(ptr_);
  }
  void* get() const { return ptr_; }
  std::size_t bytes() const { return bytes_; }
  HostKind kind() const { return kind_ == HostMemory::Pinned ? HostKind::Pinned : HostKind::Pageable; }

 private:
  void swap(HostBuffer& o) noexcept {
    std::swap(ptr_, o.ptr_);
    std::swap(bytes_, o.bytes_);
    std::swap(kind_, o.kind_);
  }
  void* ptr_ = nullptr;
  std::size_t bytes_ = 0;
  HostMemory kind_ = HostMemory::Pinned;
};

// The only place the HIP backend copies between host and device: every copy is counted
// in the log by direction, host-memory kind and purpose.
class Copier {
 public:
  explicit Copier(TransferLog& log) : log_(log) {}

  void to_device(void* device, const HostBuffer& host, std::size_t bytes, Purpose purpose, hipStream_t stream) {
    HIP_CHECK(hipMemcpyAsync(device, host.get(), bytes, hipMemcpyHostToDevice, stream));
    log_.add(Direction::HostToDevice, host.kind(), purpose, bytes);
  }
  void to_host(HostBuffer& host, const void* device, std::size_t bytes, Purpose purpose, hipStream_t stream) {
    HIP_CHECK(hipMemcpyAsync(host.get(), device, bytes, hipMemcpyDeviceToHost, stream));
    log_.add(Direction::DeviceToHost, host.kind(), purpose, bytes);
  }
  // A few bytes of results (a reduction's value) into ordinary host memory.
  void result_to_host(void* host, const void* device, std::size_t bytes, Purpose purpose, hipStream_t stream) {
    HIP_CHECK(hipMemcpyAsync(host, device, bytes, hipMemcpyDeviceToHost, stream));
    log_.add(Direction::DeviceToHost, HostKind::Pageable, purpose, bytes);
  }
  // A few bytes of a result back to the device (a reduction's value after MPI).
  void result_to_device(void* device, const void* host, std::size_t bytes, Purpose purpose, hipStream_t stream) {
    HIP_CHECK(hipMemcpyAsync(device, host, bytes, hipMemcpyHostToDevice, stream));
    log_.add(Direction::HostToDevice, HostKind::Pageable, purpose, bytes);
  }
  // Managed memory: migrate to the device or, with device = hipCpuDeviceId, to the host.
  void prefetch(const DeviceArray& array, int device, Purpose purpose, hipStream_t stream) {
    HIP_CHECK(hipMemPrefetchAsync(array.get(), array.bytes(), device, stream));
    log_.add(device == hipCpuDeviceId ? Direction::DeviceToHost : Direction::HostToDevice, HostKind::Managed, purpose,
             array.bytes());
  }

 private:
  TransferLog& log_;
};

}  // namespace halocline::hip
