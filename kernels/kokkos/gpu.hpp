// What Kokkos has no portable name for, on a GPU build of Kokkos: execution-space instances
// on streams of a chosen priority, device events for the phase timers, managed-memory
// prefetches and the device's description. Written with the HIP runtime calls of
// kernels/hip/, the same the native backend makes: on Kokkos' HIP backend (AMD) as they are,
// on its CUDA backend through kernels/hip/hip_nvidia.hpp's mapping. On the host execution
// spaces there is nothing to do: default instances, a host clock, no prefetch.
#pragma once

#include <Kokkos_Core.hpp>
#include <memory>
#include <type_traits>

#include "kernels/contract/backend.hpp"
#include "kernels/contract/phase_clock.hpp"
#include "kernels/kokkos/memory.hpp"
#include "kernels/kokkos/policies.hpp"
#if defined(KOKKOS_ENABLE_CUDA) || defined(KOKKOS_ENABLE_HIP)
#define HALOCLINE_KOKKOS_GPU 1
#include "kernels/hip/device_info.hpp"
#include "kernels/hip/event_clock.hpp"
#include "kernels/hip/memory.hpp"
#endif

namespace halocline::kokkos {

// The stream and the device of an instance, by the name each GPU backend of Kokkos gives them.
#if defined(KOKKOS_ENABLE_CUDA)
static_assert(std::is_same_v<Exec, Kokkos::Cuda>, "a CUDA build of Kokkos runs the backend on Kokkos::Cuda");
inline hipStream_t stream_of(const Exec& exec) { return exec.cuda_stream(); }
inline int device_of(const Exec& exec) { return exec.cuda_device(); }
#elif defined(KOKKOS_ENABLE_HIP)
static_assert(std::is_same_v<Exec, Kokkos::HIP>, "a HIP build of Kokkos runs the backend on Kokkos::HIP");
inline hipStream_t stream_of(const Exec& exec) { return exec.hip_stream(); }
inline int device_of(const Exec& exec) { return exec.hip_device(); }
#endif

// The compute and halo instances. On CUDA each has a stream of its own and the halo stream
// the highest priority, as in the native backend: its short pack and unpack kernels then run
// as soon as blocks of the long interior kernels retire, instead of queueing behind them.
class Instances {
 public:
  Instances() {
#if defined(HALOCLINE_KOKKOS_GPU)
    int least = 0, greatest = 0;
    HIP_CHECK(hipDeviceGetStreamPriorityRange(&least, &greatest));
    HIP_CHECK(hipStreamCreateWithPriority(&streams_[0], hipStreamNonBlocking, least));
    HIP_CHECK(hipStreamCreateWithPriority(&streams_[1], hipStreamNonBlocking, greatest));
    compute = Exec(streams_[0]);
    halo = Exec(streams_[1]);
#endif
  }
  ~Instances() {
#if defined(HALOCLINE_KOKKOS_GPU)
    compute.fence();
    halo.fence();
    compute = Exec();  // the instances let go of the streams before they are destroyed
    halo = Exec();
    for (hipStream_t s : streams_) (void)hipStreamDestroy(s);
#endif
  }
  Instances(const Instances&) = delete;
  Instances& operator=(const Instances&) = delete;

  Exec compute, halo;

 private:
#if defined(HALOCLINE_KOKKOS_GPU)
  hipStream_t streams_[2] = {nullptr, nullptr};
#endif
};

// Work submitted to one instance from now on waits for the work submitted to another so
// far, and the host does not wait: an event recorded on one stream and waited for on the
// other on a GPU; a fence on the host execution spaces.
class StreamOrder {
 public:
  StreamOrder() {
#if defined(HALOCLINE_KOKKOS_GPU)
    HIP_CHECK(hipEventCreateWithFlags(&event_, hipEventDisableTiming));
#endif
  }
  ~StreamOrder() {
#if defined(HALOCLINE_KOKKOS_GPU)
    (void)hipEventDestroy(event_);
#endif
  }
  StreamOrder(const StreamOrder&) = delete;
  StreamOrder& operator=(const StreamOrder&) = delete;

  void after(const Exec& later, const Exec& earlier) {
#if defined(HALOCLINE_KOKKOS_GPU)
    HIP_CHECK(hipEventRecord(event_, stream_of(earlier)));
    HIP_CHECK(hipStreamWaitEvent(stream_of(later), event_, 0));
#else
    (void)later;
    earlier.fence();
#endif
  }

 private:
#if defined(HALOCLINE_KOKKOS_GPU)
  hipEvent_t event_ = nullptr;
#endif
};

// The phase timers' clock for instance `exec`: device events on its stream on a GPU (no
// synchronization inside a step), the host clock after a fence of the instance elsewhere.
inline std::unique_ptr<PhaseClock> make_clock_for(const Exec& exec) {
#if defined(HALOCLINE_KOKKOS_GPU)
  return std::make_unique<hip::EventClock>(stream_of(exec));
#else
  return std::make_unique<HostClock>([exec] { exec.fence(); });
#endif
}

// Moves the pages of a managed array to the device (to_device) or to the host on `exec`'s
// stream, so that the side about to touch them does not take page faults. False where there
// is nothing to move (host execution spaces).
inline bool prefetch(const Exec& exec, const Buffer& b, bool to_device) {
#if defined(HALOCLINE_KOKKOS_GPU)
  if (b.where() != Where::Managed || b.bytes() == 0) return false;
  HIP_CHECK(hipMemPrefetchAsync(b.get(), b.bytes(), to_device ? device_of(exec) : hipCpuDeviceId, stream_of(exec)));
  return true;
#else
  (void)exec, (void)b, (void)to_device;
  return false;
#endif
}

// Refuses, before allocating, arrays that would not fit in the GPU's free memory: one clear
// line and exit code 2 (ResourceError) rather than an allocation failure inside Kokkos.
inline void check_device_fits(std::size_t needed, const char* what) {
#if defined(HALOCLINE_KOKKOS_GPU)
  hip::check_fits(needed, what);
#else
  (void)needed, (void)what;
#endif
}

// The GPU Kokkos runs on, as the runtime describes it (kind "gpu"); on the host execution
// spaces kind stays empty and the caller describes the CPU.
inline DeviceInfo gpu_info() {
#if defined(HALOCLINE_KOKKOS_GPU)
  return hip::describe_device(device_of(Exec()));
#else
  return {};
#endif
}

}  // namespace halocline::kokkos
