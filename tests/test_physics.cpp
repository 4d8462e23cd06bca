// Unit tests of the physics functions and the boundary mapping, each against values worked
// out by hand or by an independent formula.
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <cstddef>
#include <cstdint>
#include <cstdio>
#include <limits>
#include <utility>

#include "kernels/boundary.hpp"
#include "kernels/hydro.hpp"
#include "kernels/portable_math.hpp"

namespace hc = halocline;

TEST(PhysicsBoundary, GhostSourcesPerKind) {
  bool flip = false;
  // n = 4 interior cells at 2..5, ghosts 0, 1 (low) and 6, 7 (high).
  using B = hc::Boundary;
  EXPECT_EQ(hc::ghost_source(0, 4, 2, B::Periodic, B::Periodic, flip), 4);
  EXPECT_EQ(hc::ghost_source(7, 4, 2, B::Periodic, B::Periodic, flip), 3);
  EXPECT_FALSE(flip);
  EXPECT_EQ(hc::ghost_source(0, 4, 2, B::Outflow, B::Outflow, flip), 2);
  EXPECT_EQ(hc::ghost_source(7, 4, 2, B::Outflow, B::Outflow, flip), 5);
  EXPECT_EQ(hc::ghost_source(1, 4, 2, B::Reflecting, B::Outflow, flip), 2);
  EXPECT_TRUE(flip);
  EXPECT_EQ(hc::ghost_source(0, 4, 2, B::Reflecting, B::Outflow, flip), 3);
  EXPECT_EQ(hc::ghost_source(6, 4, 2, B::Outflow, B::Reflecting, flip), 5);
  EXPECT_EQ(hc::ghost_source(7, 4, 2, B::Outflow, B::Reflecting, flip), 4);
}

TEST(Physics, PrimConsRoundTrip) {
  const hc::Prim<double> s{1.3, {0.4, -0.2, 0.7}, 2.5};
  const hc::IdealGas<double> gas(1.4);
  const hc::Prim<double> back = hc::to_prim(hc::to_cons(s, gas), gas);
  EXPECT_NEAR(back.rho, s.rho, 1e-15);
  for (int c = 0; c < 3; ++c) EXPECT_NEAR(back.u[c], s.u[c], 1e-15);
  EXPECT_NEAR(back.p, s.p, 1e-14);
  // E = p/(gamma-1) + rho |u|^2 / 2
  EXPECT_NEAR(hc::to_cons(s, gas).q[4], 2.5 / 0.4 + 0.5 * 1.3 * (0.16 + 0.04 + 0.49), 1e-14);
}

// mul_add rounds once: (1 + 2^-30)(1 - 2^-30) - 1 is -2^-60 exactly, while the product
// rounded first is 1 and the sum 0. Every backend's physics must fuse here, the CPU's
// included, or the CPU and the GPUs would disagree in the last bits.
TEST(Physics, MulAddRoundsOnce) {
  const double a = 1 + std::ldexp(1.0, -30), b = 1 - std::ldexp(1.0, -30);
  EXPECT_EQ(hc::mul_add(a, b, -1.0), -std::ldexp(1.0, -60));
  volatile double product = a * b;  // rounded on its own: what contraction would have fused
  EXPECT_EQ(product - 1.0, 0.0);
  const float af = 1 + std::ldexp(1.0f, -13), bf = 1 - std::ldexp(1.0f, -13);
  EXPECT_EQ(hc::mul_add(af, bf, -1.0f), -std::ldexp(1.0f, -26));
}

TEST(Physics, LimitersOnKnownSlopes) {
  using hc::Limiter;
  EXPECT_EQ(hc::limited_slope(1.0, -1.0, Limiter::MC), 0.0);  // extremum: flat
  EXPECT_EQ(hc::limited_slope(1.0, 3.0, Limiter::Minmod), 1.0);
  EXPECT_EQ(hc::limited_slope(-1.0, -3.0, Limiter::Minmod), -1.0);
  EXPECT_DOUBLE_EQ(hc::limited_slope(1.0, 3.0, Limiter::VanLeer), 1.5);  // 2ab/(a+b)
  EXPECT_DOUBLE_EQ(hc::limited_slope(1.0, 3.0, Limiter::MC), 2.0);       // min(2, 6, 2)
  EXPECT_DOUBLE_EQ(hc::limited_slope(1.0, 1.2, Limiter::MC), 1.1);       // centred
}

