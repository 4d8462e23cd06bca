// Numerical faults: a state with a non-positive pressure (or density, or a NaN) stops the
// run with a NumericalError (exit code 3) naming the step and the first bad cell in global
// indices, on any decomposition, and saves the last good state as a checkpoint.
#include <gtest/gtest.h>

#include <cmath>
#include <cstdlib>
#include <filesystem>
#include <string>
#include <vector>

#include "app/bad_cells.hpp"
#include "app/checkpoints.hpp"
#include "app/driver.hpp"
#include "app/failures.hpp"
#include "app/problems.hpp"
#include "app/verify.hpp"
#include "io/checkpoint.hpp"
#include "io/deck.hpp"
#include "tests/test_support.hpp"

namespace hc = halocline;
namespace fs = std::filesystem;

namespace {

// A Riemann problem whose right state has a negative pressure: not a deck a user can
// write (validation refuses it), so the Config is changed after reading.
hc::Config broken(int nx) {
  hc::Config c =
      hc::load_deck(std::string(HALOCLINE_SOURCE_DIR) + "/inputs/sod.toml", {"grid.nx=" + std::to_string(nx)});
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
  } catch (const hc::AgreedExit& e) {  // refused before its first step (bad input)
    return "exit " + std::to_string(e.status.code) + ": " + e.status.message;
  }
  return "(no failure)";
}

TEST(Faults, NonPositivePressureNamesTheFirstBadCell) {
  for (hc::LayoutKind layout : {hc::LayoutKind::AoS, hc::LayoutKind::SoA, hc::LayoutKind::AoSoA}) {
    hc::Config c = broken(40);
    c.layout = layout;
    const std::string what = failure_of(c);
    // The initial state was the broken one: bad input (exit code 2), nothing to save.
    EXPECT_EQ(what.rfind("exit 2: the deck's initial state cannot be run: step 0, t = 0", 0), 0u) << what;
    EXPECT_NE(what.find("first bad cell (i, j, k) = (20, 0, 0)"), std::string::npos) << what;
    EXPECT_NE(what.find("p = -0.1"), std::string::npos) << what;
    EXPECT_EQ(what.find("saved"), std::string::npos) << what;
  }
}

// Over the ranks the earliest cell of the whole grid is said, whichever rank found it, and a
// rank that could not look through its state (a device error while its slabs were copied)
// is named beside it: it still took part in the gather, so no rank waits for it.
TEST(Faults, TheFirstBadCellOverTheRanksIsTheEarliest) {
  const std::vector<std::string> ranks = {"00000000000000000122at 122", "00000000000000000120at 120", "!a device error",
                                          "00000000000000000999"};
  EXPECT_EQ(hc::FirstBadCell::first_over_ranks(ranks),
            "at 120; rank 2 could not look through its state: a device error");
  EXPECT_EQ(hc::FirstBadCell::first_over_ranks({"00000000000000000999", "00000000000000000999"}),
            "every cell is finite with positive density and pressure, but the signal rate is not");
  EXPECT_EQ(hc::FirstBadCell::first_over_ranks({"!gone"}),
            "no bad cell found; rank 0 could not look through its state: gone");
}

TEST(Faults, NanInTheStateIsCaught) {
  hc::Config c = broken(16);
  c.riemann.right.p = 0.1;
  c.riemann.right.rho = std::nan("");
  const std::string what = failure_of(c);
  EXPECT_NE(what.find("first bad cell (i, j, k) = (8, 0, 0)"), std::string::npos) << what;
  EXPECT_NE(what.find("rho = nan"), std::string::npos) << what;
}

// A run that breaks part-way: Kelvin-Helmholtz at a CFL number far past stability (a deck
// cannot ask for it; validation stops at 1), which drives a pressure negative at step 7.
// On a GPU the host asks for steps ahead, so several are queued when the fault is found.
hc::Config unstable(const std::string& out, hc::LayoutKind layout, hc::Precision precision) {
  hc::Config c = hc::load_deck(std::string(HALOCLINE_SOURCE_DIR) + "/inputs/kh.toml", {"grid.nx=32", "grid.ny=32"});
  c.physics.cfl = 3.0;
  c.max_steps = 400;
  c.layout = layout;
  c.precision = precision;
  c.out_dir = out;
  c.output_final = false;
  return c;
}

// The step number after `key` in `text` ("step 17, t = ...": 17), or -1.
long number_after(const std::string& text, const std::string& key) {
  const std::size_t at = text.find(key);
  return at == std::string::npos ? -1 : std::strtol(text.c_str() + at + key.size(), nullptr, 10);
}

