// The Sedov-Taylor constant against its published values: Kamm and Timmes (2007), spherical
// blast, alpha = 0.851072 for gamma 1.4 and 0.493590 for gamma 5/3, where
// xi0 = alpha^(-1/5) (1.032777 and 1.151666); Taylor (1950) gave 1.033 for air. And against
// gamma 7's closed form, where f = eta / 4, g = 4 eta / 3, h = eta^3 / 4 and the energy
// integral is 1/72: xi0 = (2 pi / 225)^(-1/5).
#include <gtest/gtest.h>

#include <cmath>
#include <initializer_list>
#include <stdexcept>

#include "kernels/exact_sedov.hpp"

namespace halocline {
namespace {

double xi0_of_alpha(double alpha) { return std::pow(alpha, -0.2); }

TEST(ExactSedov, MatchesThePublishedConstants) {
  EXPECT_NEAR(sedov_taylor_constant(1.4), xi0_of_alpha(0.851072), 2e-6);
  EXPECT_NEAR(sedov_taylor_constant(5.0 / 3.0), xi0_of_alpha(0.493590), 2e-6);
}

TEST(ExactSedov, MatchesGammaSevensClosedForm) {
  EXPECT_NEAR(sedov_taylor_constant(7.0), std::pow(2.0 * std::acos(-1.0) / 225.0, -0.2), 1e-9);
}

// Finite and growing with gamma from one end of its range to the other, both ends included.
TEST(ExactSedov, GrowsWithGammaAcrossItsRange) {
  const int steps = 60;
  double before = 0.0;
  for (int i = 0; i <= steps; ++i) {
    const double gamma = i == steps ? kSedovGammaHigh : kSedovGammaLow + (kSedovGammaHigh - kSedovGammaLow) * i / steps;
    const double xi0 = sedov_taylor_constant(gamma);
    ASSERT_TRUE(std::isfinite(xi0)) << gamma;
    EXPECT_GT(xi0, before) << gamma;
    before = xi0;
  }
}

TEST(ExactSedov, RefusesAGammaOutsideItsRange) {
  for (double gamma : {1.0, 1.005, 7.01, 10.0, std::nan(""), -1.4})
    EXPECT_THROW(sedov_taylor_constant(gamma), std::invalid_argument) << gamma;
}

}  // namespace
}  // namespace halocline
