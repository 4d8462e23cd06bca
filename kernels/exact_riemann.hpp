// The exact solution of the Riemann problem for the 1-D Euler equations of an ideal gas
// (Toro, "Riemann Solvers and Numerical Methods for Fluid Dynamics", chapter 4): the star
// pressure by Newton iteration on the pressure function, then sampling of the self-similar
// solution. Host-only; used by `halocline verify` and the tests as the reference.
#pragma once

namespace halocline {

struct Prim1D {
  double rho, u, p;
};

class ExactRiemann {
 public:
  // Throws std::invalid_argument for non-positive density or pressure, and
  // std::domain_error when the data generate vacuum (pressure positivity condition fails).
  ExactRiemann(Prim1D left, Prim1D right, double gamma);

  // The state at similarity coordinate xi = (x - x0) / t.
  Prim1D sample(double xi) const;

  // Average of the exact density/velocity/pressure over the cell [xa, xb] at time t, for an
  // interface at x0 (midpoint rule over `samples` sub-intervals; used to compare with cell
  // averages).
  Prim1D cell_average(double xa, double xb, double x0, double t, int samples = 64) const;

  double p_star() const { return p_star_; }
  double u_star() const { return u_star_; }

 private:
  Prim1D l_, r_;
  double gamma_;
  double cl_, cr_;
  double p_star_, u_star_;
};

}  // namespace halocline