// limited_slope's values are the textbook forms' (flat at extrema, then minmod, van Leer or
// MC) bit for bit, in both precisions, over differences of every sign, ties, zeros and sizes
// far apart: a rewrite for speed (docs/performance.md tried selects) must keep every bit.
template <class Real>
Real textbook_slope(Real a, Real b, hc::Limiter lim) {
  if (a * b <= Real(0)) return Real(0);
  if (lim == hc::Limiter::Minmod) return a > Real(0) ? std::min(a, b) : std::max(a, b);
  if (lim == hc::Limiter::VanLeer) return Real(2) * a * b / (a + b);
  const Real m = std::min(Real(2) * std::min(std::fabs(a), std::fabs(b)), std::fabs(Real(0.5) * (a + b)));
  return a > Real(0) ? m : -m;
}

// A Real's bits (through double, which holds every float exactly, NaN payloads included).
template <class Real>
std::uint64_t bits_of(Real x) {
  return hc::bit_cast<std::uint64_t>(static_cast<double>(x));
}

// limited_slope(a, b) against reference(a, b, limiter), bit for bit, for every pair of `values`
// and every limiter.
template <class Real, std::size_t N, class Reference>
void expect_slopes_bit_for_bit(const Real (&values)[N], const Reference& reference) {
  int compared = 0;
  for (Real a : values)
    for (Real b : values)
      for (hc::Limiter lim : {hc::Limiter::Minmod, hc::Limiter::VanLeer, hc::Limiter::MC}) {
        ASSERT_EQ(bits_of(hc::limited_slope(a, b, lim)), bits_of(reference(a, b, lim)))
            << a << " " << b << " limiter " << static_cast<int>(lim);
        ++compared;
      }
  EXPECT_EQ(compared, static_cast<int>(N * N * 3));
}

template <class Real>
void expect_textbook_slopes() {
  const Real values[] = {Real(0),    -Real(0),   Real(1),     Real(-1),    Real(3),    Real(-3),        Real(0.1),
                         Real(-0.1), Real(1e-7), Real(-1e-7), Real(2.5e6), Real(-4e6), Real(1.0 / 3.0), Real(0.3)};
  expect_slopes_bit_for_bit(values, textbook_slope<Real>);
}

TEST(Physics, LimitedSlopesAreTheTextbookFormsBitForBit) {
  expect_textbook_slopes<double>();
  expect_textbook_slopes<float>();
}

// limited_slope as selects (the fourteenth session), and MC in fp32 on minNum and copysign
// (the eighteenth), gives the bits of its form before, which returned 0 first where a * b <= 0
// and then took its branches, at every kind of finite value: signed zeros, the largest and the
// subnormal (products that overflow or underflow).
template <class Real>
Real branching_slope(Real a, Real b, hc::Limiter lim) {
  if (a * b <= Real(0)) return Real(0);
  if (lim == hc::Limiter::Minmod) return a > Real(0) ? (a < b ? a : b) : (a > b ? a : b);
  if (lim == hc::Limiter::VanLeer) return Real(2) * a * b / (a + b);
  const Real centred = Real(0.5) * (a + b);
  const Real abs_a = std::fabs(a), abs_b = std::fabs(b), abs_c = std::fabs(centred);
  Real m = Real(2) * (abs_a < abs_b ? abs_a : abs_b);
  m = abs_c < m ? abs_c : m;
  return a > Real(0) ? m : -m;
}

// With an infinite or NaN difference (a state a run stops at), a NaN product is flat since the
// eighteenth session: the slope is 0 where a difference is NaN or an infinity meets a zero (a
// GPU's NaN has another sign and payload than the host's, and must not reach the slope), and
// the branching form's bits otherwise.
template <class Real>
Real special_slope(Real a, Real b, hc::Limiter lim) {
  return a * b > Real(0) ? branching_slope(a, b, lim) : Real(0);
}

