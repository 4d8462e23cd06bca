// The step-time samples of a run, and which of the steps the host asked for did work.
//
// A GPU's host asks for a step before it knows whether the one before reached a stop (the
// end, an output time, a checkpoint): the status it reads is a step late, so that the device
// never idles while the host decides. Such a step, asked past a stop, does nothing (dt = 0;
// stage 2 only carries the state over), and its time is no step's: it is short, and it is
// asked once per stop. At each stop the host learns how many steps did work; the samples of
// the rest go, and they leave the count of timed steps, so that neither the median step time
// nor the phases per step count them.
#pragma once

#include <vector>

#include "app/driver.hpp"  // kWarmupSteps, kTracedStepsUnsampled

namespace halocline {

class StepSamples {
 public:
  // Whether the time of asked step `asked` (1, 2, ... of this run) is kept as a sample: all
  // but the traced step and the one after it (the pipeline refills after the trace's fence).
  static bool sampled(long asked) { return !(asked > kWarmupSteps && asked <= kWarmupSteps + kTracedStepsUnsampled); }

  // Asked step `asked` was submitted `seconds` after the step (or stop) before it.
  void add(long asked, double seconds) {
    if (sampled(asked)) times_.push_back(seconds);
  }

  // At a stop: of the `asked` steps submitted so far, `done` did work. The others not yet
  // settled were the last ones asked; their samples are dropped.
  void settle(long asked, long done) {
    for (long a = asked; a > done + idle_; --a) {
      if (sampled(a) && !times_.empty()) times_.pop_back();
      if (a > kWarmupSteps) ++idle_timed_;
    }
    if (asked - done > idle_) idle_ = asked - done;
  }

  // Warm-up steps first (the report drops them), in the order asked.
  const std::vector<double>& times() const { return times_; }
  // Steps after the warm-up that did nothing: they leave the phase timers' step count.
  long idle_after_warmup() const { return idle_timed_; }

 private:
  std::vector<double> times_;
  long idle_ = 0;        // steps asked so far that did nothing
  long idle_timed_ = 0;  // those of them after the warm-up
};

}  // namespace halocline
