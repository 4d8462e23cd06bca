// Initial states made where the state lives, from global cell indices, written once for the
// host (app/problems.cpp) and every backend (Backend::make_initial_state), so that a backend
// makes on its device, bit for bit, the state the host makes.
//
// Every problem needs only IEEE arithmetic (+, -, *, /, correctly rounded everywhere): the
// exp, pow and sin of the isentropic vortex and Kelvin-Helmholtz come from
// kernels/portable_math.hpp, not from the host's libm or a GPU's math library, whose last
// bits differ.
#pragma once

#include <cstdint>

#include "base/grid.hpp"
#include "base/portability.hpp"
#include "kernels/portable_math.hpp"

namespace halocline {

// The deck's problem in plain numbers (app/problems.cpp fills it).
struct InitialCondition {
  enum class Kind { Riemann, Sedov, Uniform, Vortex, KelvinHelmholtz } kind = Kind::Uniform;
  double gamma = 1.4;
  // Primitive states (rho, u, v, w, p) in the lab frame: the Riemann problem's two sides
  // (left below x0 along `direction`), the uniform gas, and Sedov's ambient gas.
  double left[5] = {}, right[5] = {};
  double x0 = 0;
  int direction = 0;
  double ambient[5] = {};
  // Sedov: cells whose centre lies closer than the deposit radius to the domain's centre
  // (radius2 = radius^2) take the deposit's pressure; distances along active directions.
  double centre[3] = {};
  double radius2 = 0, deposit_pressure = 0;
  // Uniform: the density perturbation's relative amplitude and seed.
  double perturbation = 0;
  unsigned seed = 0;
  // The smooth problems: the domain [lo, hi], and each cell's average by 2-point Gauss
  // quadrature per active direction at +-gauss_node cells from its centre.
  double lo[3] = {}, hi[3] = {};
  double gauss_node = 0;
  // Vortex (Yee et al. 1999): strength beta, centre at t = 0, background flow and state.
  double strength = 0, x0v = 0, y0v = 0, uv = 0, vv = 0, rho_inf = 1, p_inf = 1;
  // Kelvin-Helmholtz (McNally, Lyra and Passy 2012): the streams' densities and speed,
  // pressure, layer width and seeded amplitude.
  double rho_inner = 0, rho_outer = 0, velocity = 0, kh_p = 0, width = 1, amplitude = 0;
};

// Conserved variables of a primitive state (the host's set-up and the kernels alike). Not
// kernels/hydro.hpp's to_cons, which rounds the kinetic energy with fused multiply-adds: the
// initial states' bits are those the shipped reference checksums (inputs/) were made from.
HC_INLINE void conserved_of(const double s[5], double gamma, double w[5]) {
  w[0] = s[0];
  w[1] = s[0] * s[1];
  w[2] = s[0] * s[2];
  w[3] = s[0] * s[3];
  w[4] = s[4] / (gamma - 1) + 0.5 * s[0] * (s[1] * s[1] + s[2] * s[2] + s[3] * s[3]);
}

// A deterministic pseudo-random number in [-1, 1] from a global cell index (SplitMix64), so
// the perturbation does not depend on layout, rank count or loop order.
HC_INLINE double hashed_unit(std::uint64_t index, unsigned seed) {
  std::uint64_t z = index + 0x9E3779B97F4A7C15ull * (seed + 1ull);
  z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ull;
  z = (z ^ (z >> 27)) * 0x94D049BB133111EBull;
  z ^= z >> 31;
  return 2.0 * (static_cast<double>(z >> 11) / 9007199254740992.0) - 1.0;
}

// Squared distance of the centre of the cell with global index `global` from the Sedov
// deposit's centre, along the active directions.
HC_INLINE double sedov_distance2(const InitialCondition& ic, const Grid& g, const int global[3]) {
  double r2 = 0;
  for (int d = 0; d < 3; ++d) {
    if (!g.active(d)) continue;
    const double x = g.lo[d] + (global[d] + 0.5) * g.dx[d] - ic.centre[d];
    r2 += x * x;
  }
  return r2;
}

// Periodic minimum-image distance from a to b along direction d.
HC_INLINE double periodic_delta(const InitialCondition& ic, double a, double b, int d) {
  const double length = ic.hi[d] - ic.lo[d];
  double delta = a - b;
  delta -= length * portable::floor(delta / length + 0.5);
  return delta;
}

// The isentropic vortex's primitive state at point x and time t.
HC_INLINE void vortex_point(const InitialCondition& ic, const double x[3], double t, double s[5]) {
  constexpr double kPi = portable::kPi;
  const double gamma = ic.gamma;
  const double dx = periodic_delta(ic, x[0], ic.x0v + ic.uv * t, 0);
  const double dy = periodic_delta(ic, x[1], ic.y0v + ic.vv * t, 1);
  const double r2 = dx * dx + dy * dy;
  const double swirl = ic.strength / (2 * kPi) * portable::exp(0.5 * (1 - r2));
  const double t_inf = ic.p_inf / ic.rho_inf;
  const double temperature =
      t_inf - (gamma - 1) * ic.strength * ic.strength / (8 * gamma * kPi * kPi) * portable::exp(1 - r2);
  const double ratio = temperature / t_inf;
  s[0] = ic.rho_inf * portable::pow(ratio, 1 / (gamma - 1));
  s[1] = ic.uv - swirl * dy;
  s[2] = ic.vv + swirl * dx;
  s[3] = 0.0;
  s[4] = ic.p_inf * portable::pow(ratio, gamma / (gamma - 1));
}

// Kelvin-Helmholtz's primitive state at point x: two smooth shear layers (at y = 1/4 and
// 3/4 of the domain) and a seeded mode of v.
HC_INLINE void kh_point(const InitialCondition& ic, const double x[3], double s[5]) {
  const double y = (x[1] - ic.lo[1]) / (ic.hi[1] - ic.lo[1]);
  const double xf = (x[0] - ic.lo[0]) / (ic.hi[0] - ic.lo[0]);
  const double rho1 = ic.rho_outer, rho2 = ic.rho_inner;
  const double u1 = -ic.velocity, u2 = ic.velocity;
  const double rho_m = 0.5 * (rho1 - rho2), u_m = 0.5 * (u1 - u2);
  const bool outer = y < 0.25 || y >= 0.75;
  const double edge = y < 0.5 ? 0.25 : 0.75;
  // Below an edge the exponent is (y - edge) / width, above it (edge - y) / width: <= 0.
  const double e = portable::exp((y < edge ? y - edge : edge - y) / ic.width);
  s[0] = outer ? rho1 - rho_m * e : rho2 + rho_m * e;
  s[1] = outer ? u1 - u_m * e : u2 + u_m * e;
  s[2] = ic.amplitude * portable::sin_pi(4 * xf);
  s[3] = 0.0;
  s[4] = ic.kh_p;
}

// The average over the cell with global index `global` of a smooth problem's conserved
// state: 2-point Gauss quadrature per active direction (a second-order scheme's error
// against the exact cell average is then truly second order).
HC_INLINE void gauss_average(const InitialCondition& ic, const Grid& g, const int global[3], double w[5]) {
  int count[3];
  for (int d = 0; d < 3; ++d) count[d] = g.active(d) ? 2 : 1;
  for (int v = 0; v < 5; ++v) w[v] = 0;
  for (int a = 0; a < count[0]; ++a)
    for (int b = 0; b < count[1]; ++b)
      for (int c = 0; c < count[2]; ++c) {
        const int q[3] = {a, b, c};
        double x[3];
        for (int d = 0; d < 3; ++d)
          x[d] =
              g.lo[d] + (global[d] + 0.5 + (count[d] == 2 ? (q[d] ? ic.gauss_node : -ic.gauss_node) : 0.0)) * g.dx[d];
        double s[5], wq[5];
        if (ic.kind == InitialCondition::Kind::Vortex)
          vortex_point(ic, x, 0.0, s);
        else
          kh_point(ic, x, s);
        conserved_of(s, ic.gamma, wq);
        for (int v = 0; v < 5; ++v) w[v] += wq[v];
      }
  const int points = count[0] * count[1] * count[2];
  for (int v = 0; v < 5; ++v) w[v] /= points;
}

// The conserved state of the cell with global index `global` (x, y, z) of grid g.
HC_INLINE void initial_cell(const InitialCondition& ic, const Grid& g, const int global[3], double w[5]) {
  if (ic.kind == InitialCondition::Kind::Vortex || ic.kind == InitialCondition::Kind::KelvinHelmholtz) {
    gauss_average(ic, g, global, w);
    return;
  }
  double s[5];
  const double* from = ic.ambient;
  if (ic.kind == InitialCondition::Kind::Riemann) {
    const int d = ic.direction;
    from = g.lo[d] + (global[d] + 0.5) * g.dx[d] < ic.x0 ? ic.left : ic.right;
  }
  for (int v = 0; v < 5; ++v) s[v] = from[v];
  if (ic.kind == InitialCondition::Kind::Sedov && sedov_distance2(ic, g, global) < ic.radius2)
    s[4] = ic.deposit_pressure;
  if (ic.kind == InitialCondition::Kind::Uniform) {
    const std::uint64_t index =
        static_cast<std::uint64_t>(global[0]) +
        static_cast<std::uint64_t>(g.n_global[0]) * (global[1] + static_cast<std::uint64_t>(g.n_global[1]) * global[2]);
    s[0] *= 1.0 + ic.perturbation * hashed_unit(index, ic.seed);
  }
  conserved_of(s, ic.gamma, w);
}

// The same for the interior cell (i, j, k) of g in padded indices.
HC_INLINE void initial_cell_at(const InitialCondition& ic, const Grid& g, int i, int j, int k, double w[5]) {
  const int global[3] = {i - g.ng[0] + g.offset[0], j - g.ng[1] + g.offset[1], k - g.ng[2] + g.offset[2]};
  initial_cell(ic, g, global, w);
}

}  // namespace halocline