template <class Real>
struct SlopeValues {
  using limits = std::numeric_limits<Real>;
  static constexpr Real finite[] = {Real(0),
                                    -Real(0),
                                    Real(1),
                                    Real(-1),
                                    Real(3),
                                    Real(-0.25),
                                    limits::max(),
                                    -limits::max(),
                                    limits::denorm_min(),
                                    -limits::denorm_min(),
                                    limits::min(),
                                    -limits::min()};
  static constexpr Real any[] = {Real(0),
                                 -Real(0),
                                 Real(1),
                                 Real(-3),
                                 limits::max(),
                                 limits::infinity(),
                                 -limits::infinity(),
                                 limits::quiet_NaN(),
                                 -limits::quiet_NaN(),
                                 limits::denorm_min()};
};

TEST(Physics, LimitedSlopesKeepTheBranchingFormsBitsAtEveryKindOfValue) {
  expect_slopes_bit_for_bit(SlopeValues<double>::finite, branching_slope<double>);
  expect_slopes_bit_for_bit(SlopeValues<double>::any, special_slope<double>);
  expect_slopes_bit_for_bit(SlopeValues<float>::finite, branching_slope<float>);
  expect_slopes_bit_for_bit(SlopeValues<float>::any, special_slope<float>);
  // A NaN difference gives no slope, whatever its sign (a GPU's NaN is positive, x86's negative).
  for (hc::Limiter lim : {hc::Limiter::Minmod, hc::Limiter::VanLeer, hc::Limiter::MC})
    for (float nan : {std::numeric_limits<float>::quiet_NaN(), -std::numeric_limits<float>::quiet_NaN()})
      EXPECT_EQ(bits_of(hc::limited_slope(nan, -2.0f, lim)), 0u) << static_cast<int>(lim);
}

// limited_slopes (a cell's five slopes, skipped together where all five are flat) gives each
// value's limited_slope bit for bit: cells with every value flat, some, none, and a NaN.
template <class Real>
void expect_cell_slopes_are_each_values() {
  const Real nan = std::numeric_limits<Real>::quiet_NaN();
  // (below, above) neighbours of a value of 1: flat (equal), an extremum (flat), sloped, NaN.
  const Real pairs[4][2] = {{Real(1), Real(1)}, {Real(0.5), Real(0.75)}, {Real(0.25), Real(3)}, {nan, Real(2)}};
  int cells = 0, sloped = 0;
  for (int pick = 0; pick < 4 * 4 * 4 * 4 * 4; ++pick) {
    Real qm_v[hc::kNumVars], qp_v[hc::kNumVars];
    for (int v = 0, rest = pick; v < hc::kNumVars; ++v, rest /= 4) {
      qm_v[v] = pairs[rest % 4][0];
      qp_v[v] = pairs[rest % 4][1];
    }
    const auto prim = [](const Real x[hc::kNumVars]) {
      hc::Prim<Real> q;
      q.rho = x[0];
      for (int c = 0; c < 3; ++c) q.u[c] = x[1 + c];
      q.p = x[4];
      return q;
    };
    const Real ones[hc::kNumVars] = {Real(1), Real(1), Real(1), Real(1), Real(1)};
    const hc::Prim<Real> qm = prim(qm_v), q = prim(ones), qp = prim(qp_v);
    for (hc::Limiter lim : {hc::Limiter::Minmod, hc::Limiter::VanLeer, hc::Limiter::MC}) {
      const hc::Prim<Real> got = hc::limited_slopes(qm, q, qp, lim);
      const Real got_v[hc::kNumVars] = {got.rho, got.u[0], got.u[1], got.u[2], got.p};
      for (int v = 0; v < hc::kNumVars; ++v) {
        const Real want = hc::limited_slope(Real(1) - qm_v[v], qp_v[v] - Real(1), lim);
        ASSERT_EQ(bits_of(got_v[v]), bits_of(want))
            << "cell " << pick << " value " << v << " limiter " << static_cast<int>(lim);
        if (lim == hc::Limiter::MC && v == 0 && want != Real(0)) ++sloped;
      }
    }
    ++cells;
  }
  EXPECT_EQ(cells, 1024);
  EXPECT_EQ(sloped, 256);  // rho sloped: a quarter of the cells (a NaN difference is flat)
}

TEST(Physics, CellSlopesAreEachValuesSlopeBitForBit) {
  expect_cell_slopes_are_each_values<double>();
  expect_cell_slopes_are_each_values<float>();
}

