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

#include "io/provenance_record.hpp"
#include "kernels/contract/probe_result.hpp"

namespace halocline {

// (run_probe(), which measures with a backend's programming model, is in app/select.hpp.)

// The probe's figures and the provenance of the command that measured them.
nlohmann::json probe_json(const ProbeResult& r, const Provenance& provenance);
ProbeResult probe_from_json(const nlohmann::json& j);
void print_probe(std::ostream& os, const ProbeResult& r);

// The probe figures of this device for a run writing into `out_dir`: read from
// `out_dir/probe-<backend>-<device>.json` when a probe of this build and device is there,
// otherwise measured (quick) and written there, with the run's `provenance`. `source` says which.
ProbeResult cached_probe(const std::string& out_dir, const std::string& backend, int device, std::string& source,
                         const Provenance& provenance);

// Checks, before any work, the file cached_probe would write for `backend` (when it can run
// here) on GPU `device` into `out_dir`: absent, or a JSON document (app/outputs.hpp's rule;
// anyone's other file is never overwritten). Throws DeckError naming it.
void check_probe_cache(const std::string& out_dir, const std::string& backend, int device);

// The file name cached_probe uses for a device name: letters and digits kept, the rest '_'.
std::string probe_cache_name(const std::string& backend, const std::string& device_name);

}  // namespace halocline
