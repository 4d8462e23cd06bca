// The verification problems against exact solutions, with the project's thresholds.
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>

#include "app/driver.hpp"
#include "app/verify.hpp"
#include "io/deck.hpp"

namespace hc = halocline;

// Sod at N=128, t=0.2: L1 density error <= 0.011, and err(256)/err(128) <= 0.6.
TEST(Verification, SodErrorAndConvergence) {
  const hc::Config c128 = hc::sod_config(128), c256 = hc::sod_config(256);
  const double e128 = hc::riemann_l1_density_error(c128, hc::run_quietly(c128));
  const double e256 = hc::riemann_l1_density_error(c256, hc::run_quietly(c256));
  EXPECT_LE(e128, 0.011);
  EXPECT_LE(e256 / e128, 0.6);
  EXPECT_GT(e128, 0.0);
}

// Sod along x, y and z: the same operations, so bitwise the same profiles.
TEST(Verification, SodAlongXYZIsBitwiseIdentical) {
  const hc::RunResult rx = hc::run_quietly(hc::sod_config(128, 0));
  const std::size_t n = 128;
  for (int d = 1; d < 3; ++d) {
    const hc::RunResult rd = hc::run_quietly(hc::sod_config(128, d));
    ASSERT_EQ(rd.steps, rx.steps);
    for (std::size_t i = 0; i < n; ++i) {
      ASSERT_EQ(rd.final_state[i], rx.final_state[i]) << "rho, cell " << i << " dir " << d;
      ASSERT_EQ(rd.final_state[(1 + d) * n + i], rx.final_state[n + i]) << "normal momentum";
      ASSERT_EQ(rd.final_state[4 * n + i], rx.final_state[4 * n + i]) << "energy";
    }
  }
}

// Smooth flow: observed L1 order of density >= 1.8 (MC limiter, CFL 0.4).
TEST(Verification, IsentropicVortexIsSecondOrder) {
  double e[3];
  const int sizes[3] = {32, 64, 128};
  for (int s = 0; s < 3; ++s) {
    const hc::Config c = hc::vortex_config(sizes[s]);
    EXPECT_EQ(c.physics.limiter, hc::Limiter::MC);
    EXPECT_DOUBLE_EQ(c.physics.cfl, 0.4);
    e[s] = hc::vortex_l1_density_error(c, hc::run_quietly(c));
  }
  EXPECT_GE(std::log2(e[0] / e[1]), 1.8);
  EXPECT_GE(std::log2(e[1] / e[2]), 1.8);
}

// Strong shocks and rarefactions at CFL 0.4: density and pressure stay positive.
TEST(Verification, StrongRiemannProblemsStayPositive) {
  for (const char* preset : {"toro2", "toro3", "toro4", "toro5"}) {
    for (auto solver : {hc::RiemannSolver::HLLC, hc::RiemannSolver::Rusanov}) {
      hc::Config c = hc::riemann_preset_config(preset, 200);
      c.physics.riemann = solver;
      const hc::RunResult r = hc::run_quietly(c);
      ASSERT_DOUBLE_EQ(r.sim_time, c.t_end) << preset;
      const auto prim = hc::primitives(r.final_state, 200, c.physics.gamma);
      for (int i = 0; i < 200; ++i) {
        ASSERT_GT(prim[i], 0.0) << preset << " rho at " << i;
        ASSERT_GT(prim[4 * 200 + i], 0.0) << preset << " p at " << i;
      }
    }
  }
}

// Sedov: the blast keeps the grid's symmetry and its shock follows Sedov-Taylor.
TEST(Verification, SedovSymmetryAndShockRadius) {
  const hc::Config c = hc::sedov_config(32);
  const hc::SedovMeasure m = hc::measure_sedov(c, hc::run_quietly(c));
  EXPECT_LE(m.asymmetry, 1e-12);
  // The half-way front of a shock smeared over a few cells lies beyond the Sedov-Taylor radius
  // on a coarse grid, less so on finer ones (measured with this estimator: 1.080 at 32^3, 1.050
  // at 48^3, 1.039 at 64^3). Held to 5/3's constant the blast read 0.9685 here and fell away
  // from 1 as the grid was refined (the check until 2026-12-07).
  EXPECT_GT(m.shock_radius / m.expected_radius, 1.0);
  EXPECT_LT(m.shock_radius / m.expected_radius, 1.1);
  // R ~ t^(2/5): the radius at t_end / 2 against the radius at t_end.
  hc::Config half = c;
  half.t_end = c.t_end / 2;
  const hc::SedovMeasure m_half = hc::measure_sedov(half, hc::run_quietly(half));
  EXPECT_NEAR(std::log(m.shock_radius / m_half.shock_radius) / std::log(2.0), 0.4, 0.04);
}

// The KH deck ends once its shear layers have rolled up: at 64^2 the largest |v| is still
// within the linear phase at t = 1 (the old t_end: below 0.12, from 0.01) and about 30 times
// the seed by the deck's t_end (measured 0.069 and 0.33 on the CPU, 2026-12-01).
TEST(Verification, KelvinHelmholtzRollsUpByTheDecksEnd) {
  auto largest_v = [](double t_end) {
    hc::Config c = hc::load_deck(std::string(HALOCLINE_SOURCE_DIR) + "/inputs/kh.toml", {"grid.nx=64", "grid.ny=64"});
    if (t_end > 0) c.t_end = t_end;
    const hc::RunResult r = hc::run_quietly(c);
    const std::size_t n = 64 * 64;
    double most = 0;
    for (std::size_t i = 0; i < n; ++i) most = std::max(most, std::fabs(r.final_state[2 * n + i] / r.final_state[i]));
    return most;
  };
  EXPECT_LT(largest_v(1.0), 0.12);
  EXPECT_GT(largest_v(0), 0.25);
}
