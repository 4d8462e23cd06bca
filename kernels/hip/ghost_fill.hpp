// Ghost fill along one direction, one thread per ghost cell of both faces.
#pragma once

#include "kernels/hip/policies.hpp"
#include "kernels/stencil.hpp"

namespace halocline::hip {
// Ghost layers of direction d over the padded extent of the other two directions. Thread x
// runs along the other direction with the smaller stride (coalesced where it can be),
// thread y over the 2 ng layers, and the grid's z over the remaining direction.
HC_INLINE void ghost_directions(int d, int& fast, int& slow) {
  fast = d == 0 ? 1 : 0;
  slow = 3 - d - fast;
}

template <int D, class Real, class L>
__global__ void ghost_fill_kernel(Grid g, BoundaryFaces bc, StateRef<Real, L> u, const StepControl* control) {
  if (!step_planned(control)) return;
  constexpr int d = D;
  int fast, slow;
  ghost_directions(d, fast, slow);
  const int ia = static_cast<int>(blockIdx.x * blockDim.x + threadIdx.x);
  const int layer = static_cast<int>(blockIdx.y * blockDim.y + threadIdx.y);
  const int ib = static_cast<int>(blockIdx.z);
  const int n = g.n[d], ng = g.ng[d];
  if (layer >= 2 * ng || ia >= g.np[fast]) return;
  const int ghost = layer < ng ? layer : n + layer;  // low ghosts, then high ghosts
  if (!filled_by_boundary(ghost, ng, bc.face[d][0], bc.face[d][1])) return;
  bool flip = false;
  const int source = ghost_source(ghost, n, ng, bc.face[d][0], bc.face[d][1], flip);
  const std::size_t base = g.stride[fast] * ia + g.stride[slow] * ib;
  copy_ghost(u, base + g.stride[d] * ghost, base + g.stride[d] * source, d, flip);
}

}  // namespace halocline::hip
