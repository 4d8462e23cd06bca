// Verification: the solver against exact solutions and invariants. Each check runs the
// real solver (the same code as `halocline run`) on a deck written here, so `verify`
// needs no files and can run from anywhere.
#include "app/verify.hpp"

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <functional>
#include <iomanip>

#include "app/comm.hpp"
#include "app/problems.hpp"
#include "io/deck.hpp"
#include "kernels/exact_riemann.hpp"
#include "kernels/exact_sedov.hpp"

namespace halocline {

Config config_from_toml(const std::string& toml, const std::vector<std::string>& overrides) {
  return parse_deck(toml, "verify", overrides);
}

RunResult run_quietly(const Config& config) {
  RunOptions options;
  options.write_output = false;
  return run_simulation(config, options);
}

namespace {
// A verification problem's run: no files at all. A signal ends it at once with nothing saved
// (its state is nothing to restart), so nothing is written into, or pruned from, the decks'
// output folder.
RunResult run_problem(const Config& config) {
  RunOptions options;
  options.write_output = false;
  options.checkpoints = false;
  return run_simulation(config, options);
}
}  // namespace

Config sod_config(int n, int direction) {
  return config_from_toml("[problem]\ntype = 'riemann'\n[riemann]\npreset = 'sod'\ndirection = '" +
                          std::string(1, "xyz"[direction]) + "'\n[grid]\nn" + std::string(1, "xyz"[direction]) + " = " +
                          std::to_string(n) + "\n[time]\nt_end = 0.2\n");
}

Config riemann_preset_config(const std::string& preset, int n) {
  // Toro's end times for his tests 1-5 (Table 4.1); Sod's is 0.2.
  const double t_end = preset == "toro2"   ? 0.15
                       : preset == "toro3" ? 0.012
                       : preset == "toro4" ? 0.035
                       : preset == "toro5" ? 0.035
                                           : 0.2;
  return config_from_toml("[problem]\ntype = 'riemann'\n[riemann]\npreset = '" + preset +
                          "'\n[grid]\nnx = " + std::to_string(n) + "\n[time]\nt_end = " + std::to_string(t_end) + "\n");
}

Config vortex_config(int n) {
  return config_from_toml("[problem]\ntype = 'isentropic_vortex'\n[grid]\nnx = " + std::to_string(n) +
                          "\nny = " + std::to_string(n) +
                          "\nxmin = -5.0\nxmax = 5.0\nymin = -5.0\nymax = 5.0\n"
                          "[boundary]\nall = 'periodic'\n[time]\nt_end = 2.0\n");
}

Config sedov_config(int n) {
  return config_from_toml("[problem]\ntype = 'sedov'\n[grid]\nn = " + std::to_string(n) +
                          "\nxmin = -0.5\nxmax = 0.5\nymin = -0.5\nymax = 0.5\nzmin = -0.5\nzmax = 0.5\n"
                          "[time]\nt_end = 0.05\n");
}

double riemann_l1_density_error(const Config& c, const RunResult& r) {
  const RiemannSetup& s = c.riemann;
  const ExactRiemann exact({s.left.rho, s.left.u, s.left.p}, {s.right.rho, s.right.u, s.right.p}, c.physics.gamma);
  const Grid& g = r.grid;
  const int d = s.direction;
  double error = 0;
  for (int i = 0; i < g.n[d]; ++i) {
    const double xa = g.lo[d] + i * g.dx[d];
    const double ref = exact.cell_average(xa, xa + g.dx[d], s.x0, r.sim_time).rho;
    error += std::fabs(r.final_state[i] - ref) * g.dx[d];
  }
  return error;
}

double vortex_l1_density_error(const Config& c, const RunResult& r) {
  const Grid& g = r.grid;
  const InitialCondition ic = initial_condition_of(c, g);
  double error = 0;
  std::size_t cell = 0;
  for (int k = 0; k < g.n[2]; ++k)
    for (int j = 0; j < g.n[1]; ++j)
      for (int i = 0; i < g.n[0]; ++i, ++cell)
        error += std::fabs(r.final_state[cell] - vortex_exact_density(ic, g, i, j, r.sim_time));
  return error / static_cast<double>(g.ninterior);
}

SedovMeasure measure_sedov(const Config& c, const RunResult& r) {
  const Grid& g = r.grid;
  const int nx = g.n[0], ny = g.n[1], nz = g.n[2];
  auto rho = [&](int i, int j, int k) { return r.final_state[i + nx * (j + ny * std::size_t(k))]; };
  // Angle-averaged density in shells one cell wide; the shock sits at its peak.
  const int shells = nx;
  std::vector<double> sum(shells, 0.0), count(shells, 0.0);
  double rho_max = 0, asym = 0;
  for (int k = 0; k < nz; ++k)
    for (int j = 0; j < ny; ++j)
      for (int i = 0; i < nx; ++i) {
        const double x = g.lo[0] + (i + 0.5) * g.dx[0], y = g.lo[1] + (j + 0.5) * g.dx[1],
                     z = g.lo[2] + (k + 0.5) * g.dx[2];
        const int shell = static_cast<int>(std::sqrt(x * x + y * y + z * z) / g.dx[0]);
        if (shell < shells) sum[shell] += rho(i, j, k), count[shell] += 1;
        const double v = rho(i, j, k);
        rho_max = std::max(rho_max, v);
        // Mirror images and axis permutations of a centred blast are the same solution.
        asym =
            std::max({asym, std::fabs(v - rho(nx - 1 - i, j, k)), std::fabs(v - rho(i, ny - 1 - j, k)),
                      std::fabs(v - rho(i, j, nz - 1 - k)), std::fabs(v - rho(j, i, k)), std::fabs(v - rho(k, j, i))});
      }
  std::vector<double> mean(shells, 0.0);
  for (int s = 0; s < shells; ++s) mean[s] = count[s] > 0 ? sum[s] / count[s] : 0.0;
  int peak = 0;
  for (int s = 1; s < shells; ++s)
    if (mean[s] > mean[peak]) peak = s;
  // The captured shock is a few cells wide and its density peak trails the front: take the
  // front where the profile falls half-way from the peak to the ambient density,
  // interpolating between shell centres.
  const double half = 0.5 * (mean[peak] + c.sedov.rho);
  double front = peak + 0.5;
  for (int s = peak; s + 1 < shells; ++s)
    if (mean[s + 1] <= half) {
      front = s + 0.5 + (mean[s] - half) / (mean[s] - mean[s + 1]);
      break;
    }
  SedovMeasure m;
  m.shock_radius = front * g.dx[0];
  // The Sedov-Taylor constant of the run's gamma (1.0328 for 1.4; until 2026-12-07 this check
  // held the blast to 5/3's 1.1517, which read 0.9685 at 32^3 and moved away from 1 as the grid
  // was refined).
  const double xi0 = sedov_taylor_constant(c.physics.gamma);
  m.expected_radius = xi0 * std::pow(c.sedov.energy * r.sim_time * r.sim_time / c.sedov.rho, 0.2);
  m.asymmetry = asym / rho_max;
  return m;
}

namespace {

// Under MPI a run's final state is gathered on rank 0 alone: the measure is made there and
// every rank takes its value (exactly: as a hexadecimal float), so that every rank reports
// the same checks.
double on_rank0(const std::function<double()>& measure) {
  char text[64] = "";
  if (world_rank() == 0) std::snprintf(text, sizeof text, "%a", measure());
  return std::strtod(broadcast_from(0, text).c_str(), nullptr);
}

// The Sedov measures made once, on rank 0, and every rank given them.
SedovMeasure sedov_on_rank0(const Config& c, const RunResult& r) {
  SedovMeasure m{};
  if (world_rank() == 0) m = measure_sedov(c, r);
  return {on_rank0([&] { return m.shock_radius; }), on_rank0([&] { return m.expected_radius; }),
          on_rank0([&] { return m.asymmetry; })};
}

void report(std::ostream& os, std::vector<Check>& checks, Check c) {
  os << std::left << std::setw(22) << c.problem << std::setw(44) << c.measure << std::right << std::setw(13)
     << std::setprecision(5) << c.value << "  " << std::left << std::setw(14) << c.limit << (c.pass ? "PASS" : "FAIL")
     << std::endl;
  checks.push_back(std::move(c));
}

// Sod: error against the exact solution and its convergence (Athena++'s thresholds); the
// same problem along y and z must be the same computation, bit for bit.
void verify_sod(std::ostream& os, std::vector<Check>& checks) {
  const Config sod128 = sod_config(128), sod256 = sod_config(256);
  const RunResult r128 = run_problem(sod128), r256 = run_problem(sod256);
  const double e128 = on_rank0([&] { return riemann_l1_density_error(sod128, r128); });
  const double e256 = on_rank0([&] { return riemann_l1_density_error(sod256, r256); });
  report(os, checks, {"sod", "L1(rho) error, N=128", e128, "<= 0.011", e128 <= 0.011});
  report(os, checks, {"sod", "err(256)/err(128)", e256 / e128, "<= 0.6", e256 / e128 <= 0.6});

  for (int d = 1; d < 3; ++d) {
    const RunResult rd = run_problem(sod_config(128, d));
    const std::size_t n = r128.grid.ninterior;
    const bool same = on_rank0([&] {
                        bool equal = rd.steps == r128.steps;
                        for (std::size_t i = 0; equal && i < n; ++i)
                          equal = rd.final_state[i] == r128.final_state[i] &&
                                  rd.final_state[(1 + d) * n + i] == r128.final_state[n + i] &&
                                  rd.final_state[4 * n + i] == r128.final_state[4 * n + i];
                        return equal ? 1.0 : 0.0;
                      }) == 1.0;
    report(os, checks,
           {"sod", std::string("profile along ") + "xyz"[d] + " == along x (bitwise)", same ? 1.0 : 0.0, "== 1", same});
  }
}

// Strong shocks and rarefactions (Toro's tests 2-5): positive and close to exact.
void verify_toro(std::ostream& os, std::vector<Check>& checks) {
  for (const char* preset : {"toro2", "toro3", "toro4", "toro5"}) {
    const Config c = riemann_preset_config(preset, 200);
    const RunResult r = run_problem(c);
    const std::size_t n = r.grid.ninterior;
    std::vector<double> prim;
    if (world_rank() == 0) prim = primitives(r.final_state, n, c.physics.gamma);
    const double min_positive = on_rank0([&] {
      double least = prim[0];
      for (std::size_t i = 0; i < n; ++i) least = std::min({least, prim[i], prim[4 * n + i]});
      return least;
    });
    report(os, checks,
           {preset, "min(rho, p) at t_end, N=200", min_positive, "> 0", min_positive > 0 && r.sim_time == c.t_end});
    const double rel = on_rank0([&] {
      double rho_max = 0;
      for (std::size_t i = 0; i < n; ++i) rho_max = std::max(rho_max, prim[i]);
      return riemann_l1_density_error(c, r) / rho_max;
    });
    report(os, checks, {preset, "L1(rho) error / max(rho), N=200", rel, "<= 0.05", rel <= 0.05});
  }
}

// Isentropic vortex: second order on a smooth solution.
void verify_vortex(std::ostream& os, std::vector<Check>& checks) {
  double errors[3];
  const int sizes[3] = {32, 64, 128};
  for (int s = 0; s < 3; ++s) {
    const Config c = vortex_config(sizes[s]);
    const RunResult r = run_problem(c);
    errors[s] = on_rank0([&] { return vortex_l1_density_error(c, r); });
  }
  for (int s = 0; s < 2; ++s) {
    const double order = std::log2(errors[s] / errors[s + 1]);
    report(os, checks,
           {"isentropic_vortex", "L1(rho) order, N=" + std::to_string(sizes[s]) + "->" + std::to_string(sizes[s + 1]),
            order, ">= 1.8", order >= 1.8});
  }
}

// Sedov: grid symmetry and the self-similar shock radius.
void verify_sedov(std::ostream& os, std::vector<Check>& checks) {
  const Config c = sedov_config(32);
  const RunResult r = run_problem(c);
  const SedovMeasure m = sedov_on_rank0(c, r);
  report(os, checks,
         {"sedov", "asymmetry (mirror/permutation) / max rho", m.asymmetry, "<= 1e-12", m.asymmetry <= 1e-12});
  const double ratio = m.shock_radius / m.expected_radius;
  // The half-way front of a shock smeared over a few cells lies beyond the exact shock on this
  // grid (1.08; 1.04 at 64^3, docs/verification.md): a radius below the exact one is wrong.
  report(os, checks, {"sedov", "shock radius / Sedov-Taylor, N=32", ratio, "1.0 .. 1.1", ratio > 1.0 && ratio <= 1.1});
  // Self-similarity: R ~ t^(2/5), measured between t_end / 2 and t_end.
  Config half = c;
  half.t_end = c.t_end / 2;
  const double exponent =
      std::log(m.shock_radius / sedov_on_rank0(half, run_problem(half)).shock_radius) / std::log(2.0);
  report(os, checks,
         {"sedov", "growth exponent of the shock radius", exponent, "0.4 +- 0.04", std::fabs(exponent - 0.4) <= 0.04});
}

// Conservation on periodic problems, 100 steps in fp64.
void verify_conservation(std::ostream& os, std::vector<Check>& checks) {
  for (const char* deck : {"vortex", "kh"}) {
    Config c = std::string(deck) == "vortex" ? vortex_config(64)
                                             : config_from_toml(
                                                   "[problem]\ntype = 'kelvin_helmholtz'\n[grid]\nnx = 64\nny = 64\n"
                                                   "[boundary]\nall = 'periodic'\n[time]\nt_end = 100.0\n");
    c.max_steps = 100;
    const RunResult r = run_problem(c);
    const double drift = max_relative_drift(r.initial, r.final);
    report(os, checks, {deck, "conservation drift, 100 steps", drift, "<= 1e-12", drift <= 1e-12 && r.steps == 100});
  }
}

}  // namespace

std::vector<Check> run_verification(std::ostream& os) {
  std::vector<Check> checks;
  os << std::left << std::setw(22) << "problem" << std::setw(44) << "measure" << std::right << std::setw(13) << "value"
     << "  " << std::left << std::setw(14) << "limit"
     << "result\n";
  verify_sod(os, checks);
  verify_toro(os, checks);
  verify_vortex(os, checks);
  verify_sedov(os, checks);
  verify_conservation(os, checks);
  return checks;
}

}  // namespace halocline
