// The uniform Cartesian grid of one (sub)domain, with its ghost layers.
//
// Cells are numbered in one linear index over the padded box (interior + ghosts), x
// fastest: cell = i + nxp * (j + nyp * k). A direction with a single interior cell is
// inactive: it has no ghost layers and no fluxes are computed along it, so a 1-D run
// (ny = nz = 1) or a 2-D run (nz = 1) spends no work in the unused directions.
#pragma once

#include <cstddef>

#include "base/portability.hpp"

namespace halocline {

constexpr int kNumVars = 5;      // rho, rho*u, rho*v, rho*w, E
constexpr int kGhostLayers = 2;  // MUSCL needs two cells on each side of a face

// Conserved variable indices.
enum Var : int { kRho = 0, kMomX = 1, kMomY = 2, kMomZ = 3, kEnergy = 4 };

// The most padded cells a GPU backend takes in one subdomain: fp64 device code indexes cells in
// 32 bits (Grid::index32 in the fused tile, StateRef's SoA). Far beyond any GPU's memory today
// (2^32 cells are 172 GB a state array in fp64, and a run holds at least three).
constexpr std::size_t kMaxDeviceCells = 0xffffffffu;

struct Grid {
  int n[3] = {1, 1, 1};               // interior cells per direction (of this subdomain)
  int ng[3] = {0, 0, 0};              // ghost layers per direction (0 when inactive)
  int np[3] = {1, 1, 1};              // padded cells per direction: n + 2 ng
  int n_global[3] = {1, 1, 1};        // interior cells of the whole domain
  int offset[3] = {0, 0, 0};          // global index of this subdomain's first interior cell
  double lo[3] = {0, 0, 0};           // lower corner of the whole domain
  double dx[3] = {1, 1, 1};           // cell size per direction
  std::size_t stride[3] = {1, 1, 1};  // linear-index stride of a step in each direction
  std::size_t ncells = 1;             // padded cells in all
  std::size_t ninterior = 1;          // interior cells in all

  // A direction is active when the whole domain has more than one cell along it (a
  // subdomain of one cell along an active direction still has ghosts and fluxes).
  HC_INLINE bool active(int d) const { return n_global[d] > 1; }
  HC_INLINE std::size_t index(int i, int j, int k) const {
    return static_cast<std::size_t>(i) + stride[1] * static_cast<std::size_t>(j) +
           stride[2] * static_cast<std::size_t>(k);
  }
  // The same index in 32 bits, for device code where the subdomain has at most kMaxDeviceCells.
  HC_INLINE std::size_t index32(int i, int j, int k) const {
    return static_cast<unsigned>(i) + static_cast<unsigned>(stride[1]) * static_cast<unsigned>(j) +
           static_cast<unsigned>(stride[2]) * static_cast<unsigned>(k);
  }
  // Centre along direction d of interior cell i (local index, from 0) of this subdomain,
  // computed from the global index so that every decomposition gives the same value.
  HC_INLINE double centre(int d, int i) const { return lo[d] + (offset[d] + i + 0.5) * dx[d]; }
};

// Builds the grid of the subdomain of n_local cells starting at global index `offset` of a
// domain of n_global cells spanning [lo, hi] in each direction.
inline Grid make_subgrid(const int n_global[3], const double lo[3], const double hi[3], const int offset[3],
                         const int n_local[3]) {
  Grid g;
  for (int d = 0; d < 3; ++d) {
    g.n[d] = n_local[d];
    g.n_global[d] = n_global[d];
    g.offset[d] = offset[d];
    g.ng[d] = n_global[d] > 1 ? kGhostLayers : 0;
    g.np[d] = n_local[d] + 2 * g.ng[d];
    g.lo[d] = lo[d];
    g.dx[d] = (hi[d] - lo[d]) / n_global[d];
  }
  g.stride[0] = 1;
  g.stride[1] = static_cast<std::size_t>(g.np[0]);
  g.stride[2] = g.stride[1] * static_cast<std::size_t>(g.np[1]);
  g.ncells = g.stride[2] * static_cast<std::size_t>(g.np[2]);
  g.ninterior = static_cast<std::size_t>(n_local[0]) * n_local[1] * n_local[2];
  return g;
}

// Splits n cells among `parts` subdomains as evenly as possible, the first n % parts
// getting one cell more: the count and global offset of subdomain `index`.
inline void split_axis(int n, int parts, int index, int& count, int& offset) {
  const int base = n / parts, extra = n % parts;
  count = base + (index < extra ? 1 : 0);
  offset = index * base + (index < extra ? index : extra);
}

// The grid of the whole domain: nx * ny * nz interior cells spanning [lo, hi].
inline Grid make_grid(const int n[3], const double lo[3], const double hi[3]) {
  const int origin[3] = {0, 0, 0};
  return make_subgrid(n, lo, hi, origin, n);
}

}  // namespace halocline
