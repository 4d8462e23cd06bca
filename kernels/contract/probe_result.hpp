// What `halocline probe` measures with a programming model's own calls (kernels/hip/probe.cpp,
// kernels/kokkos/probe.cpp): the options it takes and the figures it reports. app/probe.hpp
// prints them, writes them as JSON and caches them.
#pragma once

#include <cstddef>
#include <string>
#include <vector>

namespace halocline {

// One host <-> device copy size and what it reached (best of the repetitions).
struct TransferPoint {
  std::string memory;     // pageable | pinned | managed (managed: a prefetch migration)
  std::string direction;  // h2d | d2h
  std::size_t bytes = 0;
  double best_s = 0;  // fastest repetition
  double Bps() const { return best_s > 0 ? static_cast<double>(bytes) / best_s : 0.0; }
};

// The arithmetic throughput of one precision on the whole device (every core or SM busy, many
// independent operations in flight), in operations per second: fused multiply-adds (the
// physics' mul_add), divisions and square roots.
struct ArithmeticRates {
  double fma_per_s = 0, div_per_s = 0, sqrt_per_s = 0;
};

struct ProbeOptions {
  bool quick = false;    // copy, triad and arithmetic rates only (what a run's report needs)
  int device = 0;        // GPU index (GPU backends)
  int repetitions = 20;  // of the device kernels; best of them, after 2 warm-ups
  // Host memory this process may still use (the smallest of what Linux has available, what
  // ulimit -v leaves and what a memory cgroup leaves; 0: unknown). The probe's host arrays
  // take a small part of it, so that a probe under a limit measures smaller arrays rather
  // than failing to allocate.
  std::size_t host_bytes = 0;
};

struct ProbeResult {
  std::string backend;                 // kokkos | hip
  std::string device_name;             // as the runtime names it
  std::size_t array_bytes = 0;         // per array of the copy and triad kernels
  double copy_Bps = 0, triad_Bps = 0;  // best of the repetitions
  double copy_median_Bps = 0, triad_median_Bps = 0;
  int repetitions = 0;
  std::vector<TransferPoint> transfers;  // empty: not measured, see transfers_note
  std::string transfers_note;
  double launch_s = -1;            // mean time per launch of an empty kernel, back to back
  double launch_sync_s = -1;       // median launch + wait for completion of one empty kernel
  double timer_resolution_s = -1;  // smallest non-zero interval the phase timers' clock gives
  std::string timer;               // which clock: device events or the host's steady clock
  ArithmeticRates fp64, fp32;      // measured in quick probes too (a run's report needs them)
  bool quick = false;
};

// Bytes the copy and triad kernels move per element: copy reads one array and writes one
// (2 values), triad reads two and writes one (3), as BabelStream counts.
constexpr int kCopyValues = 2, kTriadValues = 3;

}  // namespace halocline
