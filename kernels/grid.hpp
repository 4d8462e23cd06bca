// The uniform Cartesian grid of one (sub)domain, with its ghost layers.
//
// Cells are numbered in one linear index over the padded box (interior + ghosts), x
// fastest: cell = i + nxp * (j + nyp * k). A direction with a single interior cell is
// inactive: it has no ghost layers and no fluxes are computed along it, so a 1-D run
// (ny = nz = 1) or a 2-D run (nz = 1) spends no work in the unused directions.
#pragma once

#include <cstddef>

#include "kernels/portability.hpp"

namespace halocline {

constexpr int kNumVars = 5;     // rho, rho*u, rho*v, rho*w, E
constexpr int kGhostLayers = 2; // MUSCL needs two cells on each side of a face

// Conserved variable indices.
enum Var : int { kRho = 0, kMomX = 1, kMomY = 2, kMomZ = 3, kEnergy = 4 };

struct Grid {
  int n[3] = {1, 1, 1};       // interior cells per direction
  int ng[3] = {0, 0, 0};      // ghost layers per direction (0 when inactive)
  int np[3] = {1, 1, 1};      // padded cells per direction: n + 2 ng
  double lo[3] = {0, 0, 0};   // domain lower corner
  double dx[3] = {1, 1, 1};   // cell size per direction
  std::size_t stride[3] = {1, 1, 1};  // linear-index stride of a step in each direction
  std::size_t ncells = 1;     // padded cells in all
  std::size_t ninterior = 1;  // interior cells in all

  HC_INLINE bool active(int d) const { return n[d] > 1; }
  HC_INLINE std::size_t index(int i, int j, int k) const {
    return static_cast<std::size_t>(i) + stride[1] * static_cast<std::size_t>(j) +
           stride[2] * static_cast<std::size_t>(k);
  }
  // Centre of padded cell (i, j, k) along direction d (coordinate index c).
  HC_INLINE double centre(int d, int c) const { return lo[d] + (c - ng[d] + 0.5) * dx[d]; }
};

// Builds the grid for nx * ny * nz interior cells spanning [lo, hi] in each direction.
inline Grid make_grid(const int n[3], const double lo[3], const double hi[3]) {
  Grid g;
  for (int d = 0; d < 3; ++d) {
    g.n[d] = n[d];
    g.ng[d] = n[d] > 1 ? kGhostLayers : 0;
    g.np[d] = n[d] + 2 * g.ng[d];
    g.lo[d] = lo[d];
    g.dx[d] = (hi[d] - lo[d]) / n[d];
  }
  g.stride[0] = 1;
  g.stride[1] = static_cast<std::size_t>(g.np[0]);
  g.stride[2] = g.stride[1] * static_cast<std::size_t>(g.np[1]);
  g.ncells = g.stride[2] * static_cast<std::size_t>(g.np[2]);
  g.ninterior = static_cast<std::size_t>(n[0]) * n[1] * n[2];
  return g;
}

}  // namespace halocline
