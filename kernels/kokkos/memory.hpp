// Where the Kokkos backend keeps its arrays, chosen at run time by the owner model and the
// host memory kind (kernels/contract/strategy.hpp), and the copies between them.
//
//   Device    the execution space's own memory (CudaSpace, HIPSpace; host memory on a CPU)
//   Managed   memory both sides touch, migrated by pages (Kokkos::SharedSpace: CudaUVMSpace)
//   Pinned    page-locked host memory the GPU's copy engines reach by DMA
//             (Kokkos::SharedHostPinnedSpace: CudaHostPinnedSpace)
//   Pageable  ordinary host memory (Kokkos::HostSpace)
//
// Arrays are raw allocations of the matching memory space (Kokkos::kokkos_malloc), not
// Views: the kernels reach them through the layout accessors (layouts/), and one array type
// serves every owner model. Copies go through unmanaged Views, so Kokkos picks the copy
// (cudaMemcpyAsync on the instance's stream on a GPU).
#pragma once

#include <Kokkos_Core.hpp>
#include <cstddef>
#include <string>
#include <utility>

#include "kernels/contract/transfers.hpp"
#include "kernels/kokkos/policies.hpp"

namespace halocline::kokkos {

enum class Where { Device, Managed, Pinned, Pageable };

#if defined(KOKKOS_HAS_SHARED_SPACE)
using ManagedSpace = Kokkos::SharedSpace;
#else
using ManagedSpace = Exec::memory_space;  // Kokkos 3: no portable name; host builds only
#endif
#if defined(KOKKOS_HAS_SHARED_HOST_PINNED_SPACE)
using PinnedSpace = Kokkos::SharedHostPinnedSpace;
#else
using PinnedSpace = Kokkos::HostSpace;
#endif

// Host memory (pinned or pageable): the side of a copy that the host reads.
inline bool on_host(Where w) { return w == Where::Pinned || w == Where::Pageable; }

// How the transfer log names the host side of a copy.
inline HostKind host_kind(Where w) {
  return w == Where::Pinned ? HostKind::Pinned : w == Where::Managed ? HostKind::Managed : HostKind::Pageable;
}

// One allocation, freed with its space's deallocator; movable, not copyable.
class Buffer {
 public:
  Buffer() = default;
  Buffer(const std::string& label, std::size_t bytes, Where where) : bytes_(bytes), where_(where) {
    if (bytes == 0) return;
    switch (where) {
      case Where::Device: data_ = Kokkos::kokkos_malloc<Exec::memory_space>(label, bytes); break;
      case Where::Managed: data_ = Kokkos::kokkos_malloc<ManagedSpace>(label, bytes); break;
      case Where::Pinned: data_ = Kokkos::kokkos_malloc<PinnedSpace>(label, bytes); break;
      case Where::Pageable: data_ = Kokkos::kokkos_malloc<Kokkos::HostSpace>(label, bytes); break;
    }
  }
  ~Buffer() { release(); }
  Buffer(Buffer&& o) noexcept { *this = std::move(o); }
  Buffer& operator=(Buffer&& o) noexcept {
    if (this != &o) {
      release();
      data_ = std::exchange(o.data_, nullptr);
      bytes_ = std::exchange(o.bytes_, 0);
      where_ = o.where_;
    }
    return *this;
  }
  Buffer(const Buffer&) = delete;
  Buffer& operator=(const Buffer&) = delete;

  void* get() const { return data_; }
  std::size_t bytes() const { return bytes_; }
  Where where() const { return where_; }

 private:
  void release() {
    if (!data_) return;
    switch (where_) {
      case Where::Device: Kokkos::kokkos_free<Exec::memory_space>(data_); break;
      case Where::Managed: Kokkos::kokkos_free<ManagedSpace>(data_); break;
      case Where::Pinned: Kokkos::kokkos_free<PinnedSpace>(data_); break;
      case Where::Pageable: Kokkos::kokkos_free<Kokkos::HostSpace>(data_); break;
    }
    data_ = nullptr;
  }

  void* data_ = nullptr;
  std::size_t bytes_ = 0;
  Where where_ = Where::Device;
};

// Copies `bytes` from src to dst on instance `exec` (asynchronous where the runtime allows;
// fence the instance before reading the result on the host). Managed memory counts as
// the device's side: the copy engines reach it like device memory.
inline void copy_bytes(const Exec& exec, void* dst, Where dst_where, const void* src, Where src_where,
                       std::size_t bytes) {
  using Unmanaged = Kokkos::MemoryTraits<Kokkos::Unmanaged>;
  using HostBytes = Kokkos::View<char*, Kokkos::HostSpace, Unmanaged>;
  using DeviceBytes = Kokkos::View<char*, Exec::memory_space, Unmanaged>;
  using ConstHostBytes = Kokkos::View<const char*, Kokkos::HostSpace, Unmanaged>;
  using ConstDeviceBytes = Kokkos::View<const char*, Exec::memory_space, Unmanaged>;
  char* d = static_cast<char*>(dst);
  const char* s = static_cast<const char*>(src);
  if (on_host(dst_where) && on_host(src_where))
    Kokkos::deep_copy(exec, HostBytes(d, bytes), ConstHostBytes(s, bytes));
  else if (on_host(dst_where))
    Kokkos::deep_copy(exec, HostBytes(d, bytes), ConstDeviceBytes(s, bytes));
  else if (on_host(src_where))
    Kokkos::deep_copy(exec, DeviceBytes(d, bytes), ConstHostBytes(s, bytes));
  else
    Kokkos::deep_copy(exec, DeviceBytes(d, bytes), ConstDeviceBytes(s, bytes));
}

}  // namespace halocline::kokkos