// A consistent flux: with equal states on both sides, every solver returns the physical flux.
TEST(Physics, FluxesAreConsistent) {
  const hc::IdealGas<double> g(1.4);
  const hc::Prim<double> s{0.8, {0.3, 0.1, -0.4}, 1.7};
  const hc::Cons<double> w = hc::to_cons(s, g);
  const double exact[5] = {0.8 * 0.3, 0.8 * 0.09 + 1.7, 0.8 * 0.3 * 0.1, 0.8 * 0.3 * -0.4, (w.q[4] + 1.7) * 0.3};
  for (auto solver : {hc::RiemannSolver::HLLC, hc::RiemannSolver::Rusanov}) {
    const hc::Cons<double> f = hc::riemann_flux(s, s, g, solver);
    for (int v = 0; v < 5; ++v) EXPECT_NEAR(f.q[v], exact[v], 1e-14) << "var " << v;
  }
}

// HLLC resolves an isolated stationary contact exactly (Rusanov smears it).
TEST(Physics, HllcKeepsAStationaryContact) {
  const hc::Prim<double> l{1.0, {0, 0.5, 0}, 1.0}, r{0.1, {0, -0.2, 0}, 1.0};
  const hc::IdealGas<double> gas(1.4);
  const hc::Cons<double> f = hc::hllc_flux(l, r, gas);
  EXPECT_NEAR(f.q[0], 0.0, 1e-15);
  EXPECT_NEAR(f.q[1], 1.0, 1e-15);  // only the pressure
  EXPECT_NEAR(f.q[2], 0.0, 1e-15);
  EXPECT_NEAR(f.q[4], 0.0, 1e-15);
  EXPECT_GT(std::fabs(hc::rusanov_flux(l, r, gas).q[0]), 0.1);
  // Equal states at rest (every face of a region at rest; the contact speed's numerator is
  // exactly 0): the pressure's flux alone, exactly.
  for (double p : {1.0, 0.4, 1e-6, 3e5}) {
    const hc::Prim<double> s{0.7, {0.0, 0.0, 0.0}, p};
    const hc::Cons<double> rest = hc::hllc_flux(s, s, gas);
    const double exact[5] = {0.0, p, 0.0, 0.0, 0.0};
    for (int v = 0; v < 5; ++v) EXPECT_EQ(rest.q[v], exact[v]) << "p " << p << " var " << v;
  }
}

// State pair n of the HLLC tests (all four of HLLC's cases among the first few hundred), its
// densities and pressures times `density` and its speeds times `speed` (pressures times its
// square): at 1 and 1 the values themselves, bit for bit.
static std::pair<hc::Prim<double>, hc::Prim<double>> hllc_state_pair(int n, double density = 1, double speed = 1) {
  const double a = (n % 37) / 36.0, b = (n % 23) / 22.0, c = (n % 11) / 10.0;
  const double p = density * speed * speed;
  return {{(0.1 + 10 * a) * density, {(8 * b - 4) * speed, (0.3 - c) * speed, (a - 0.5) * speed}, (0.05 + 20 * c) * p},
          {(0.1 + 10 * c) * density,
           {(4 * a - 3 * c) * speed, (b - 0.7) * speed, 0.25 * c * speed},
           (0.05 + 20 * b * a) * p}};
}

static hc::Prim<float> narrow(const hc::Prim<double>& s) {
  return {float(s.rho), {float(s.u[0]), float(s.u[1]), float(s.u[2])}, float(s.p)};
}

