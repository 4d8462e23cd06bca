// Initial conditions. Each problem is a function from a point to a primitive state;
// smooth problems are averaged over the cell by Gauss quadrature (so a second-order
// scheme's error against the exact cell average is truly second order), discontinuous ones
// take the value at the cell centre.
#include "app/problems.hpp"

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <functional>

#include "kernels/host_parallel.hpp"

namespace halocline {

namespace {

constexpr double kPi = 3.14159265358979323846;

using PointState = std::function<PrimState(const double x[3])>;

// Coordinate of x along direction d as a fraction of the domain, in [0, 1).
double fraction(const Config& c, const double x[3], int d) { return (x[d] - c.lo[d]) / (c.hi[d] - c.lo[d]); }

// Periodic minimum-image distance from a to b along direction d.
double periodic_delta(const Config& c, double a, double b, int d) {
  const double length = c.hi[d] - c.lo[d];
  double delta = a - b;
  delta -= length * std::floor(delta / length + 0.5);
  return delta;
}

PrimState riemann_state(const Config& c, const double x[3]) {
  const RiemannSetup& r = c.riemann;
  const PrimState& side = x[r.direction] < r.x0 ? r.left : r.right;
  // The deck's u is the velocity along the problem's direction, v and w the transverse
  // components in the rotated order of kernels/hydro.hpp, so the problem is the same
  // along x, y or z.
  const double normal_frame[3] = {side.u, side.v, side.w};
  double lab[3];
  for (int k = 0; k < 3; ++k) lab[(r.direction + k) % 3] = normal_frame[k];
  return PrimState{side.rho, lab[0], lab[1], lab[2], side.p};
}

// Yee et al. (1999): an isentropic vortex advected by a uniform flow.
PrimState vortex_state(const Config& c, const double x[3], double t) {
  const VortexSetup& v = c.vortex;
  const double gamma = c.physics.gamma;
  const double dx = periodic_delta(c, x[0], v.x0 + v.u * t, 0);
  const double dy = periodic_delta(c, x[1], v.y0 + v.v * t, 1);
  const double r2 = dx * dx + dy * dy;
  const double swirl = v.strength / (2 * kPi) * std::exp(0.5 * (1 - r2));
  const double t_inf = v.p / v.rho;
  const double temperature = t_inf - (gamma - 1) * v.strength * v.strength / (8 * gamma * kPi * kPi) * std::exp(1 - r2);
  const double ratio = temperature / t_inf;
  return PrimState{v.rho * std::pow(ratio, 1 / (gamma - 1)), v.u - swirl * dy, v.v + swirl * dx, 0.0,
                   v.p * std::pow(ratio, gamma / (gamma - 1))};
}

// McNally, Lyra and Passy (2012): a smooth shear layer pair with a seeded mode.
PrimState kh_state(const Config& c, const double x[3]) {
  const KelvinHelmholtzSetup& k = c.kh;
  const double y = fraction(c, x, 1), xf = fraction(c, x, 0);
  const double rho1 = k.rho_outer, rho2 = k.rho_inner;
  const double u1 = -k.velocity, u2 = k.velocity;
  const double rho_m = 0.5 * (rho1 - rho2), u_m = 0.5 * (u1 - u2);
  double rho, u;
  if (y < 0.25) {
    const double e = std::exp((y - 0.25) / k.width);
    rho = rho1 - rho_m * e, u = u1 - u_m * e;
  } else if (y < 0.5) {
    const double e = std::exp((0.25 - y) / k.width);
    rho = rho2 + rho_m * e, u = u2 + u_m * e;
  } else if (y < 0.75) {
    const double e = std::exp((y - 0.75) / k.width);
    rho = rho2 + rho_m * e, u = u2 + u_m * e;
  } else {
    const double e = std::exp((0.75 - y) / k.width);
    rho = rho1 - rho_m * e, u = u1 - u_m * e;
  }
  return PrimState{rho, u, k.amplitude * std::sin(4 * kPi * xf), 0.0, k.p};
}

// A deterministic pseudo-random number in [-1, 1] from a global cell index (splitmix64),
// so the perturbation does not depend on layout, rank count or loop order.
double hashed_unit(std::uint64_t index, unsigned seed) {
  std::uint64_t z = index + 0x9E3779B97F4A7C15ull * (seed + 1ull);
  z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ull;
  z = (z ^ (z >> 27)) * 0x94D049BB133111EBull;
  z ^= z >> 31;
  return 2.0 * (static_cast<double>(z >> 11) / 9007199254740992.0) - 1.0;
}

void store(std::vector<double>& out, std::size_t n, std::size_t cell, const double w[5]) {
  for (int v = 0; v < kNumVars; ++v) out[v * n + cell] = w[v];
}

void to_conserved(const PrimState& s, double gamma, double w[5]) {
  w[0] = s.rho;
  w[1] = s.rho * s.u;
  w[2] = s.rho * s.v;
  w[3] = s.rho * s.w;
  w[4] = s.p / (gamma - 1) + 0.5 * s.rho * (s.u * s.u + s.v * s.v + s.w * s.w);
}

// Cell averages of a smooth point state by 2-point Gauss quadrature per active direction.
void gauss_average(const Grid& g, const PointState& f, double gamma, int i, int j, int k, double w[5]) {
  static const double kNodes[2] = {-0.5 / std::sqrt(3.0), 0.5 / std::sqrt(3.0)};
  const int idx[3] = {i, j, k};
  int count[3];
  for (int d = 0; d < 3; ++d) count[d] = g.active(d) ? 2 : 1;
  for (int v = 0; v < kNumVars; ++v) w[v] = 0;
  for (int a = 0; a < count[0]; ++a)
    for (int b = 0; b < count[1]; ++b)
      for (int c = 0; c < count[2]; ++c) {
        const int q[3] = {a, b, c};
        double x[3];
        for (int d = 0; d < 3; ++d)
          x[d] = g.lo[d] + (g.offset[d] + idx[d] + 0.5 + (count[d] == 2 ? kNodes[q[d]] : 0.0)) * g.dx[d];
        double wq[5];
        to_conserved(f(x), gamma, wq);
        for (int v = 0; v < kNumVars; ++v) w[v] += wq[v];
      }
  const int points = count[0] * count[1] * count[2];
  for (int v = 0; v < kNumVars; ++v) w[v] /= points;
}

}  // namespace

Grid grid_of(const Config& c) {
  const int one[3] = {1, 1, 1}, origin[3] = {0, 0, 0};
  return grid_of(c, one, origin);
}

Grid grid_of(const Config& c, const int dims[3], const int coords[3]) {
  const int n[3] = {c.n[0], c.n[1], c.n[2]};
  const double lo[3] = {c.lo[0], c.lo[1], c.lo[2]};
  const double hi[3] = {c.hi[0], c.hi[1], c.hi[2]};
  int count[3], offset[3];
  for (int d = 0; d < 3; ++d) split_axis(n[d], dims[d], coords[d], count[d], offset[d]);
  return make_subgrid(n, lo, hi, offset, count);
}

BoundaryFaces boundary_of(const Config& c) {
  BoundaryFaces b;
  for (int d = 0; d < 3; ++d)
    for (int s = 0; s < 2; ++s) b.face[d][s] = c.boundary[d][s];
  return b;
}

std::vector<double> initial_state(const Config& c, const Grid& g) {
  const double gamma = c.physics.gamma;
  const std::size_t n = g.ninterior;
  std::vector<double> out(kNumVars * n);

  // Sedov: the blast energy spread evenly over the cells of the whole domain whose centre
  // lies within the deposit radius of the domain centre (counted over the global grid, so
  // that every subdomain deposits the same pressure).
  auto sedov_r2 = [&](const int global[3]) {
    double r2 = 0;
    for (int d = 0; d < 3; ++d) {
      if (!g.active(d)) continue;
      const double x = g.lo[d] + (global[d] + 0.5) * g.dx[d] - 0.5 * (c.lo[d] + c.hi[d]);
      r2 += x * x;
    }
    return r2;
  };
  double sedov_radius = 0, sedov_pressure = 0;
  if (c.problem == ProblemKind::Sedov) {
    double coarsest = 0;
    for (int d = 0; d < 3; ++d)
      if (g.active(d)) coarsest = std::max(coarsest, g.dx[d]);
    sedov_radius = c.sedov.radius_cells * coarsest;
    long inside = 0;
    for (int k = 0; k < g.n_global[2]; ++k)
      for (int j = 0; j < g.n_global[1]; ++j)
        for (int i = 0; i < g.n_global[0]; ++i) {
          const int global[3] = {i, j, k};
          inside += sedov_r2(global) < sedov_radius * sedov_radius;
        }
    double volume = inside;
    for (int d = 0; d < 3; ++d) volume *= g.dx[d];
    sedov_pressure = (gamma - 1) * c.sedov.energy / volume;
  }

  // Every cell on its own (the planes of constant k split over host threads).
  const std::size_t plane = static_cast<std::size_t>(g.n[0]) * g.n[1];
  parallel_for(
      static_cast<std::size_t>(g.n[2]),
      [&](std::size_t k0, std::size_t k1) {
        for (int k = static_cast<int>(k0); k < static_cast<int>(k1); ++k)
          for (int j = 0; j < g.n[1]; ++j)
            for (int i = 0; i < g.n[0]; ++i) {
              const std::size_t cell = (k * static_cast<std::size_t>(g.n[1]) + j) * g.n[0] + i;
              const double x[3] = {g.centre(0, i), g.centre(1, j), g.centre(2, k)};
              const int global[3] = {g.offset[0] + i, g.offset[1] + j, g.offset[2] + k};
              double w[5] = {0, 0, 0, 0, 0};
              switch (c.problem) {
                case ProblemKind::Riemann: to_conserved(riemann_state(c, x), gamma, w); break;
                case ProblemKind::IsentropicVortex:
                  gauss_average(
                      g, [&](const double* p) { return vortex_state(c, p, 0.0); }, gamma, i, j, k, w);
                  break;
                case ProblemKind::KelvinHelmholtz:
                  gauss_average(
                      g, [&](const double* p) { return kh_state(c, p); }, gamma, i, j, k, w);
                  break;
                case ProblemKind::Sedov: {
                  PrimState s{c.sedov.rho, 0, 0, 0, c.sedov.p};
                  if (sedov_r2(global) < sedov_radius * sedov_radius) s.p = sedov_pressure;
                  to_conserved(s, gamma, w);
                  break;
                }
                case ProblemKind::Uniform: {
                  PrimState s = c.uniform.state;
                  const std::uint64_t index = static_cast<std::uint64_t>(global[0]) +
                                              static_cast<std::uint64_t>(g.n_global[0]) *
                                                  (global[1] + static_cast<std::uint64_t>(g.n_global[1]) * global[2]);
                  s.rho *= 1.0 + c.uniform.perturbation * hashed_unit(index, c.uniform.seed);
                  to_conserved(s, gamma, w);
                  break;
                }
              }
              store(out, n, cell, w);
            }
      },
      1 + (1u << 14) / std::max<std::size_t>(1, plane));
  return out;
}

double vortex_exact_density(const Config& c, const Grid& g, int i, int j, double t) {
  const double x[3] = {g.centre(0, i), g.centre(1, j), 0.0};
  return vortex_state(c, x, t).rho;
}

}  // namespace halocline
