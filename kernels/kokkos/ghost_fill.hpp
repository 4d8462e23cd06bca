// Ghost fill along one direction, as a Kokkos loop over the ghost cells of both faces.
#pragma once

#include "kernels/kokkos/policies.hpp"
#include "kernels/stencil.hpp"

namespace halocline::kokkos {

// Fills the 2 ng ghost layers of direction d over the whole padded extent of the other two
// directions, so that a later direction copies the earlier directions' ghosts too. Faces
// the halo exchange fills (Boundary::Exchanged) are left alone.
template <class Real, class L>
void fill_ghosts_along(const Exec& exec, const Grid& g, const BoundaryFaces& bc, const StateRef<Real, L>& u, int d) {
  if (!g.active(d)) return;
  const Boundary lo = bc.face[d][0], hi = bc.face[d][1];
  if (lo == Boundary::Exchanged && hi == Boundary::Exchanged) return;
  const int a = (d + 1) % 3, b = (d + 2) % 3;  // the two other directions
  const int n = g.n[d], ng = g.ng[d];
  const std::size_t sd = g.stride[d], sa = g.stride[a], sb = g.stride[b];
  Box3 policy(exec, {0, 0, 0}, {2 * ng, g.np[a], g.np[b]});
  Kokkos::parallel_for(
      "ghost_fill", policy, KOKKOS_LAMBDA(int layer, int ia, int ib) {
        // layers 0 .. ng-1 are the low ghosts, ng .. 2ng-1 the high ghosts
        const int ghost = layer < ng ? layer : n + layer;
        if (!filled_by_boundary(ghost, ng, lo, hi)) return;
        bool flip = false;
        const int source = ghost_source(ghost, n, ng, lo, hi, flip);
        const std::size_t base = sa * ia + sb * ib;
        copy_ghost(u, base + sd * ghost, base + sd * source, d, flip);
      });
}

}  // namespace halocline::kokkos