// The HLLC flux in Toro's own form (Toro, Riemann Solvers, eqs. 10.26, 10.37-10.39, with
// Einfeldt's speeds from Roe averages), written plainly with divisions: hllc_flux reorders
// it to take fewer divisions and fused multiply-adds, which must change only the rounding.
// `regime` says which of its four cases the pair fell in: 0 and 1 supersonic to the right
// and to the left, 2 and 3 the star states left and right of the contact.
hc::Cons<double> textbook_hllc(const hc::Prim<double>& l, const hc::Prim<double>& r, double g, int& regime) {
  const auto energy = [g](const hc::Prim<double>& s) {
    return s.p / (g - 1) + 0.5 * s.rho * (s.u[0] * s.u[0] + s.u[1] * s.u[1] + s.u[2] * s.u[2]);
  };
  const auto flux = [&](const hc::Prim<double>& s) {
    const double e = energy(s), un = s.u[0];
    return hc::Cons<double>{
        {s.rho * un, s.rho * un * un + s.p, s.rho * un * s.u[1], s.rho * un * s.u[2], (e + s.p) * un}};
  };
  const double wl = std::sqrt(l.rho), wr = std::sqrt(r.rho);
  const double u = (wl * l.u[0] + wr * r.u[0]) / (wl + wr);
  const double v = (wl * l.u[1] + wr * r.u[1]) / (wl + wr), w = (wl * l.u[2] + wr * r.u[2]) / (wl + wr);
  const double h = (wl * (energy(l) + l.p) / l.rho + wr * (energy(r) + r.p) / r.rho) / (wl + wr);
  const double c = std::sqrt((g - 1) * (h - 0.5 * (u * u + v * v + w * w)));
  const double sl = std::min(l.u[0] - std::sqrt(g * l.p / l.rho), u - c);
  const double sr = std::max(r.u[0] + std::sqrt(g * r.p / r.rho), u + c);
  regime = sl >= 0 ? 0 : sr <= 0 ? 1 : 2;
  if (regime < 2) return flux(regime == 0 ? l : r);
  const double s_star = (r.p - l.p + l.rho * l.u[0] * (sl - l.u[0]) - r.rho * r.u[0] * (sr - r.u[0])) /
                        (l.rho * (sl - l.u[0]) - r.rho * (sr - r.u[0]));
  const bool left = s_star >= 0;
  regime = left ? 2 : 3;
  const hc::Prim<double>& k = left ? l : r;
  const double sk = left ? sl : sr, e = energy(k);
  const double factor = k.rho * (sk - k.u[0]) / (sk - s_star);
  const double star[5] = {factor, factor * s_star, factor * k.u[1], factor * k.u[2],
                          factor * (e / k.rho + (s_star - k.u[0]) * (s_star + k.p / (k.rho * (sk - k.u[0]))))};
  const double cons[5] = {k.rho, k.rho * k.u[0], k.rho * k.u[1], k.rho * k.u[2], e};
  hc::Cons<double> f = flux(k);
  for (int q = 0; q < 5; ++q) f.q[q] += sk * (star[q] - cons[q]);
  return f;
}

// Pairs of states across all four cases (supersonic either way, subsonic with the contact
// on either side), strong jumps included: hllc_flux agrees with the textbook form to a few
// units of rounding relative to the flux's size.
TEST(Physics, HllcMatchesToroToRounding) {
  const hc::IdealGas<double> gas(1.4);
  int cases[4] = {0, 0, 0, 0};
  for (int n = 0; n < 4000; ++n) {
    const auto [l, r] = hllc_state_pair(n);
    int regime = -1;
    const hc::Cons<double> got = hc::hllc_flux(l, r, gas), want = textbook_hllc(l, r, 1.4, regime);
    double scale = 0;
    for (int q = 0; q < 5; ++q) scale = std::max(scale, std::fabs(want.q[q]));
    for (int q = 0; q < 5; ++q) ASSERT_NEAR(got.q[q], want.q[q], 1e-13 * scale) << "state pair " << n << " var " << q;
    cases[regime] += 1;
  }
  for (int k = 0; k < 4; ++k) EXPECT_GT(cases[k], 0) << "no state pair in case " << k;
}

// hllc_flux in fp32 over the densities float can hold: the state pairs of
// HllcMatchesToroToRounding with densities and pressures scaled together by 10^-36 to 10^34
// (at 10^36 the fluxes themselves near float's largest value). The products form alone
// (fp64's) multiplies two densities, and in float it leaves the range beyond about 10^+-19: a
// wrong flux or none there. fp32 takes it on states scaled by a power of two
// (hllc_flux_rescaled), which keeps the textbook form's accuracy at every scale and, where the
// form alone stays in range, its bits.
TEST(Physics, HllcInFloatIsAccurateAtEveryDensityScale) {
  const hc::IdealGas<float> gas(1.4f);
  int products_wrong_or_not_finite = 0;
  for (int e = -36; e <= 34; e += 2) {
    const double scale = std::pow(10.0, e);
    for (int n = 0; n < 400; ++n) {
      const auto [l, r] = hllc_state_pair(n, scale);
      int regime = -1;
      const hc::Cons<double> want = textbook_hllc(l, r, 1.4, regime);
      double size = 0;
      for (int q = 0; q < 5; ++q) size = std::max(size, std::fabs(want.q[q]));
      const hc::Cons<float> got = hc::hllc_flux(narrow(l), narrow(r), gas);
      const hc::Cons<float> products = hc::hllc_flux_products(narrow(l), narrow(r), gas);
      bool products_ok = true;
      for (int q = 0; q < 5; ++q) {
        ASSERT_LE(std::fabs(double(got.q[q]) - want.q[q]), 1e-4 * size) << "10^" << e << ", pair " << n << " var " << q;
        products_ok = products_ok && std::fabs(double(products.q[q]) - want.q[q]) <= 1e-4 * size;
        // Where the products form stays in range, the scaling changes none of its bits.
        if (std::abs(e) <= 8) ASSERT_EQ(got.q[q], products.q[q]) << "10^" << e << ", pair " << n << " var " << q;
      }
      if (!products_ok) ++products_wrong_or_not_finite;
    }
  }
  EXPECT_GT(products_wrong_or_not_finite, 0);  // what the scaling is for
}

