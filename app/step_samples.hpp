// The step-time samples of a run: which steps' times are kept.
//
// A step's time is the host's time between two submissions: with the device busy, the host
// waits there for the step before, so in a steady loop that is one step of the device. It is
// not steady after the device was idle: at the start (the warm-up), after the traced step
// (begun from an idle device) and after each stop (output, checkpoint: the host waited for
// the device there), the first two submissions return at once. Those are not kept, but for the
// warm-up's, which the report drops by their place (kWarmupSteps) and shows apart.
//
// A GPU's host also asks for a step before it knows that the one before reached a stop (the
// status it reads is a step late, so that the device never idles while the host decides). A
// step asked past a stop does nothing (dt = 0; stage 2 only carries the state over), once per
// stop. At each stop the host learns how many steps did work; the samples of the others go.
#pragma once

#include <utility>
#include <vector>

#include "app/driver.hpp"  // kWarmupSteps, kTracedStepsUnsampled

namespace halocline {

class StepSamples {
 public:
  // Asked step `asked` (1, 2, ... of this run) was submitted `seconds` after the step (or the
  // stop) before it.
  void add(long asked, double seconds) {
    ++since_stop_;
    const bool warm_up = asked <= kWarmupSteps;
    const bool traced = asked > kWarmupSteps && asked <= kWarmupSteps + kTracedStepsUnsampled;
    if (warm_up || (!traced && since_stop_ > kWarmupSteps)) samples_.emplace_back(asked, seconds);
  }

  // At a stop: of the `asked` steps submitted so far, `done` did work. Those asked past the
  // stop were the last ones asked: their samples go, but for a warm-up one (a stop at step 1),
  // which keeps its place: the report drops the warm-up's by their places.
  void settle(long asked, long done) {
    const long past = asked - done;  // asked past this stop and the ones before
    while (!samples_.empty() && samples_.back().first > done + settled_past_ && samples_.back().first > kWarmupSteps)
      samples_.pop_back();
    settled_past_ = past;
    since_stop_ = 0;
  }

  // Warm-up steps first (the report drops them), in the order asked.
  std::vector<double> times() const {
    std::vector<double> t;
    for (const auto& sample : samples_) t.push_back(sample.second);
    return t;
  }

 private:
  std::vector<std::pair<long, double>> samples_;  // (asked step, seconds)
  long settled_past_ = 0;                         // steps asked past the stops settled so far
  long since_stop_ = 0;                           // steps asked since the last stop (or the start)
};

}  // namespace halocline
