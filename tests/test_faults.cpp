// Numerical faults: a state with a non-positive pressure (or density, or a NaN) stops the
// run with a NumericalError (exit code 3) naming the step and the first bad cell in global
// indices, on any decomposition.
#include <gtest/gtest.h>

#include <string>

#include "app/driver.hpp"
#include "app/verify.hpp"
#include "io/deck.hpp"

namespace hc = halocline;

namespace {

// A Riemann problem whose right state has a negative pressure: not a deck a user can
// write (validation refuses it), so the Config is changed after reading.
hc::Config broken(int nx) {
  hc::Config c = hc::load_deck(std::string(HALOCLINE_SOURCE_DIR) + "/inputs/sod.toml",
                               {"grid.nx=" + std::to_string(nx)});
  c.riemann.preset = "custom";
  c.riemann.right.p = -0.1;
  c.max_steps = 3;
  return c;
}

std::string failure_of(const hc::Config& c) {
  try {
    hc::run_quietly(c);
  } catch (const hc::NumericalError& e) {
    return e.what();
  }
  return "(no NumericalError)";
}

TEST(Faults, NonPositivePressureNamesTheFirstBadCell) {
  for (hc::LayoutKind layout : {hc::LayoutKind::AoS, hc::LayoutKind::SoA, hc::LayoutKind::AoSoA}) {
    hc::Config c = broken(40);
    c.layout = layout;
    const std::string what = failure_of(c);
    EXPECT_NE(what.find("step 0, t = 0"), std::string::npos) << what;
    EXPECT_NE(what.find("first bad cell (i, j, k) = (20, 0, 0)"), std::string::npos) << what;
    EXPECT_NE(what.find("p = -0.1"), std::string::npos) << what;
  }
}

TEST(Faults, NanInTheStateIsCaught) {
  hc::Config c = broken(16);
  c.riemann.right.p = 0.1;
  c.riemann.right.rho = std::nan("");
  const std::string what = failure_of(c);
  EXPECT_NE(what.find("first bad cell (i, j, k) = (8, 0, 0)"), std::string::npos) << what;
  EXPECT_NE(what.find("rho = nan"), std::string::npos) << what;
}

}  // namespace
