// The end-of-run report: a human table of the per-phase timers on a stream, and the JSON
// report whose fields docs/report.md describes.
#pragma once

#include <nlohmann/json.hpp>
#include <ostream>
#include <string>

#include "app/driver.hpp"
#include "app/probe.hpp"
#include "io/config.hpp"

namespace halocline {

// The figure of merit, in every JSON that has one (report, bench, benchmark): docs/report.md.
constexpr const char* kFomDefinition =
    "interior cells / median step time (of the timed steps: the warm-up and the traced step with the one "
    "after it left out; a step is both RK stages)";
// That figure: `cells` updated per `median_step_s` (0 when no step was timed).
inline double fom_cell_updates_per_s(double cells, double median_step_s) {
  return median_step_s > 0 ? cells / median_step_s : 0.0;
}

nlohmann::json make_report(const Config& config, const RunResult& result);

// A rate of a report that is null where it was not measured (no step timed): 0 then.
double measured_or_zero(const nlohmann::json& object, const char* key);

// A cell-update rate in the unit it needs: "2.42 Gcell/s" on a GPU, "2.79 Mcell/s" on a
// CPU core (whose million or so a second would read 0.00 Gcell/s), as tools/plot.py does.
std::string cell_rate_text(double cell_updates_per_s);

// Adds the device's measured copy and triad bandwidth (`source`: the cache file, or
// "measured") and the run's effective bandwidth as a fraction of the copy bandwidth; and the
// arithmetic rates of the run's precision, the limit they put on the FOM and its fraction.
// The probe measured one device from one process; the run's whole traffic and FOM are held
// against `devices` of them (probe.devices_counted): by default devices_driven(report). Pass 1
// where the probe's rates are the job's already (benchmark sums every rank's).
void add_probe_to_report(nlohmann::json& report, const ProbeResult& probe, const std::string& source, int devices = 0);
// The device this rank runs on, as the report lists it per rank (`devices_over_ranks`): the
// host's name and the GPU's PCI address; a GPU without one, its name and the runtime's index
// ("host gpu NAME #1"); on a CPU backend "host cpu NAME".
std::string device_identity(const DeviceInfo& device, const std::string& host);
std::string device_identity(const DeviceInfo& device);  // on this host
// How many devices a run's report says it drove: the distinct GPUs of `devices_over_ranks`, or
// on a CPU backend its ranks (each on cores of its own, counted at the rate one process
// measured alone: at least the node's share, so that a fraction is never overstated); 1 for
// a report without the list.
int devices_driven(const nlohmann::json& report);
// The arithmetic part alone (`rates`: the device's, of the run's precision).
void add_arithmetic_limit(nlohmann::json& report, const ArithmeticRates& rates);

// Writes the report atomically (temporary file + rename); throws std::runtime_error.
void write_report(const nlohmann::json& report, const std::string& path, const std::string& what = "report");

// The human summary of a run, with the fractions of the device's ceilings from its `report`.
void print_summary(std::ostream& os, const Config& config, const RunResult& result, const nlohmann::json& report);

}  // namespace halocline
