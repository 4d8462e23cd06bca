// `halocline probe`: the machine's own ceilings, measured the way BabelStream (device copy
// and triad) and rocm-bandwidth-test / bandwidthTest (host <-> device copies by size) do,
// so that every run can say how close it came to them. Each programming model measures
// with its own calls (kernels/hip/probe.cpp, kernels/kokkos/probe.cpp); this file holds
// what they report, the table, the JSON, and the per-device cache a run reads.
#pragma once

#include <cstddef>
#include <nlohmann/json.hpp>
#include <ostream>
#include <string>
#include <vector>

namespace halocline {

// One host <-> device copy size and what it reached (best of the repetitions).
struct TransferPoint {
  std::string memory;     // pageable | pinned | managed (managed: a prefetch migration)
  std::string direction;  // h2d | d2h
  std::size_t bytes = 0;
  double best_s = 0;      // fastest repetition
  double Bps() const { return best_s > 0 ? static_cast<double>(bytes) / best_s : 0.0; }
};

struct ProbeOptions {
  bool quick = false;        // copy and triad only (what a run's report needs)
  int device = 0;            // GPU index (GPU backends)
  int repetitions = 20;      // of the device kernels; best of them, after 2 warm-ups
};

struct ProbeResult {
  std::string backend;               // kokkos | hip
  std::string device_name;           // as the runtime names it
  std::size_t array_bytes = 0;       // per array of the copy and triad kernels
  double copy_Bps = 0, triad_Bps = 0;          // best of the repetitions
  double copy_median_Bps = 0, triad_median_Bps = 0;
  int repetitions = 0;
  std::vector<TransferPoint> transfers;        // empty: not measured, see transfers_note
  std::string transfers_note;
  double launch_s = -1;              // mean time per launch of an empty kernel, back to back
  double launch_sync_s = -1;         // median launch + wait for completion of one empty kernel
  double timer_resolution_s = -1;    // smallest non-zero interval the phase timers' clock gives
  std::string timer;                 // which clock: device events or the host's steady clock
  bool quick = false;
};

// Bytes the copy and triad kernels move per element: copy reads one array and writes one
// (2 values), triad reads two and writes one (3), as BabelStream counts.
constexpr int kCopyValues = 2, kTriadValues = 3;

// (run_probe(), which measures with a backend's programming model, is in app/select.hpp.)

nlohmann::json probe_json(const ProbeResult& r);
ProbeResult probe_from_json(const nlohmann::json& j);
void print_probe(std::ostream& os, const ProbeResult& r);

// The probe figures of this device for a run writing into `out_dir`: read from
// `out_dir/probe-<backend>-<device>.json` when a probe of this build and device is there,
// otherwise measured (quick) and written there. `source` says which.
ProbeResult cached_probe(const std::string& out_dir, const std::string& backend, int device,
                         std::string& source);

// The file name cached_probe uses for a device name: letters and digits kept, the rest '_'.
std::string probe_cache_name(const std::string& backend, const std::string& device_name);

}  // namespace halocline
