// Tests of the exact Riemann solver against Toro's published star values (Table 4.2 of
// "Riemann Solvers and Numerical Methods for Fluid Dynamics", tests 1-5 of Table 4.1,
// gamma = 1.4) and against structural properties of the exact solution.
#include <gtest/gtest.h>

#include <cmath>
#include <stdexcept>

#include "kernels/exact_riemann.hpp"

namespace halocline {
namespace {

constexpr double kGamma = 1.4;

const Prim1D kSodL{1.0, 0.0, 1.0}, kSodR{0.125, 0.0, 0.1};  // Toro test 1

double sound(const Prim1D& s) { return std::sqrt(kGamma * s.p / s.rho); }

// Toro prints p* and u* to a fixed number of digits; the tolerance is half a unit in the
// last printed digit, except for test 5. Its inputs are tests 3 and 4's star states rounded
// to six digits, and p* is sensitive to that rounding (uL = 19.5975 vs 19.59745 moves p*
// by 0.005). The root of the pressure function for the printed inputs (checked by
// independent bisection) is p* = 1691.64696, u* = 8.689774, ~4e-6 relative from the
// table, so test 5 is held to relative 1e-5.
struct StarCase {
  const char* name;
  Prim1D l, r;
  double p_star, p_tol, u_star, u_tol;
};
void PrintTo(const StarCase& c, std::ostream* os) { *os << c.name; }

class ExactRiemannToroStarValues : public ::testing::TestWithParam<StarCase> {};

TEST_P(ExactRiemannToroStarValues, MatchTable42) {
  const StarCase& c = GetParam();
  const ExactRiemann rp(c.l, c.r, kGamma);
  EXPECT_NEAR(rp.p_star(), c.p_star, c.p_tol) << c.name;
  EXPECT_NEAR(rp.u_star(), c.u_star, c.u_tol) << c.name;
}

INSTANTIATE_TEST_SUITE_P(
    Toro, ExactRiemannToroStarValues,
    ::testing::Values(StarCase{"test1", kSodL, kSodR, 0.30313, 5e-6, 0.92745, 5e-6},
                      // symmetric: u* vanishes by symmetry, so hold it to round-off
                      StarCase{"test2", {1.0, -2.0, 0.4}, {1.0, 2.0, 0.4}, 0.00189, 5e-6, 0.0, 1e-10},
                      StarCase{"test3", {1.0, 0.0, 1000.0}, {1.0, 0.0, 0.01}, 460.894, 5e-4, 19.5975, 5e-5},
                      StarCase{"test4", {1.0, 0.0, 0.01}, {1.0, 0.0, 100.0}, 46.0950, 5e-5, -6.19633, 5e-6},
                      StarCase{"test5",
                               {5.99924, 19.5975, 460.894},
                               {5.99242, -6.19633, 46.0950},
                               1691.64,
                               1e-5 * 1691.64,
                               8.68975,
                               1e-5 * 8.68975}),
    [](const ::testing::TestParamInfo<StarCase>& info) { return std::string(info.param.name); });

TEST(ExactRiemann, SodFarFieldIsInitialDataExactly) {
  const ExactRiemann rp(kSodL, kSodR, kGamma);
  const Prim1D l = rp.sample(-100.0), r = rp.sample(100.0);
  EXPECT_EQ(l.rho, kSodL.rho);
  EXPECT_EQ(l.u, kSodL.u);
  EXPECT_EQ(l.p, kSodL.p);
  EXPECT_EQ(r.rho, kSodR.rho);
  EXPECT_EQ(r.u, kSodR.u);
  EXPECT_EQ(r.p, kSodR.p);
}

TEST(ExactRiemann, SodStarDensities) {
  const ExactRiemann rp(kSodL, kSodR, kGamma);
  const double ps = rp.p_star(), us = rp.u_star();
  // Left rarefaction: isentrope. Right shock: Rankine-Hugoniot density ratio.
  const double rho_l = kSodL.rho * std::pow(ps / kSodL.p, 1.0 / kGamma);
  const double gm = (kGamma - 1.0) / (kGamma + 1.0), pr = ps / kSodR.p;
  const double rho_r = kSodR.rho * (pr + gm) / (gm * pr + 1.0);
  EXPECT_NEAR(rho_l, 0.42632, 1e-4 * 0.42632);  // Toro's tabulated values
  EXPECT_NEAR(rho_r, 0.26557, 1e-4 * 0.26557);
  // Sampled just either side of the contact the solver returns these star states.
  const Prim1D sl = rp.sample(us - 1e-3), sr = rp.sample(us + 1e-3);
  EXPECT_NEAR(sl.rho, rho_l, 1e-12);
  EXPECT_NEAR(sr.rho, rho_r, 1e-12);
  EXPECT_NEAR(sl.rho, 0.42632, 1e-4 * 0.42632);
  EXPECT_NEAR(sr.rho, 0.26557, 1e-4 * 0.26557);
}

TEST(ExactRiemann, VelocityAndPressureContinuousAcrossContact) {
  const ExactRiemann rp(kSodL, kSodR, kGamma);
  const double us = rp.u_star();
  const Prim1D a = rp.sample(us - 1e-9), b = rp.sample(us + 1e-9);
  EXPECT_NEAR(a.u, b.u, 1e-12);
  EXPECT_NEAR(a.p, b.p, 1e-12);
  EXPECT_NEAR(a.u, us, 1e-12);
  EXPECT_NEAR(a.p, rp.p_star(), 1e-12);
  EXPECT_GT(a.rho - b.rho, 0.1);  // while density jumps
}

// Across the left (C-) rarefaction of Sod the invariant u + 2c/(g-1) carried by the C+
// characteristics is constant; across a right (C+) rarefaction it is u - 2c/(g-1).
TEST(ExactRiemann, RiemannInvariantInsideLeftFan) {
  const ExactRiemann rp(kSodL, kSodR, kGamma);
  const double cl = sound(kSodL);
  const double cstar = cl * std::pow(rp.p_star() / kSodL.p, 0.5 * (kGamma - 1.0) / kGamma);
  const double head = kSodL.u - cl, tail = rp.u_star() - cstar;
  const double j = kSodL.u + 2.0 * cl / (kGamma - 1.0);
  for (int i = 1; i < 20; ++i) {
    const double xi = head + (tail - head) * i / 20.0;
    const Prim1D s = rp.sample(xi);
    EXPECT_NEAR(s.u + 2.0 * sound(s) / (kGamma - 1.0), j, 1e-12) << "xi=" << xi;
    EXPECT_NEAR(s.u - sound(s), xi, 1e-12);  // the fan is centred: u - c = x/t
  }
}

TEST(ExactRiemann, RiemannInvariantInsideRightFan) {
  const Prim1D l{1.0, 0.0, 0.01}, r{1.0, 0.0, 100.0};  // Toro test 4
  const ExactRiemann rp(l, r, kGamma);
  const double cr = sound(r);
  const double cstar = cr * std::pow(rp.p_star() / r.p, 0.5 * (kGamma - 1.0) / kGamma);
  const double head = r.u + cr, tail = rp.u_star() + cstar;
  const double j = r.u - 2.0 * cr / (kGamma - 1.0);
  for (int i = 1; i < 20; ++i) {
    const double xi = tail + (head - tail) * i / 20.0;
    const Prim1D s = rp.sample(xi);
    EXPECT_NEAR(s.u - 2.0 * sound(s) / (kGamma - 1.0), j, 1e-12) << "xi=" << xi;
    EXPECT_NEAR(s.u + sound(s), xi, 1e-12);
  }
}

TEST(ExactRiemann, SymmetricProblemGivesAntisymmetricVelocity) {
  const ExactRiemann rp({1.0, -2.0, 0.4}, {1.0, 2.0, 0.4}, kGamma);  // Toro test 2
  for (int i = 0; i <= 400; ++i) {
    const double xi = -4.0 + 0.02 * i;  // covers both fans, the star region and far field
    const Prim1D a = rp.sample(xi), b = rp.sample(-xi);
    EXPECT_EQ(a.u, -b.u) << "xi=" << xi;
    EXPECT_EQ(a.rho, b.rho) << "xi=" << xi;
    EXPECT_EQ(a.p, b.p) << "xi=" << xi;
  }
}

TEST(ExactRiemann, VacuumGenerationThrowsDomainError) {
  EXPECT_THROW(ExactRiemann({1.0, -20.0, 0.4}, {1.0, 20.0, 0.4}, kGamma), std::domain_error);
}

TEST(ExactRiemann, NonPositiveInputsThrowInvalidArgument) {
  EXPECT_THROW(ExactRiemann({1.0, 0.0, -1.0}, kSodR, kGamma), std::invalid_argument);
  EXPECT_THROW(ExactRiemann(kSodL, {0.125, 0.0, 0.0}, kGamma), std::invalid_argument);
  EXPECT_THROW(ExactRiemann({0.0, 0.0, 1.0}, kSodR, kGamma), std::invalid_argument);
  EXPECT_THROW(ExactRiemann(kSodL, {-0.1, 0.0, 0.1}, kGamma), std::invalid_argument);
}

TEST(ExactRiemann, CellAverageOfUniformStateIsExact) {
  const Prim1D s{1.3, 0.7, 2.1};
  const ExactRiemann rp(s, s, kGamma);
  EXPECT_NEAR(rp.p_star(), s.p, 1e-14 * s.p);
  EXPECT_NEAR(rp.u_star(), s.u, 1e-14);
  for (double t : {0.0, 0.1, 1.0}) {
    const Prim1D a = rp.cell_average(-0.3, 0.45, 0.1, t);
    // exact up to the round-off of summing 64 equal values
    EXPECT_NEAR(a.rho, s.rho, 1e-14 * s.rho) << "t=" << t;
    EXPECT_NEAR(a.u, s.u, 1e-14 * s.u) << "t=" << t;
    EXPECT_NEAR(a.p, s.p, 1e-14 * s.p) << "t=" << t;
  }
}

TEST(ExactRiemann, CellAverageAcrossContactLiesBetweenStarDensities) {
  const ExactRiemann rp(kSodL, kSodR, kGamma);
  const double x0 = 0.5, t = 0.2;
  const double xc = x0 + rp.u_star() * t;  // contact position, ~0.6855
  const double xa = 0.66, xb = 0.71;       // inside the star region (tail ~0.486, shock ~0.850)
  ASSERT_LT(xa, xc);
  ASSERT_GT(xb, xc);
  const double rho_l = rp.sample(rp.u_star() - 1e-6).rho;
  const double rho_r = rp.sample(rp.u_star() + 1e-6).rho;
  const Prim1D a = rp.cell_average(xa, xb, x0, t);
  EXPECT_GT(a.rho, rho_r);
  EXPECT_LT(a.rho, rho_l);
  // The exact average weights the star densities by length; the midpoint rule is off by at
  // most one sub-interval's share of the jump.
  const double exact = ((xc - xa) * rho_l + (xb - xc) * rho_r) / (xb - xa);
  EXPECT_NEAR(a.rho, exact, (rho_l - rho_r) / 64.0);
  EXPECT_NEAR(a.u, rp.u_star(), 1e-12);
  EXPECT_NEAR(a.p, rp.p_star(), 1e-12);
}

TEST(ExactRiemann, CellAverageAtTimeZeroUsesInitialData) {
  const ExactRiemann rp(kSodL, kSodR, kGamma);
  const Prim1D left = rp.cell_average(0.1, 0.2, 0.5, 0.0);
  EXPECT_NEAR(left.rho, kSodL.rho, 1e-14);
  EXPECT_NEAR(left.p, kSodL.p, 1e-14);
  const Prim1D half = rp.cell_average(0.4, 0.6, 0.5, 0.0);  // half the cell each side
  EXPECT_NEAR(half.rho, 0.5 * (kSodL.rho + kSodR.rho), 1e-14);
  EXPECT_NEAR(half.p, 0.5 * (kSodL.p + kSodR.p), 1e-14);
}

}  // namespace
}  // namespace halocline
