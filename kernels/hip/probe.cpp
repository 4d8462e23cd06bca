// `halocline probe` with the HIP runtime: BabelStream's copy and triad kernels on arrays
// far past the last-level cache, host <-> device copies from pageable, pinned and managed
// memory by size (as bandwidthTest and rocm-bandwidth-test measure them), the cost of a
// kernel launch, the resolution of the event timer the phase timers use, and the arithmetic
// rates of fp64 and fp32 (kernels/rate_chains.hpp). Every figure
// is the best (bandwidth) or the median (latency) of several repetitions after warm-up,
// timed with device events.
#include <algorithm>
#include <chrono>
#include <vector>

#include "kernels/hip/hip_backend.hpp"
#include "kernels/hip/memory.hpp"
#include "kernels/hip/runtime.hpp"
#include "kernels/rate_chains.hpp"

namespace halocline {

namespace {

__global__ void copy_kernel(const double* __restrict__ a, double* __restrict__ c, std::size_t n) {
  const std::size_t i = static_cast<std::size_t>(blockIdx.x) * blockDim.x + threadIdx.x;
  if (i < n) c[i] = a[i];
}

__global__ void triad_kernel(double* __restrict__ a, const double* __restrict__ b, const double* __restrict__ c,
                             double scalar, std::size_t n) {
  const std::size_t i = static_cast<std::size_t>(blockIdx.x) * blockDim.x + threadIdx.x;
  if (i < n) a[i] = b[i] + scalar * c[i];
}

__global__ void fill_kernel(double* a, double value, std::size_t n) {
  const std::size_t i = static_cast<std::size_t>(blockIdx.x) * blockDim.x + threadIdx.x;
  if (i < n) a[i] = value;
}

__global__ void empty_kernel() {}

template <class Real, RateOp Op>
__global__ void rate_kernel(Real* sums, int iterations, Real factor, Real term) {
  const int i = static_cast<int>(blockIdx.x * blockDim.x + threadIdx.x);
  sums[i] = rate_chains<Real, Op>(i, iterations, factor, term);
}

// Two events around work on one stream.
class Stopwatch {
 public:
  explicit Stopwatch(hipStream_t stream) : stream_(stream) {
    HIP_CHECK(hipEventCreateWithFlags(&start_, hipEventDefault));
    HIP_CHECK(hipEventCreateWithFlags(&stop_, hipEventDefault));
  }
  ~Stopwatch() {
    (void)hipEventDestroy(start_);
    (void)hipEventDestroy(stop_);
  }
  void start() { HIP_CHECK(hipEventRecord(start_, stream_)); }
  double stop() {
    HIP_CHECK(hipEventRecord(stop_, stream_));
    HIP_CHECK(hipEventSynchronize(stop_));
    float ms = 0;
    HIP_CHECK(hipEventElapsedTime(&ms, start_, stop_));
    return 1e-3 * ms;
  }

