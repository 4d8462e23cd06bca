// Which step times a run keeps (app/step_samples.hpp): not those of steps begun from an idle
// device (after the traced step and after each stop), nor those of the steps a GPU's host
// asks past each stop before it learns of the stop (they do nothing).
#include <gtest/gtest.h>

#include "app/step_samples.hpp"

namespace halocline {
namespace {

// Each sample's value is the number of the step asked, so that the kept ones can be named.
void ask(StepSamples& s, long& asked, long count) {
  for (long i = 0; i < count; ++i) {
    ++asked;
    s.add(asked, static_cast<double>(asked));
  }
}

TEST(StepSamples, ASteadyRunKeepsAllButTheTracedSteps) {
  StepSamples s;
  long asked = 0;
  ask(s, asked, 10);
  s.settle(asked, 10);
  EXPECT_EQ(s.times(), (std::vector<double>{1, 2, 5, 6, 7, 8, 9, 10}));
}

// A stop at step 6, known at once (a CPU backend): steps 7 and 8 begin from an idle device.
TEST(StepSamples, TheTwoStepsAfterAStopGiveNone) {
  StepSamples s;
  long asked = 0;
  ask(s, asked, 6);
  s.settle(asked, 6);
  ask(s, asked, 6);
  s.settle(asked, 12);
  EXPECT_EQ(s.times(), (std::vector<double>{1, 2, 5, 6, 9, 10, 11, 12}));
}

// The same run where the host learns of each stop a step late (a GPU's): asked step 7 did
// nothing, asked steps 8-13 are steps 7-12, and asked step 14 did nothing. The same steps'
// times are kept.
TEST(StepSamples, StepsAskedPastEachStopLeave) {
  StepSamples s;
  long asked = 0;
  ask(s, asked, 7);
  s.settle(asked, 6);
  ask(s, asked, 7);
  s.settle(asked, 12);
  s.settle(asked, 12);  // the finish settles again: nothing more goes
  EXPECT_EQ(s.times(), (std::vector<double>{1, 2, 5, 6, 10, 11, 12, 13}));
}

// An empty step in the warm-up (a stop at step 1, known a step late) keeps its place: the
// report drops the first kWarmupSteps samples by their places, and the next steady step's
// sample must not take one of them.
TEST(StepSamples, AnEmptyStepInTheWarmUpKeepsItsPlace) {
  StepSamples s;
  long asked = 0;
  ask(s, asked, 2);  // step 1, and one asked past the stop at step 1
  s.settle(asked, 1);
  ask(s, asked, 6);  // steps 2-7: asked 3 and 4 traced (and the two after the stop), 5-8 steady
  s.settle(asked, 7);
  EXPECT_EQ(s.times(), (std::vector<double>{1, 2, 5, 6, 7, 8}));
}

}  // namespace
}  // namespace halocline
