// Initial states made where the state lives, from global cell indices, written once for the
// host (app/problems.cpp) and every backend (Backend::make_initial_state), so that a backend
// makes on its device, bit for bit, the state the host makes.
//
// These are the problems whose cells need only IEEE arithmetic (+, -, *, /, correctly
// rounded everywhere): a Riemann problem, the Sedov blast and the perturbed uniform gas.
// The isentropic vortex and Kelvin-Helmholtz need exp, pow and sin, whose last bits differ
// between the host's libm and the GPUs' math libraries; their states are made on the host.
#pragma once

#include <cstdint>

#include "kernels/grid.hpp"
#include "kernels/portability.hpp"

namespace halocline {

// The deck's problem in plain numbers (app/problems.cpp fills it).
struct InitialCondition {
  enum class Kind { Riemann, Sedov, Uniform } kind = Kind::Uniform;
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
};

// Conserved variables of a primitive state (the host's set-up and the kernels alike).
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

// The conserved state of the cell with global index `global` (x, y, z) of grid g.
HC_INLINE void initial_cell(const InitialCondition& ic, const Grid& g, const int global[3], double w[5]) {
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
