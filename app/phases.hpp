// The names of a run's timed phases (the report's `timers` keys, docs/report.md), in one place:
// app/driver.cpp and app/stages.cpp time them, app/report.cpp and app/bench.cpp sort them. The
// stages' phases are named per stage ("stage1.pack": stage_prefix(1) + kPack).
#pragma once

#include <string>

namespace halocline::phase {

// The step's own, timed in app/driver.cpp.
inline constexpr const char* kDtReduction = "dt_reduction";
inline constexpr const char* kStateUpload = "state_upload";  // the host owner's and managed prefetch copies
inline constexpr const char* kStateDownload = "state_download";
inline constexpr const char* kOutput = "output";          // a snapshot (host time)
inline constexpr const char* kCheckpoint = "checkpoint";  // a checkpoint (host time)

// A stage's, timed in app/stages.cpp: the halo exchange (fill_ghosts),
inline constexpr const char* kPack = "pack";
inline constexpr const char* kD2h = "d2h";
inline constexpr const char* kMpi = "mpi";  // host time
inline constexpr const char* kH2d = "h2d";
inline constexpr const char* kUnpack = "unpack";
inline constexpr const char* kGhostFill = "ghost_fill";
// and the cells' work (rk_stage): split, fused, or either of them in the overlap's two parts.
inline constexpr const char* kReconstructFlux = "reconstruct_flux";
inline constexpr const char* kUpdate = "update";
inline constexpr const char* kFused = "fused";
inline constexpr const char* kInterior = "interior";
inline constexpr const char* kBoundary = "boundary";

// "stage<N>.": what the names of stage N's phases start with.
inline std::string stage_prefix(int stage) { return "stage" + std::to_string(stage) + "."; }

// A phase that writes files: timed on the host from the run's start (not only the timed
// steps), and no part of a step's device time (the report's t_compute_s, timers_sum_per_step_s).
inline bool writes_files(const std::string& name) { return name == kOutput || name == kCheckpoint; }

// A halo exchange phase of a stage (the report's t_halo_s): pack, d2h, mpi, h2d, unpack.
inline bool exchanges_halo(const std::string& name) {
  const std::size_t dot = name.rfind('.');
  if (dot == std::string::npos) return false;
  const std::string part = name.substr(dot + 1);
  return part == kPack || part == kD2h || part == kMpi || part == kH2d || part == kUnpack;
}

}  // namespace halocline::phase
