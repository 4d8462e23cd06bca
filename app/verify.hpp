// The verification problems behind `halocline verify` and the test suite: each runs the
// real solver in-process and measures against an exact solution or an invariant.
#pragma once

#include <ostream>
#include <string>
#include <vector>

#include "app/driver.hpp"
#include "io/config.hpp"

namespace halocline {

// A deck given as TOML text (parsed by the real deck parser), then overrides.
Config config_from_toml(const std::string& toml, const std::vector<std::string>& overrides = {});

// Runs a configuration without writing snapshots or a report (checkpoints as the
// configuration schedules them, and a signal's or a fault's, still are).
RunResult run_quietly(const Config& config);

// Sod (or any Riemann preset) on N cells along `direction`: L1 norm of the density error
// against the exact solution's cell averages, at the deck's t_end.
double riemann_l1_density_error(const Config& config, const RunResult& result);

// Isentropic vortex: mean absolute density error against the exact (advected) solution.
double vortex_l1_density_error(const Config& config, const RunResult& result);

// Built-in decks of the verification problems (grid sizes are set by the callers).
Config sod_config(int n, int direction = 0);
Config riemann_preset_config(const std::string& preset, int n);
Config vortex_config(int n);
Config sedov_config(int n);

struct SedovMeasure {
  double shock_radius;     // where the angle-averaged density falls half-way from its peak
  double expected_radius;  // Sedov-Taylor: xi0 (E t^2 / rho)^(1/5)
  double asymmetry;        // largest |rho(x,y,z) - rho(mirror or permuted)| / max rho
};
SedovMeasure measure_sedov(const Config& config, const RunResult& result);

struct Check {
  std::string problem;
  std::string measure;
  double value;
  std::string limit;  // e.g. "<= 0.011"
  bool pass;
};

// Runs every verification problem, printing one line per check as it completes.
std::vector<Check> run_verification(std::ostream& os);

}  // namespace halocline
