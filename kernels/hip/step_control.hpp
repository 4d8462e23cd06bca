// The time-step controller's own kernels (kernels/step_control.hpp), one thread each: the
// controller lives on the device, beside the state.
#pragma once

#include "kernels/hip/runtime.hpp"
#include "kernels/step_control.hpp"

namespace halocline::hip {
// The controller's own kernels: one thread each.
template <class Real>
__global__ void plan_step_kernel(StepControl* control, const Real* max_rate, int array) {
  plan_step(*control, static_cast<double>(*max_rate), array);
}

// Finishes the step and publishes the controller into host-mapped memory, where the host
// reads it after this step's event, with no copy call.
static __global__ void finish_step_kernel(StepControl* control, StepControl* published) {
  finish_step(*control);
  *published = *control;
}

static __global__ void set_stop_kernel(StepControl* control, double t_stop, long step_limit) {
  control->t_stop = t_stop;
  control->step_limit = step_limit;
}

}  // namespace halocline::hip
