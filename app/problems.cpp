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

void store(std::vector<double>& out, std::size_t n, std::size_t cell, const double w[5]) {
  for (int v = 0; v < kNumVars; ++v) out[v * n + cell] = w[v];
}

void to_conserved(const PrimState& s, double gamma, double w[5]) {
  const double prim[5] = {s.rho, s.u, s.v, s.w, s.p};
  conserved_of(prim, gamma, w);
}

void set_prim(const PrimState& s, double out[5]) {
  out[0] = s.rho, out[1] = s.u, out[2] = s.v, out[3] = s.w, out[4] = s.p;
}

// Cells of the whole domain whose centre lies within the Sedov deposit's radius. Only the
// cells of the box of the radius plus two cells can (further along one direction, one
// term of the distance alone is beyond the radius), so only those are counted.
long sedov_cells(const InitialCondition& ic, const Grid& g) {
  const double radius = std::sqrt(ic.radius2);
  int first[3], last[3];
  for (int d = 0; d < 3; ++d) {
    const double middle = (ic.centre[d] - g.lo[d]) / g.dx[d] - 0.5, reach = radius / g.dx[d] + 2;
    first[d] = g.active(d) ? static_cast<int>(std::max(0.0, std::floor(middle - reach))) : 0;
    last[d] = g.active(d) ? static_cast<int>(std::min<double>(g.n_global[d] - 1, std::ceil(middle + reach))) : 0;
  }
  long inside = 0;
  for (int k = first[2]; k <= last[2]; ++k)
    for (int j = first[1]; j <= last[1]; ++j)
      for (int i = first[0]; i <= last[0]; ++i) {
        const int global[3] = {i, j, k};
        inside += sedov_distance2(ic, g, global) < ic.radius2;
      }
  return inside;
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

bool initial_condition_of(const Config& c, const Grid& g, InitialCondition& ic) {
  ic = InitialCondition{};
  ic.gamma = c.physics.gamma;
  switch (c.problem) {
    case ProblemKind::Riemann: {
      const RiemannSetup& r = c.riemann;
      ic.kind = InitialCondition::Kind::Riemann;
      // The deck's u is the velocity along the problem's direction, v and w the transverse
      // components in the rotated order of kernels/hydro.hpp, so the problem is the same
      // along x, y or z.
      const PrimState* sides[2] = {&r.left, &r.right};
      double* lab[2] = {ic.left, ic.right};
      for (int s = 0; s < 2; ++s) {
        const double normal_frame[3] = {sides[s]->u, sides[s]->v, sides[s]->w};
        lab[s][0] = sides[s]->rho;
        lab[s][4] = sides[s]->p;
        for (int k = 0; k < 3; ++k) lab[s][1 + (r.direction + k) % 3] = normal_frame[k];
      }
      ic.x0 = r.x0;
      ic.direction = r.direction;
      return true;
    }
    case ProblemKind::Sedov: {
      // The blast energy spread evenly over the cells of the whole domain whose centre lies
      // within the deposit radius of the domain centre (counted over the global grid, so
      // that every subdomain deposits the same pressure).
      ic.kind = InitialCondition::Kind::Sedov;
      set_prim(PrimState{c.sedov.rho, 0, 0, 0, c.sedov.p}, ic.ambient);
      double coarsest = 0;
      for (int d = 0; d < 3; ++d) {
        ic.centre[d] = 0.5 * (c.lo[d] + c.hi[d]);
        if (g.active(d)) coarsest = std::max(coarsest, g.dx[d]);
      }
      const double radius = c.sedov.radius_cells * coarsest;
      ic.radius2 = radius * radius;
      double volume = static_cast<double>(sedov_cells(ic, g));
      for (int d = 0; d < 3; ++d) volume *= g.dx[d];
      ic.deposit_pressure = (ic.gamma - 1) * c.sedov.energy / volume;
      return true;
    }
    case ProblemKind::Uniform:
      ic.kind = InitialCondition::Kind::Uniform;
      set_prim(c.uniform.state, ic.ambient);
      ic.perturbation = c.uniform.perturbation;
      ic.seed = c.uniform.seed;
      return true;
    case ProblemKind::IsentropicVortex:
    case ProblemKind::KelvinHelmholtz: return false;
  }
  return false;
}

std::vector<double> initial_state(const Config& c, const Grid& g) {
  const double gamma = c.physics.gamma;
  const std::size_t n = g.ninterior;
  std::vector<double> out(kNumVars * n);
  InitialCondition ic;
  const bool closed_form = initial_condition_of(c, g, ic);
  // Every cell on its own (the planes of constant k split over host threads).
  const std::size_t plane = static_cast<std::size_t>(g.n[0]) * g.n[1];
  parallel_for(
      static_cast<std::size_t>(g.n[2]),
      [&](std::size_t k0, std::size_t k1) {
        for (int k = static_cast<int>(k0); k < static_cast<int>(k1); ++k)
          for (int j = 0; j < g.n[1]; ++j)
            for (int i = 0; i < g.n[0]; ++i) {
              const std::size_t cell = (k * static_cast<std::size_t>(g.n[1]) + j) * g.n[0] + i;
              const int global[3] = {g.offset[0] + i, g.offset[1] + j, g.offset[2] + k};
              double w[5] = {0, 0, 0, 0, 0};
              if (closed_form)
                initial_cell(ic, g, global, w);  // kernels/initial_state.hpp, as the backends
              else if (c.problem == ProblemKind::IsentropicVortex)
                gauss_average(
                    g, [&](const double* p) { return vortex_state(c, p, 0.0); }, gamma, i, j, k, w);
              else
                gauss_average(
                    g, [&](const double* p) { return kh_state(c, p); }, gamma, i, j, k, w);
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