// The range of speeds (velocities and sound speeds together, pressures as their squares) over
// which fp32's HLLC stays accurate: its intermediates grow like rho^2 (|u| + c)^3 at densities
// near 1 (where the scaling puts the left one); the test covers speeds from 1e-9 to 1e9 at
// density ratios up to 100 (a float run in cgs units moves at under 3e10 cm/s).
TEST(Physics, HllcInFloatIsAccurateOverSpeedScales) {
  const hc::IdealGas<float> gas(1.4f);
  for (int e = -9; e <= 9; ++e) {
    // Thin (cgs-like) and dense gas, keeping the pressures normal floats.
    const double speed = std::pow(10.0, e), density = e >= 0 && e % 2 == 0 ? 1e-24 : 3e5;
    for (int n = 0; n < 400; ++n) {
      const auto [l, r] = hllc_state_pair(n, density, speed);
      int regime = -1;
      const hc::Cons<double> want = textbook_hllc(l, r, 1.4, regime);
      // Each flux in its own units (density times speed to the power 1, 2, 2, 2, 3), so that
      // the tolerance is the speed-1 test's at every scale.
      const double units[5] = {density * speed, density * speed * speed, density * speed * speed,
                               density * speed * speed, density * speed * speed * speed};
      double size = 0;
      for (int q = 0; q < 5; ++q) size = std::max(size, std::fabs(want.q[q]) / units[q]);
      const hc::Cons<float> got = hc::hllc_flux(narrow(l), narrow(r), gas);
      for (int q = 0; q < 5; ++q)
        ASSERT_LE(std::fabs(double(got.q[q]) - want.q[q]) / units[q], 1e-4 * size)
            << "speeds 10^" << e << ", pair " << n << " var " << q;
    }
  }
}

TEST(Physics, SignalRateSumsActiveDirections) {
  const hc::Prim<double> s{1.0, {1.0, -2.0, 3.0}, 1.0 / 1.4};  // c = 1
  const hc::IdealGas<double> gas(1.4);
  const hc::Cons<double> w = hc::to_cons(s, gas);
  const double inv_dx[3] = {10, 20, 40};
  const bool all[3] = {true, true, true}, x_only[3] = {true, false, false};
  EXPECT_NEAR(hc::signal_rate(w, gas, inv_dx, all), 2 * 10 + 3 * 20 + 4 * 40, 1e-12);
  EXPECT_NEAR(hc::signal_rate(w, gas, inv_dx, x_only), 20.0, 1e-12);
}

