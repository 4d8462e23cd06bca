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
#include <string>
#include <vector>

#include "app/timers.hpp"

namespace halocline {

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
  virtual void get_state(std::vector<double>& canonical) = 0;

  // Fills the ghost layers of one state array from the boundary conditions, direction by
  // direction (x, then y including the x ghosts, then z) so edges and corners are right.
  virtual void fill_ghosts(Slot slot) = 0;

  // Face fluxes along direction d computed from state `slot` into the flux array of d.
  virtual void compute_fluxes(int d, Slot slot) = 0;

  // Stage 1: u1 = u0 - dt div F;  stage 2: u0 = (u0 + u1 - dt div F) / 2.
  virtual void update(int stage, double dt) = 0;

  // Largest sum over directions of (|u_d| + c) / dx_d over the interior of u0 (the inverse
  // of the stable time step before the CFL factor).
  virtual double max_signal_rate() = 0;

  // Waits until all work submitted so far has finished.
  virtual void fence() = 0;

  // The clock the driver's phase timers read (see app/timers.hpp).
  virtual std::unique_ptr<PhaseClock> make_clock() = 0;

  // Bytes of memory the backend holds for state and fluxes.
  virtual std::size_t bytes_allocated() const = 0;
};

}  // namespace halocline
