// Exact Riemann solver for the 1-D Euler equations of an ideal gas, following the
// derivation in Toro, "Riemann Solvers and Numerical Methods for Fluid Dynamics", ch. 4.
// Written from the equations; see the header for the interface.
#include "kernels/exact_riemann.hpp"

#include <algorithm>
#include <cmath>
#include <sstream>
#include <stdexcept>
#include <string>

namespace halocline {

namespace {

// Value and derivative of the one-sided pressure function f_K(p) (Toro 4.6-4.7, 4.37):
// the velocity jump across the left or right wave as a function of the star pressure.
struct SideFn {
  double f, df;
};

SideFn side_function(double p, const Prim1D& s, double c, double g) {
  if (p > s.p) {
    // Shock: Rankine-Hugoniot relations, written with A_K and B_K.
    const double a = 2.0 / ((g + 1.0) * s.rho);
    const double b = (g - 1.0) / (g + 1.0) * s.p;
    const double q = std::sqrt(a / (p + b));
    return {(p - s.p) * q, q * (1.0 - 0.5 * (p - s.p) / (p + b))};
  }
  // Rarefaction: isentropic relation plus the generalised Riemann invariant.
  const double ratio = p / s.p;
  const double f = 2.0 * c / (g - 1.0) * (std::pow(ratio, 0.5 * (g - 1.0) / g) - 1.0);
  const double df = std::pow(ratio, -0.5 * (g + 1.0) / g) / (s.rho * c);
  return {f, df};
}

// Starting pressure for Newton, chosen as Toro (section 4.3.2) recommends: the
// primitive-variable (PVRS) estimate when the data are mild and it lies between pL and
// pR; the two-rarefaction estimate (exact when both waves are rarefactions) when PVRS
// falls below both pressures; otherwise the two-shock estimate seeded by PVRS. A good
// guess keeps the iteration count to a handful even for the strong-shock tests.
double initial_guess(const Prim1D& l, const Prim1D& r, double cl, double cr, double g) {
  const double pmin = std::min(l.p, r.p);
  const double pmax = std::max(l.p, r.p);
  const double ppv = std::max(0.0, 0.5 * (l.p + r.p) - 0.125 * (r.u - l.u) * (l.rho + r.rho) * (cl + cr));
  if (pmax / pmin <= 2.0 && ppv >= pmin && ppv <= pmax) return ppv;
  if (ppv < pmin) {
    const double z = 0.5 * (g - 1.0) / g;
    const double num = cl + cr - 0.5 * (g - 1.0) * (r.u - l.u);
    const double den = cl / std::pow(l.p, z) + cr / std::pow(r.p, z);
    return std::pow(num / den, 1.0 / z);
  }
  const double gl = std::sqrt(2.0 / ((g + 1.0) * l.rho) / (ppv + (g - 1.0) / (g + 1.0) * l.p));
  const double gr = std::sqrt(2.0 / ((g + 1.0) * r.rho) / (ppv + (g - 1.0) / (g + 1.0) * r.p));
  return (gl * l.p + gr * r.p - (r.u - l.u)) / (gl + gr);
}

void check_state(const Prim1D& s, const char* side) {
  // Written as !(x > 0) so that NaN is rejected too.
  if (!(s.rho > 0.0) || !(s.p > 0.0)) {
    std::ostringstream msg;
    msg << "ExactRiemann: " << side << " state must have positive density and pressure (rho=" << s.rho << ", p=" << s.p
        << ")";
    throw std::invalid_argument(msg.str());
  }
}

}  // namespace

ExactRiemann::ExactRiemann(Prim1D left, Prim1D right, double gamma) : l_(left), r_(right), gamma_(gamma) {
  check_state(l_, "left");
  check_state(r_, "right");
  if (!(gamma_ > 1.0)) throw std::invalid_argument("ExactRiemann: gamma must exceed 1");
  const double g = gamma_;
  cl_ = std::sqrt(g * l_.p / l_.rho);
  cr_ = std::sqrt(g * r_.p / r_.rho);

  // Pressure positivity condition (Toro 4.40): if the two rarefactions can separate the
  // gases faster than sound can fill the gap, no positive star pressure exists.
  const double du = r_.u - l_.u;
  if (2.0 * (cl_ + cr_) / (g - 1.0) <= du)
    throw std::domain_error("ExactRiemann: vacuum generated (pressure positivity condition fails)");

  // Newton-Raphson on f(p) = fL(p) + fR(p) + du. f is increasing and concave (Toro 4.3),
  // so from the left of the root Newton climbs monotonically and from the right one step
  // lands left of it -- possibly below zero, where the rarefaction branch is undefined;
  // the guard then halves p instead.
  const double tol = 1e-14;
  const int max_iter = 200;
  const double eps = 2.220446049250313e-16;
  // Round-off scale of f: near vacuum p* is ill-conditioned (f is a small difference of
  // O(c) terms), so the relative change may never reach tol; a residual already at the
  // round-off level of its terms is then as converged as the data allow.
  const double fscale = std::fabs(du) + 2.0 * (cl_ + cr_) / (g - 1.0);
  double p = std::max(initial_guess(l_, r_, cl_, cr_, g), tol * std::min(l_.p, r_.p));
  bool converged = false;
  for (int it = 0; it < max_iter && !converged; ++it) {
    const SideFn fl = side_function(p, l_, cl_, g);
    const SideFn fr = side_function(p, r_, cr_, g);
    const double f = fl.f + fr.f + du;
    double p_new = p - f / (fl.df + fr.df);
    if (p_new <= 0.0) p_new = 0.5 * p;  // stay positive: halve instead of crossing zero
    // Toro's criterion: relative change between iterates.
    converged = 2.0 * std::fabs(p_new - p) / (p_new + p) <= tol ||
                std::fabs(f) <= 8.0 * eps * (fscale + std::fabs(fl.f) + std::fabs(fr.f));
    p = p_new;
  }
  if (!converged || !std::isfinite(p))
    throw std::runtime_error("ExactRiemann: Newton iteration for p* did not converge");
  p_star_ = p;
  const double fl = side_function(p, l_, cl_, g).f;
  const double fr = side_function(p, r_, cr_, g).f;
  u_star_ = 0.5 * (l_.u + r_.u) + 0.5 * (fr - fl);
}

// Toro's sampling procedure (section 4.5). The right side mirrors the left with the sign
// of the velocities flipped; the expressions are written in mirrored order so that a
// mirror-symmetric problem gives exactly mirror-symmetric samples.
Prim1D ExactRiemann::sample(double xi) const {
  const double g = gamma_;
  const double gm = (g - 1.0) / (g + 1.0);  // (g-1)/(g+1), recurring in shock relations
  const double pstar = p_star_, ustar = u_star_;

  if (xi <= ustar) {  // left of the contact
    const double pr = pstar / l_.p;
    if (pstar > l_.p) {  // left shock
      const double s = l_.u - cl_ * std::sqrt(0.5 * (g + 1.0) / g * pr + 0.5 * (g - 1.0) / g);
      if (xi <= s) return l_;
      return {l_.rho * (pr + gm) / (gm * pr + 1.0), ustar, pstar};
    }
    // left rarefaction: head moves at uL - cL, tail at u* - c*L
    const double head = l_.u - cl_;
    if (xi <= head) return l_;
    const double cstar = cl_ * std::pow(pr, 0.5 * (g - 1.0) / g);
    if (xi >= ustar - cstar) return {l_.rho * std::pow(pr, 1.0 / g), ustar, pstar};
    // inside the fan: the C- characteristic through the origin has slope xi = u - c
    const double bracket = 2.0 / (g + 1.0) + gm / cl_ * (l_.u - xi);
    return {l_.rho * std::pow(bracket, 2.0 / (g - 1.0)), 2.0 / (g + 1.0) * (cl_ + 0.5 * (g - 1.0) * l_.u + xi),
            l_.p * std::pow(bracket, 2.0 * g / (g - 1.0))};
  }

  // right of the contact
  const double pr = pstar / r_.p;
  if (pstar > r_.p) {  // right shock
    const double s = r_.u + cr_ * std::sqrt(0.5 * (g + 1.0) / g * pr + 0.5 * (g - 1.0) / g);
    if (xi >= s) return r_;
    return {r_.rho * (pr + gm) / (gm * pr + 1.0), ustar, pstar};
  }
  const double head = r_.u + cr_;
  if (xi >= head) return r_;
  const double cstar = cr_ * std::pow(pr, 0.5 * (g - 1.0) / g);
  if (xi <= ustar + cstar) return {r_.rho * std::pow(pr, 1.0 / g), ustar, pstar};
  // inside the fan: the C+ characteristic through the origin has slope xi = u + c
  const double bracket = 2.0 / (g + 1.0) - gm / cr_ * (r_.u - xi);
  return {r_.rho * std::pow(bracket, 2.0 / (g - 1.0)), 2.0 / (g + 1.0) * (-cr_ + 0.5 * (g - 1.0) * r_.u + xi),
          r_.p * std::pow(bracket, 2.0 * g / (g - 1.0))};
}

// Cell average by a simple quadrature: the composite midpoint rule with `samples` equal
// sub-intervals. It is not adaptive: the solution is discontinuous at shocks and the
// contact, so the error is O(h / samples) per cell crossed by a discontinuity and
// O((h / samples)^2) elsewhere -- ample for comparing against a numerical solution whose
// own error is far larger. At t <= 0 the initial data (left state for x < x0) are used.
Prim1D ExactRiemann::cell_average(double xa, double xb, double x0, double t, int samples) const {
  if (samples < 1) throw std::invalid_argument("ExactRiemann::cell_average: samples must be >= 1");
  if (!(xb > xa)) throw std::invalid_argument("ExactRiemann::cell_average: need xb > xa");
  const double h = (xb - xa) / samples;
  double rho = 0.0, u = 0.0, p = 0.0;
  for (int i = 0; i < samples; ++i) {
    const double x = xa + (i + 0.5) * h;
    const Prim1D s = (t <= 0.0) ? (x < x0 ? l_ : r_) : sample((x - x0) / t);
    rho += s.rho;
    u += s.u;
    p += s.p;
  }
  return {rho / samples, u / samples, p / samples};
}

}  // namespace halocline
