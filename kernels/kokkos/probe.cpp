// `halocline probe` with Kokkos: BabelStream's copy and triad as Kokkos parallel loops in
// the default execution space, on arrays far past the last-level cache, the cost of
// launching an empty parallel loop, the resolution of the clock the phase timers read
// (the host's steady clock on a host execution space), and the arithmetic rates of fp64 and
// fp32 (kernels/rate_chains.hpp). On a host execution space there is
// no host <-> device copy to measure: the probe says so instead of making one up.
#include <Kokkos_Core.hpp>
#include <algorithm>
#include <chrono>
#include <string>
#include <vector>

#include "kernels/kokkos/kokkos_backend.hpp"
#include "kernels/kokkos/policies.hpp"
#include "kernels/rate_chains.hpp"

namespace halocline {

namespace {

using Clock = std::chrono::steady_clock;

double seconds(Clock::time_point a, Clock::time_point b) { return std::chrono::duration<double>(b - a).count(); }

double median(std::vector<double> v) {
  std::sort(v.begin(), v.end());
  const std::size_t n = v.size();
  return n == 0 ? 0.0 : n % 2 ? v[n / 2] : 0.5 * (v[n / 2 - 1] + v[n / 2]);
}

template <class Work>
void time_loop(int reps, Work work, double& best, double& med) {
  std::vector<double> t;
  for (int r = 0; r < reps + 2; ++r) {
    Kokkos::fence();
    const auto s = Clock::now();
    work();
    Kokkos::fence();
    if (r >= 2) t.push_back(seconds(s, Clock::now()));
  }
  best = *std::min_element(t.begin(), t.end());
  med = median(t);
}

// The kernels, in named functions: a GPU build of Kokkos does not allow device lambdas
// inside other lambdas.
using View = Kokkos::View<double*>;
void copy_loop(const View& a, const View& c) {
  Kokkos::parallel_for(
      "probe_copy", Kokkos::RangePolicy<>(0, a.extent(0)), KOKKOS_LAMBDA(std::size_t i) { c(i) = a(i); });
}
void triad_loop(const View& a, const View& b, const View& c) {
  Kokkos::parallel_for(
      "probe_triad", Kokkos::RangePolicy<>(0, a.extent(0)), KOKKOS_LAMBDA(std::size_t i) { a(i) = b(i) + 0.4 * c(i); });
}
// One arithmetic microbenchmark (kernels/rate_chains.hpp): a thread per entry of `sums`.
template <class Real, RateOp Op>
struct RateLoop {
  Kokkos::View<Real*> sums;
  int iterations;
  Real factor, term;
  KOKKOS_INLINE_FUNCTION void operator()(int i) const { sums(i) = rate_chains<Real, Op>(i, iterations, factor, term); }
};

// Operations per second of Op in Real on every thread of the execution space (on Serial, one
// core): the fastest of `reps` runs; the threads' sums are checked to be finite numbers.
template <class Real, RateOp Op>
double rate_of(int reps) {
  using kokkos::kHostExecution;
  const int threads = kHostExecution ? 4 * Kokkos::DefaultExecutionSpace().concurrency() : 1 << 18;
  // A few ms per run: on one CPU core 2^18 rounds of multiply-adds (32 chains of doubles, 64
  // of floats) on each of 4 threads, on a GPU 8192 on each of 2^18 threads; divisions and
  // square roots 8 times fewer rounds on a CPU and 16 times fewer on a GPU.
  const int rounds = kHostExecution ? 1 << 18 : 8192;
  const int iterations = Op == RateOp::Fma ? rounds : rounds / (kHostExecution ? 8 : 16);
  const RateLoop<Real, Op> loop{Kokkos::View<Real*>("probe_rate_sums", threads), iterations, Real(kRateFactor),
                                Real(Op == RateOp::Div ? kRateDivTerm : kRateTerm)};
  double best = 0, med = 0;
  time_loop(
      reps, [&] { Kokkos::parallel_for("probe_rate", Kokkos::RangePolicy<>(0, threads), loop); }, best, med);
  const auto sums = Kokkos::create_mirror_view_and_copy(Kokkos::HostSpace(), loop.sums);
  check_rate_sums(sums.data(), static_cast<std::size_t>(threads));
  return rate_operations<Real>(threads, iterations) / best;
}

template <class Real>
ArithmeticRates rates_of(int reps) {
  return {rate_of<Real, RateOp::Fma>(reps), rate_of<Real, RateOp::Div>(reps), rate_of<Real, RateOp::Sqrt>(reps)};
}

void empty_loop() { Kokkos::parallel_for("probe_empty", Kokkos::RangePolicy<>(0, 1), KOKKOS_LAMBDA(int){}); }

}  // namespace

ProbeResult probe_kokkos(const ProbeOptions& options) {
  ProbeResult r;
  r.backend = "kokkos";
  const DeviceInfo info = kokkos_device_info();
  r.device_name = info.name;
  r.quick = options.quick;
  r.timer = "host steady_clock after a fence";
  // Arrays of at least 64 MiB and 4x the last-level cache, at most a sixteenth of the
  // host memory the process may use each (ProbeOptions::host_bytes); fewer repetitions of large arrays on a host (they
  // are slow).
  std::size_t bytes = std::max<std::size_t>(std::size_t(64) << 20, 4 * info.cache_bytes);
  if (options.host_bytes) bytes = std::min(bytes, options.host_bytes / 16);
  const std::size_t n = bytes / sizeof(double);
  r.array_bytes = n * sizeof(double);
  r.repetitions = options.quick ? std::min(options.repetitions, 5) : options.repetitions;
  {
    View a("probe_a", n), b("probe_b", n), c("probe_c", n);
    Kokkos::deep_copy(a, 0.1);
    Kokkos::deep_copy(b, 0.2);
    Kokkos::deep_copy(c, 0.0);
    double best = 0, med = 0;
    time_loop(
        r.repetitions, [&] { copy_loop(a, c); }, best, med);
    r.copy_Bps = kCopyValues * r.array_bytes / best;
    r.copy_median_Bps = kCopyValues * r.array_bytes / med;
    time_loop(
        r.repetitions, [&] { triad_loop(a, b, c); }, best, med);
    r.triad_Bps = kTriadValues * r.array_bytes / best;
    r.triad_median_Bps = kTriadValues * r.array_bytes / med;
  }
  const int rate_reps = options.quick ? 3 : std::min(options.repetitions, 10);
  r.fp64 = rates_of<double>(rate_reps);
  r.fp32 = rates_of<float>(rate_reps);
  const bool host_space =
      Kokkos::SpaceAccessibility<Kokkos::HostSpace, Kokkos::DefaultExecutionSpace::memory_space>::accessible;
  r.transfers_note = host_space ? "none: the execution space runs in host memory, nothing is copied"
                                : "not measured by the Kokkos probe";
  if (options.quick) return r;

  // Launch cost: empty one-iteration loops back to back (a fence each on the host spaces,
  // where the loop runs inside the call), and the median of single launches waited for.
  const auto t0 = Clock::now();
  for (int i = 0; i < 1000; ++i) empty_loop();
  Kokkos::fence();
  r.launch_s = seconds(t0, Clock::now()) / 1000;
  std::vector<double> round_trip;
  for (int i = 0; i < 200; ++i) {
    const auto s = Clock::now();
    empty_loop();
    Kokkos::fence();
    round_trip.push_back(seconds(s, Clock::now()));
  }
  r.launch_sync_s = median(round_trip);
  // The clock's resolution: the smallest non-zero step between two readings.
  double resolution = 1e30;
  for (int i = 0; i < 100000; ++i) {
    const auto a = Clock::now(), b = Clock::now();
    if (b > a) resolution = std::min(resolution, seconds(a, b));
  }
  r.timer_resolution_s = resolution < 1e30 ? resolution : 0.0;
  return r;
}

}  // namespace halocline
