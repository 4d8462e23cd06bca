// The step samples of a run whose host reads the device's status a step late (a GPU's): the
// steps it asks past each stop did nothing, and neither their times nor their count stay.
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

TEST(StepSamples, ExactStatusKeepsAllButTheTracedSteps) {
  StepSamples s;
  long asked = 0;
  ask(s, asked, 5);
  s.settle(asked, 5);  // an output stop at step 5, known at once (a CPU backend)
  ask(s, asked, 5);
  s.settle(asked, 10);
  EXPECT_EQ(s.times(), (std::vector<double>{1, 2, 5, 6, 7, 8, 9, 10}));
  EXPECT_EQ(s.idle_after_warmup(), 0);
}

TEST(StepSamples, StepsAskedPastEachStopLeave) {
  StepSamples s;
  long asked = 0;
  ask(s, asked, 6);  // steps 1-5; the sixth asked past the output stop at step 5
  s.settle(asked, 5);
  ask(s, asked, 6);  // steps 6-10, and one past the end
  s.settle(asked, 10);
  s.settle(asked, 10);  // the finish settles again: nothing more goes
  EXPECT_EQ(s.times(), (std::vector<double>{1, 2, 5, 7, 8, 9, 10, 11}));
  EXPECT_EQ(s.idle_after_warmup(), 2);
}

TEST(StepSamples, AnEmptyStepInTheWarmUpIsNotATimedOne) {
  StepSamples s;
  long asked = 0;
  ask(s, asked, 2);  // a one-step run: its step, and one past the end
  s.settle(asked, 1);
  EXPECT_EQ(s.times(), (std::vector<double>{1}));
  EXPECT_EQ(s.idle_after_warmup(), 0);
}

TEST(StepSamples, AnEmptyTracedStepTakesNoOtherSample) {
  StepSamples s;
  long asked = 0;
  ask(s, asked, 3);  // a stop at step 2; the traced third step was asked past it
  s.settle(asked, 2);
  ask(s, asked, 3);
  s.settle(asked, 5);
  EXPECT_EQ(s.times(), (std::vector<double>{1, 2, 5, 6}));
  EXPECT_EQ(s.idle_after_warmup(), 1);
}

}  // namespace
}  // namespace halocline
