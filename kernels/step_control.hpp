// The time-step controller, written once for host and device.
//
// A backend keeps one StepControl where its state lives: on the host for CPU backends, in
// device memory for a device-resident GPU backend, where plan_step() and finish_step() run
// in a one-thread kernel so that the time step is made and used on the device with no
// synchronizing copy per step. The host sets where the run must stop (`t_stop`: the end
// time or the next output time; `step_limit`) and reads the status back, possibly a step
// late; a step asked for past a stop is a no-op (dt = 0), so a late host never overshoots.
#pragma once

#include "base/portability.hpp"

namespace halocline {

// The largest time step plan_step takes as one: a step of this or more (cells too large for
// the flow's speeds) is a failure, as a NaN or infinite rate is.
constexpr double kLargestTimeStep = 1e300;

struct StepControl {
  double t = 0;         // simulation time reached
  double t_before = 0;  // the time before the last step taken
  double dt = 0;        // the planned step (0: nothing to do)
  long step = 0;        // steps taken
  double t_stop = 0;    // do not advance past this time
  long step_limit = 0;  // nor past this many steps
  double cfl = 0.4;
  double max_rate = 0;    // the last max signal rate, for messages
  int lands = 0;          // the planned step ends exactly at t_stop
  int failed = 0;         // 1: the rate was not a positive finite number (NaN, Inf, p <= 0)
  int failed_array = -1;  // which of the backend's two solution arrays held the broken state
};

// Plans the next step from the maximum signal rate (see signal_rate in hydro.hpp): the CFL
// step, shortened to land exactly on t_stop. `array` names the backend's state array the
// rate was taken from, kept when it fails: the other one then holds the last good state.
HC_INLINE void plan_step(StepControl& c, double max_rate, int array) {
  c.dt = 0;
  c.lands = 0;
  // After a fault the steps asked past it see a rate of the unchanged state (or 0, where
  // a fused stage folded none in); max_rate keeps the rate that failed, for the message.
  if (c.failed) return;
  c.max_rate = max_rate;
  const double dt = c.cfl / max_rate;
  // NaN fails every comparison; an infinite rate gives dt = 0. Checked before the stop, so
  // that a step past a stop does not carry a broken state over the last good one.
  if (!(max_rate > 0) || !(dt > 0) || !(dt < kLargestTimeStep)) {
    c.failed = 1;
    c.failed_array = array;
    return;
  }
  if (c.t >= c.t_stop || c.step >= c.step_limit) return;
  c.lands = c.t + dt >= c.t_stop;
  c.dt = c.lands ? c.t_stop - c.t : dt;
}

HC_INLINE void finish_step(StepControl& c) {
  if (!(c.dt > 0)) return;
  c.t_before = c.t;
  c.t = c.lands ? c.t_stop : c.t + c.dt;  // t + (t_stop - t) may round off t_stop
  ++c.step;
}

}  // namespace halocline
