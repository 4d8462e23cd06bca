// Initial conditions: the deck's problem in the plain numbers of kernels/initial_state.hpp,
// whose functions make each cell (smooth problems averaged over the cell by Gauss
// quadrature, discontinuous ones at the cell centre) on the host here and in every backend.
#include "app/problems.hpp"

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <cstdio>
#include <string>

#include "base/host_parallel.hpp"
#include "io/deck.hpp"

namespace halocline {

namespace {

void store(std::vector<double>& out, std::size_t n, std::size_t cell, const double w[5]) {
  for (int v = 0; v < kNumVars; ++v) out[v * n + cell] = w[v];
}

void set_prim(const PrimState& s, double out[5]) {
  out[0] = s.rho, out[1] = s.u, out[2] = s.v, out[3] = s.w, out[4] = s.p;
}

// The cells of the whole domain whose centre lies within the Sedov deposit's radius, and the
// squared distance of the nearest centre. Only the cells of the box of the radius plus two
// cells can lie within it (further along one direction, one term of the distance alone is
// beyond the radius), and the nearest centres (the domain's centre lies at most half a cell
// from one along each direction) lie in that box too, so only those are looked at.
struct SedovCells {
  long inside = 0;
  double nearest2 = HUGE_VAL;
};
SedovCells sedov_cells(const InitialCondition& ic, const Grid& g) {
  const double radius = std::sqrt(ic.radius2);
  int first[3], last[3];
  for (int d = 0; d < 3; ++d) {
    const double middle = (ic.centre[d] - g.lo[d]) / g.dx[d] - 0.5, reach = radius / g.dx[d] + 2;
    first[d] = g.active(d) ? static_cast<int>(std::max(0.0, std::floor(middle - reach))) : 0;
    last[d] = g.active(d) ? static_cast<int>(std::min<double>(g.n_global[d] - 1, std::ceil(middle + reach))) : 0;
  }
  SedovCells cells;
  for (int k = first[2]; k <= last[2]; ++k)
    for (int j = first[1]; j <= last[1]; ++j)
      for (int i = first[0]; i <= last[0]; ++i) {
        const int global[3] = {i, j, k};
        const double r2 = sedov_distance2(ic, g, global);
        cells.inside += r2 < ic.radius2;
        cells.nearest2 = std::min(cells.nearest2, r2);
      }
  return cells;
}

std::string sedov_refusal(double radius_cells, double nearest_cells) {
  char text[240];
  std::snprintf(text, sizeof text,
                "key 'sedov.radius_cells' = %.6g holds no cell centre, so no energy would be deposited: the "
                "nearest centres lie %.6g cells from the domain's centre; give a radius larger than that",
                radius_cells, nearest_cells);
  return text;
}

}  // namespace

std::array<bool, 3> periodic_directions(const Config& c) {
  std::array<bool, 3> periodic{};
  for (int d = 0; d < 3; ++d)
    periodic[d] = c.boundary[d][0] == Boundary::Periodic && c.boundary[d][1] == Boundary::Periodic;
  return periodic;
}

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

InitialCondition initial_condition_of(const Config& c, const Grid& g) {
  InitialCondition ic;
  ic.gamma = c.physics.gamma;
  for (int d = 0; d < 3; ++d) ic.lo[d] = c.lo[d], ic.hi[d] = c.hi[d];
  ic.gauss_node = 0.5 / std::sqrt(3.0);
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
      break;
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
      const SedovCells cells = sedov_cells(ic, g);
      // A radius that holds no cell centre would deposit no energy at all: a quiet box
      // reported as a blast. The nearest centres lie half a cell from the domain's centre along
      // each direction with an even number of cells.
      if (cells.inside == 0) throw DeckError(sedov_refusal(c.sedov.radius_cells, std::sqrt(cells.nearest2) / coarsest));
      double volume = static_cast<double>(cells.inside);
      for (int d = 0; d < 3; ++d) volume *= g.dx[d];
      ic.deposit_pressure = (ic.gamma - 1) * c.sedov.energy / volume;
      break;
    }
    case ProblemKind::Uniform:
      ic.kind = InitialCondition::Kind::Uniform;
      set_prim(c.uniform.state, ic.ambient);
      ic.perturbation = c.uniform.perturbation;
      ic.seed = c.uniform.seed;
      break;
    case ProblemKind::IsentropicVortex: {
      const VortexSetup& v = c.vortex;
      ic.kind = InitialCondition::Kind::Vortex;
      ic.strength = v.strength, ic.x0v = v.x0, ic.y0v = v.y0, ic.uv = v.u, ic.vv = v.v;
      ic.rho_inf = v.rho, ic.p_inf = v.p;
      break;
    }
    case ProblemKind::KelvinHelmholtz: {
      const KelvinHelmholtzSetup& k = c.kh;
      ic.kind = InitialCondition::Kind::KelvinHelmholtz;
      ic.rho_inner = k.rho_inner, ic.rho_outer = k.rho_outer, ic.velocity = k.velocity;
      ic.kh_p = k.p, ic.width = k.width, ic.amplitude = k.amplitude;
      break;
    }
  }
  return ic;
}

std::vector<double> initial_state(const Config& c, const Grid& g) {
  const std::size_t n = g.ninterior;
  std::vector<double> out(kNumVars * n);
  const InitialCondition ic = initial_condition_of(c, g);
  // Every cell on its own (the planes of constant k split over host threads), with the
  // functions the backends use (kernels/initial_state.hpp).
  const std::size_t plane = static_cast<std::size_t>(g.n[0]) * g.n[1];
  parallel_for(
      static_cast<std::size_t>(g.n[2]),
      [&](std::size_t k0, std::size_t k1) {
        for (int k = static_cast<int>(k0); k < static_cast<int>(k1); ++k)
          for (int j = 0; j < g.n[1]; ++j)
            for (int i = 0; i < g.n[0]; ++i) {
              const std::size_t cell = (k * static_cast<std::size_t>(g.n[1]) + j) * g.n[0] + i;
              const int global[3] = {g.offset[0] + i, g.offset[1] + j, g.offset[2] + k};
              double w[5];
              initial_cell(ic, g, global, w);
              store(out, n, cell, w);
            }
      },
      1 + (1u << 14) / std::max<std::size_t>(1, plane));
  return out;
}

double vortex_exact_density(const InitialCondition& ic, const Grid& g, int i, int j, double t) {
  const double x[3] = {g.centre(0, i), g.centre(1, j), 0.0};
  double s[5];
  vortex_point(ic, x, t, s);
  return s[0];
}

}  // namespace halocline