TEST(Faults, LastGoodStateIsSavedAsACheckpoint) {
  hc::test::TempDir dir("fault_last_good");
  long broken_at = -1;
  for (hc::Precision precision : {hc::Precision::FP64, hc::Precision::FP32})
    for (hc::LayoutKind layout : {hc::LayoutKind::AoS, hc::LayoutKind::SoA, hc::LayoutKind::AoSoA}) {
      SCOPED_TRACE(hc::layout_name(layout) + std::string(precision == hc::Precision::FP32 ? " fp32" : " fp64"));
      const std::string out =
          (dir.path() / hc::layout_name(layout)).string() + (precision == hc::Precision::FP32 ? "_fp32" : "_fp64");
      const hc::Config c = unstable(out, layout, precision);
      const std::string what = failure_of(c);
      const long step = number_after(what, "step ");
      ASSERT_GT(step, 1) << what;
      if (precision == hc::Precision::FP64 && broken_at < 0) broken_at = step;
      if (precision == hc::Precision::FP64) EXPECT_EQ(step, broken_at) << "layouts agree bit for bit";
      EXPECT_EQ(number_after(what, "the last good state (step "), step - 1) << what;
      const std::string path = hc::checkpoint_path(hc::checkpoint_dir(c), step - 1);
      ASSERT_NE(what.find("is saved in " + path), std::string::npos) << what;

      // The file holds the state after step - 1: every cell physical, and bit for bit the
      // state of a run stopped there.
      const hc::CheckpointHeader h = hc::read_checkpoint_header(path);
      EXPECT_EQ(h.step, step - 1);
      const hc::Grid whole = hc::grid_of(c);
      const std::vector<double> saved = hc::read_checkpoint_block(path, whole);
      const std::size_t n = whole.ninterior;
      const double gamma = c.physics.gamma;
      for (std::size_t i = 0; i < n; ++i) {
        const double rho = saved[i], m2 = saved[n + i] * saved[n + i] + saved[2 * n + i] * saved[2 * n + i] +
                                          saved[3 * n + i] * saved[3 * n + i];
        const double p = (gamma - 1) * (saved[4 * n + i] - 0.5 * m2 / rho);
        ASSERT_TRUE(std::isfinite(rho) && std::isfinite(p) && rho > 0 && p > 0) << "cell " << i;
      }
      hc::Config until = unstable(out + "_until", layout, precision);
      until.max_steps = step - 1;
      const hc::RunResult stopped = hc::run_quietly(until);
      EXPECT_EQ(stopped.sim_time, h.time);
      EXPECT_EQ(stopped.checksum, h.checksum);

      // Restarted at a stable CFL number, the run goes on from there.
      hc::Config again = unstable(out + "_again", layout, precision);
      again.physics.cfl = 0.4;
      again.max_steps = step + 5;
      again.restart_path = path;
      const hc::RunResult resumed = hc::run_quietly(again);
      EXPECT_EQ(resumed.steps, step + 5);
    }
}

// A checkpoint due at the very step that broke the state is not written (the state is
// checked first); the fault saves the step before instead. On a GPU the step asked past
// that stop finds the fault itself, and must not carry the broken state over the good one.
TEST(Faults, BrokenStateIsNeverACheckpoint) {
  hc::test::TempDir dir("fault_no_broken_checkpoint");
  const hc::Config first = unstable((dir.path() / "first").string(), hc::LayoutKind::SoA, hc::Precision::FP64);
  const long step = number_after(failure_of(first), "step ");
  ASSERT_GT(step, 2);
  for (long every : {step, step - 1}) {
    SCOPED_TRACE("every_steps = " + std::to_string(every));
    hc::Config c = unstable((dir.path() / std::to_string(every)).string(), hc::LayoutKind::SoA, hc::Precision::FP64);
    c.checkpoint.every_steps = every;
    c.checkpoint.keep = 10;
    const std::string what = failure_of(c);
    EXPECT_EQ(number_after(what, "step "), step) << what;
    EXPECT_EQ(number_after(what, "the last good state (step "), step - 1) << what;
    std::vector<std::string> files;
    for (const auto& e : fs::directory_iterator(hc::checkpoint_dir(c))) files.push_back(e.path().filename().string());
    EXPECT_EQ(files, std::vector<std::string>{fs::path(hc::checkpoint_path(".", step - 1)).filename().string()});
  }
}

// A run whose last step breaks the state: no step after it plans a time step, so the stop
// checks the state itself. The run ends in the NumericalError with the step before saved, not
// with exit 0, a checksum of NaNs and a final snapshot full of them (it did until 2026-12-06).
TEST(Faults, TheLastStepIsCheckedToo) {
  hc::test::TempDir dir("fault_last_step");
  const hc::Config first = unstable((dir.path() / "first").string(), hc::LayoutKind::SoA, hc::Precision::FP64);
  const long step = number_after(failure_of(first), "step ");
  ASSERT_GT(step, 2);
  hc::Config c = unstable((dir.path() / "last").string(), hc::LayoutKind::SoA, hc::Precision::FP64);
  c.max_steps = step;
  c.output_final = true;
  const std::string what = failure_of(c);
  EXPECT_EQ(number_after(what, "step "), step) << what;
  EXPECT_EQ(number_after(what, "the last good state (step "), step - 1) << what;
  EXPECT_TRUE(fs::exists(hc::checkpoint_path(hc::checkpoint_dir(c), step - 1))) << what;
  for (const auto& e : fs::directory_iterator(c.out_dir))  // kh.toml's only snapshot is the final one
    EXPECT_EQ(e.path().filename().string().rfind("snapshot_", 0), std::string::npos)
        << "a final snapshot of the broken state: " << e.path();
  c.max_steps = step - 1;  // a step earlier the run ends well
  c.out_dir = (dir.path() / "before").string();
  EXPECT_EQ(hc::run_quietly(c).steps, step - 1);
}

}  // namespace