 private:
  hipStream_t stream_;
  hipEvent_t start_ = nullptr, stop_ = nullptr;
};

double median(std::vector<double> v) {
  std::sort(v.begin(), v.end());
  const std::size_t n = v.size();
  return n == 0 ? 0.0 : n % 2 ? v[n / 2] : 0.5 * (v[n / 2 - 1] + v[n / 2]);
}

// Best and median seconds of `reps` runs of `work` after two warm-up runs.
template <class Work>
void time_kernel(Stopwatch& watch, int reps, Work work, double& best, double& med) {
  std::vector<double> t;
  for (int r = 0; r < reps + 2; ++r) {
    watch.start();
    work();
    const double s = watch.stop();
    if (r >= 2) t.push_back(s);
  }
  best = *std::min_element(t.begin(), t.end());
  med = median(t);
}

// Operations per second of Op in Real with 2048 threads on every SM or CU (a full device):
// the fastest of `reps` runs of a few ms each on an H200; the threads' sums are checked.
template <class Real, RateOp Op>
double rate_of(Stopwatch& watch, hipStream_t stream, int compute_units, int reps) {
  const unsigned threads = 256, blocks = 8 * static_cast<unsigned>(std::max(1, compute_units));
  const std::size_t n = std::size_t(blocks) * threads;
  const int iterations = Op == RateOp::Fma ? 8192 : 512;  // fp64 division and sqrt: ~16x a multiply-add
  const Real term = Real(Op == RateOp::Div ? kRateDivTerm : kRateTerm);
  hip::DeviceArray sums(n * sizeof(Real), false);
  Real* out = static_cast<Real*>(sums.get());
  double best = 0, med = 0;
  time_kernel(
      watch, reps,
      [&] { rate_kernel<Real, Op><<<blocks, threads, 0, stream>>>(out, iterations, Real(kRateFactor), term); }, best,
      med);
  HIP_CHECK_LAUNCH();
  std::vector<Real> host(n);
  HIP_CHECK(hipMemcpy(host.data(), out, n * sizeof(Real), hipMemcpyDeviceToHost));
  check_rate_sums(host.data(), n);
  return rate_operations<Real>(static_cast<long>(n), iterations) / best;
}

template <class Real>
ArithmeticRates rates_of(Stopwatch& watch, hipStream_t stream, int compute_units, int reps) {
  return {rate_of<Real, RateOp::Fma>(watch, stream, compute_units, reps),
          rate_of<Real, RateOp::Div>(watch, stream, compute_units, reps),
          rate_of<Real, RateOp::Sqrt>(watch, stream, compute_units, reps)};
}

// Copies of each size from 4 KiB to 1 GiB (x4 each; at most an eighth of the host memory
// left, host_bytes, for the two host buffers), both directions, from one kind of host memory;
// the best of a few repetitions (fewer for the large sizes).
void probe_transfers(ProbeResult& r, hipStream_t stream, int device, std::size_t host_bytes) {
  std::size_t largest = std::size_t(1) << 30;
  while (host_bytes && largest > 4096 && largest > host_bytes / 8) largest /= 4;
  hip::DeviceArray on_device(largest, false);
  hip::HostBuffer pinned(largest, HostMemory::Pinned), pageable(largest, HostMemory::Pageable);
  hip::DeviceArray managed(largest, true);
  std::memset(pinned.get(), 1, largest);
  std::memset(pageable.get(), 1, largest);
  Stopwatch watch(stream);
  for (std::size_t bytes = 4096; bytes <= largest; bytes *= 4) {
    const int reps = bytes >= (std::size_t(64) << 20) ? 3 : 10;
    for (const char* direction : {"h2d", "d2h"}) {
      const bool h2d = direction[0] == 'h';
      for (int kind = 0; kind < 3; ++kind) {
        TransferPoint p;
        p.memory = kind == 0 ? "pageable" : kind == 1 ? "pinned" : "managed";
        p.direction = direction;
        p.bytes = bytes;
        double best = 1e30;
        for (int rep = 0; rep < reps + 1; ++rep) {
          if (kind == 2) {
            // A managed migration: the pages start on the side they leave from.
            HIP_CHECK(hipMemPrefetchAsync(managed.get(), bytes, h2d ? hipCpuDeviceId : device, stream));
            HIP_CHECK(hipStreamSynchronize(stream));
            watch.start();
            HIP_CHECK(hipMemPrefetchAsync(managed.get(), bytes, h2d ? device : hipCpuDeviceId, stream));
          } else {
            void* host = kind == 0 ? pageable.get() : pinned.get();
            watch.start();
            if (h2d)
              HIP_CHECK(hipMemcpyAsync(on_device.get(), host, bytes, hipMemcpyHostToDevice, stream));
            else
              HIP_CHECK(hipMemcpyAsync(host, on_device.get(), bytes, hipMemcpyDeviceToHost, stream));
          }
          const double s = watch.stop();
          if (rep > 0) best = std::min(best, s);  // the first one warms up
        }
        p.best_s = best;
        r.transfers.push_back(p);
      }
    }
  }
}

}  // namespace

ProbeResult probe_hip(const ProbeOptions& options) {
  const int device = options.device % std::max(1, hip_device_count());
  HIP_CHECK(hipSetDevice(device));
  ProbeResult r;
  r.backend = "hip";
  const DeviceInfo info = hip_device_info(device);
  r.device_name = info.name;
  r.quick = options.quick;
  r.repetitions = options.repetitions;
  r.timer = "device events (hipEventElapsedTime)";
  hipStream_t stream;
  HIP_CHECK(hipStreamCreateWithFlags(&stream, hipStreamNonBlocking));

  // Arrays of at least 512 MiB and 8x the last-level cache, and at most a sixteenth of
  // the device memory each.
  std::size_t bytes = std::max<std::size_t>(std::size_t(512) << 20, 8 * info.cache_bytes);
  if (info.memory_bytes) bytes = std::min(bytes, info.memory_bytes / 16);
  const std::size_t n = bytes / sizeof(double);
  r.array_bytes = n * sizeof(double);
  {
    hip::DeviceArray a(r.array_bytes, false), b(r.array_bytes, false), c(r.array_bytes, false);
    double* pa = static_cast<double*>(a.get());
    double* pb = static_cast<double*>(b.get());
    double* pc = static_cast<double*>(c.get());
    const unsigned threads = 256;
    const unsigned blocks = static_cast<unsigned>((n + threads - 1) / threads);
    fill_kernel<<<blocks, threads, 0, stream>>>(pa, 0.1, n);
    fill_kernel<<<blocks, threads, 0, stream>>>(pb, 0.2, n);
    fill_kernel<<<blocks, threads, 0, stream>>>(pc, 0.0, n);
    HIP_CHECK_LAUNCH();
    Stopwatch watch(stream);
    double best = 0, med = 0;
    time_kernel(
        watch, options.repetitions, [&] { copy_kernel<<<blocks, threads, 0, stream>>>(pa, pc, n); }, best, med);
    r.copy_Bps = kCopyValues * r.array_bytes / best;
    r.copy_median_Bps = kCopyValues * r.array_bytes / med;
    time_kernel(
        watch, options.repetitions, [&] { triad_kernel<<<blocks, threads, 0, stream>>>(pa, pb, pc, 0.4, n); }, best,
        med);
    r.triad_Bps = kTriadValues * r.array_bytes / best;
    r.triad_median_Bps = kTriadValues * r.array_bytes / med;
    HIP_CHECK_LAUNCH();
    const int rate_reps = options.quick ? 3 : std::min(options.repetitions, 10);
    r.fp64 = rates_of<double>(watch, stream, info.compute_units, rate_reps);
    r.fp32 = rates_of<float>(watch, stream, info.compute_units, rate_reps);
  }
  if (options.quick) {
    r.transfers_note = "not measured (quick probe: copy and triad only)";
    HIP_CHECK(hipStreamDestroy(stream));
    return r;
  }

  probe_transfers(r, stream, device, options.host_bytes);

  // Launch cost: 1000 empty kernels back to back (the rate the stream accepts them), and
  // one launch waited for (the round trip a synchronizing step pays), median of 200.
  Stopwatch watch(stream);
  for (int i = 0; i < 10; ++i) empty_kernel<<<1, 1, 0, stream>>>();
  HIP_CHECK(hipStreamSynchronize(stream));
  const auto t0 = std::chrono::steady_clock::now();
  for (int i = 0; i < 1000; ++i) empty_kernel<<<1, 1, 0, stream>>>();
  HIP_CHECK(hipStreamSynchronize(stream));
  r.launch_s = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count() / 1000;
  std::vector<double> round_trip;
  for (int i = 0; i < 200; ++i) {
    const auto s = std::chrono::steady_clock::now();
    empty_kernel<<<1, 1, 0, stream>>>();
    HIP_CHECK(hipStreamSynchronize(stream));
    round_trip.push_back(std::chrono::duration<double>(std::chrono::steady_clock::now() - s).count());
  }
  r.launch_sync_s = median(round_trip);
  HIP_CHECK_LAUNCH();

  // Timer resolution: the smallest non-zero interval between two events recorded back to
  // back (most pairs read 0; the rest read one tick of the event clock or more).
  double resolution = 1e30;
  for (int i = 0; i < 2000; ++i) {
    watch.start();
    const double s = watch.stop();
    if (s > 0) resolution = std::min(resolution, s);
  }
  r.timer_resolution_s = resolution < 1e30 ? resolution : 0.0;
  HIP_CHECK(hipStreamDestroy(stream));
  return r;
}

}  // namespace halocline