// The fused kernels convert each cell once (cell_prims) and take each frame from it
// (in_frame): that must be to_prim() of the rotated state bit for bit, in both precisions,
// or fused and split kernels would differ. States with velocities of different sizes and
// signs in every component, so that the three frames' kinetic sums round differently.
template <class Real>
void expect_frames_match_to_prim() {
  const hc::IdealGas<Real> gas{Real(1.4)};
  int differing_frames = 0;
  for (int n = 0; n < 2000; ++n) {
    const Real rho = Real(0.1) + Real(n % 17) / Real(7);
    const Real m[3] = {Real(n % 13) / Real(3) - Real(2), Real(1e-3) * Real(n % 7) - Real(0.002),
                       Real(n % 11) * Real(0.37) - Real(1.1)};
    const hc::Cons<Real> w{{rho, m[0], m[1], m[2], Real(10) + Real(n % 5)}};
    const hc::CellPrims<Real> s = hc::cell_prims(w, gas);
    for (int d = 0; d < 3; ++d) {
      const hc::Cons<Real> rotated{
          {w.q[0], w.q[1 + hc::rotated(d, 0)], w.q[1 + hc::rotated(d, 1)], w.q[1 + hc::rotated(d, 2)], w.q[4]}};
      const hc::Prim<Real> expected = hc::to_prim(rotated, gas), got = hc::in_frame(s, d);
      ASSERT_EQ(got.rho, expected.rho);
      for (int c = 0; c < 3; ++c) ASSERT_EQ(got.u[c], expected.u[c]) << "frame " << d << " component " << c;
      ASSERT_EQ(got.p, expected.p) << "frame " << d << " state " << n;
    }
    differing_frames += s.p[0] != s.p[1] || s.p[1] != s.p[2];
  }
  EXPECT_GT(differing_frames, 0) << "no state told the frames' pressures apart: the test would miss a mix-up";
}

TEST(Physics, CellPrimsGiveEachFramesToPrimExactly) {
  expect_frames_match_to_prim<double>();
  expect_frames_match_to_prim<float>();
}

namespace {
// |a - b| in units in the last place of b (a long double reference, rounded to double).
double ulps(double a, long double reference) {
  const double b = static_cast<double>(reference);
  return static_cast<double>(std::fabs(a - reference)) / (std::nextafter(std::fabs(b), HUGE_VAL) - std::fabs(b));
}
}  // namespace

// The initial states' own exp, log, pow and sin(pi x) (kernels/portable_math.hpp) agree with
// long double references to a few units in the last place over the ranges the problems use
// and beyond; special values as libm's.
TEST(PhysicsPortableMath, AgreesWithLongDoubleToAFewUlp) {
  const long double pi = 3.141592653589793238462643383279502884L;
  double worst[4] = {0, 0, 0, 0};
  for (int n = 0; n <= 20000; ++n) {
    const double x = -40.0 + 50.0 * n / 20000;  // exp over [-40, 10]
    worst[0] = std::max(worst[0], ulps(hc::portable::exp(x), std::exp(static_cast<long double>(x))));
    const double y = std::ldexp(1.0 + n / 20000.0, n % 60 - 30);  // log over 2^-30 .. 2^30
    if (y != 1.0) worst[1] = std::max(worst[1], ulps(hc::portable::log(y), std::log(static_cast<long double>(y))));
    const double r = 0.05 + 0.95 * n / 20000;  // the vortex's temperature ratios
    worst[2] = std::max(worst[2], ulps(hc::portable::pow(r, 2.5), std::pow(static_cast<long double>(r), 2.5L)));
    const double z = -3.0 + 6.0 * n / 20000;  // sin(pi z) over three periods
    const long double exact = std::sin(pi * static_cast<long double>(z));
    if (std::fabs(exact) > 1e-12L) worst[3] = std::max(worst[3], ulps(hc::portable::sin_pi(z), exact));
  }
  // Measured here: 1.07, 1.69, 9.78 and 3.08 ulp.
  EXPECT_LE(worst[0], 2.0) << "exp";
  EXPECT_LE(worst[1], 2.0) << "log";
  EXPECT_LE(worst[2], 12.0) << "pow";    // e^(b ln a): the rounding of b ln a, times |b ln a|
  EXPECT_LE(worst[3], 4.0) << "sin_pi";  // the rounding of pi r
  std::printf("worst ulps: exp %.2f, log %.2f, pow %.2f, sin_pi %.2f\n", worst[0], worst[1], worst[2], worst[3]);
  EXPECT_EQ(hc::portable::sin_pi(1.0), 0.0);
  EXPECT_EQ(hc::portable::sin_pi(0.5), 1.0);
  EXPECT_EQ(hc::portable::sin_pi(-1.5), 1.0);
  EXPECT_EQ(hc::portable::exp(0.0), 1.0);
  EXPECT_EQ(hc::portable::exp(-1000.0), 0.0);
  EXPECT_EQ(hc::portable::exp(1000.0), HUGE_VAL);
  EXPECT_EQ(hc::portable::log(1.0), 0.0);
  EXPECT_TRUE(std::isnan(hc::portable::log(-1.0)));
}
