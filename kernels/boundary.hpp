// Boundary conditions by ghost cells: which interior cell a ghost copies, and whether
// the momentum normal to the face changes sign (reflecting wall).
#pragma once

#include "base/portability.hpp"

namespace halocline {

// Exchanged is not a boundary condition a deck can name: it marks a face whose ghosts the
// halo exchange fills (a neighbour rank's cells, or this rank's across a periodic face),
// which the ghost-fill kernels then leave alone.
enum class Boundary : int { Periodic = 0, Outflow = 1, Reflecting = 2, Exchanged = 3 };

// Boundary kind of each face: face[direction][0 = low, 1 = high].
struct BoundaryFaces {
  Boundary face[3][2] = {{Boundary::Outflow, Boundary::Outflow},
                         {Boundary::Outflow, Boundary::Outflow},
                         {Boundary::Outflow, Boundary::Outflow}};
};

// Whether ghost coordinate `g` of a direction with `ng` ghosts below `n` interior cells
// belongs to a face the ghost fill writes (every face but an exchanged one).
HC_INLINE bool filled_by_boundary(int g, int ng, Boundary lo, Boundary hi) {
  return (g < ng ? lo : hi) != Boundary::Exchanged;
}

// For ghost coordinate `g` along a direction with `n` interior cells after `ng` ghosts
// (interior coordinates ng .. ng+n-1): the coordinate it copies from, and in `flip`
// whether its normal momentum is negated.
//   periodic:   the cell one period away
//   outflow:    the nearest interior cell (zero gradient)
//   reflecting: the mirror image across the face, normal momentum negated
HC_INLINE int ghost_source(int g, int n, int ng, Boundary lo, Boundary hi, bool& flip) {
  flip = false;
  const bool low_side = g < ng;
  const Boundary b = low_side ? lo : hi;
  switch (b) {
    case Boundary::Periodic: return low_side ? g + n : g - n;
    case Boundary::Reflecting: flip = true; return low_side ? 2 * ng - 1 - g : 2 * (ng + n) - 1 - g;
    case Boundary::Outflow:
    default: return low_side ? ng : ng + n - 1;
  }
}

}  // namespace halocline
