// The backend seam: what the shared driver (app/driver.cpp) asks of a programming model.
//
// A backend owns the state in its own memory, in one layout and precision, and runs the
// kernels of kernels/stencil.hpp over it. The driver owns the algorithm: the order of the
// SSP-RK2 stages, the time step, output, and every timer. A new programming model (native
// HIP, next) implements this interface in its own folder under kernels/, like
// kernels/kokkos/, and is chosen in app/select.cpp.
#pragma once

#include <cstddef>
#include <memory>
#include <stdexcept>
#include <string>
#include <vector>

#include "app/timers.hpp"
#include "app/transfers.hpp"
#include "kernels/step_control.hpp"

namespace halocline {

// The machine cannot hold what the run needs (device or host memory): exit code 2, before
// any work.
struct ResourceError : std::runtime_error {
  using std::runtime_error::runtime_error;
};

// What the backend runs on, for the report.
struct DeviceInfo {
  std::string kind;             // "cpu" or "gpu"
  std::string name;             // device or execution-space name
  std::size_t memory_bytes = 0; // device memory (0: host memory)
  int compute_units = 0;        // SMs / CUs, or host threads
  std::string runtime_version, driver_version;
};

// The two state arrays of SSP-RK2: the solution u0, and the first-stage solution u1.
enum class Slot { U0 = 0, U1 = 1 };

class Backend {
 public:
  virtual ~Backend() = default;

  // e.g. "kokkos (Serial)": the model and where it runs.
  virtual std::string description() const = 0;

  // Copies the conserved state in canonical order (variable-major; interior cells, x
  // fastest) into / out of u0. Values are converted to and from the backend's precision.
  virtual void set_state(const std::vector<double>& canonical) = 0;
  // `purpose` says how the copy is counted (app/transfers.hpp).
  virtual void get_state(std::vector<double>& canonical, Purpose purpose = Purpose::Output) = 0;
  // Starts copying u0, as it is after the work submitted so far, to the host for the next
  // get_state(), so that the copy can overlap steps submitted before get_state() is called.
  // False when the backend cannot (get_state() then returns the state at its own call).
  virtual bool begin_state_copy() { return false; }

  // Owner models that keep the state away from the device between steps move it at the
  // start and end of every step (the host owner's naive port; managed prefetches).
  virtual bool moves_state_each_step() const { return false; }
  virtual void upload_state() {}
  virtual void download_state() {}

  // ---- The time-step controller (kernels/step_control.hpp), kept where the state is ----
  // Starts the controller at `initial` (time, step, stop, CFL).
  virtual void reset_control(const StepControl& initial) = 0;
  // Moves the stop: the run will not advance past t_stop or step_limit.
  virtual void set_stop(double t_stop, long step_limit) = 0;
  // The max signal rate over the interior of u0 (a reduction), then plan_step(): the time
  // step, made where the state is.
  virtual void plan_step() = 0;
  // t += dt, step += 1 (finish_step()), and publish the status for the host.
  virtual void finish_step() = 0;
  // The controller as the host can see it. exact = true waits for all submitted work; with
  // exact = false a backend may answer with the status of the step before the last one
  // submitted, so that the host never waits for the step the device is running.
  virtual StepControl step_status(bool exact) = 0;

  // ---- One SSP-RK2 stage; each does nothing when the planned dt is 0 ----
  // Fills the ghost layers of one state array from the boundary conditions, direction by
  // direction (x, then y including the x ghosts, then z) so edges and corners are right.
  virtual void fill_ghosts(Slot slot) = 0;

  // Face fluxes along direction d computed from state `slot` into the flux array of d.
  virtual void compute_fluxes(int d, Slot slot) = 0;

  // Stage 1: u1 = u0 - dt div F;  stage 2: u0 = (u0 + u1 - dt div F) / 2, with the planned dt.
  virtual void update(int stage) = 0;

  // Waits until all work submitted so far has finished.
  virtual void fence() = 0;

  // The clock the driver's phase timers read (see app/timers.hpp).
  virtual std::unique_ptr<PhaseClock> make_clock() = 0;

  // Bytes of memory the backend holds for state and fluxes.
  virtual std::size_t bytes_allocated() const = 0;

  virtual DeviceInfo device_info() const = 0;

  // Sums over the interior of u0 of the five conserved variables (not yet times the cell
  // volume), reduced where the state lives. False: this backend has no device reduction
  // (the driver's host totals are the only ones).
  virtual bool device_sums(double sums[5]) {
    (void)sums;
    return false;
  }

  // Every host-device copy made so far (empty for a backend in host memory).
  virtual const TransferLog& transfers() const = 0;
};

}  // namespace halocline
