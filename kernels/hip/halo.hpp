// Halo pack and unpack (kernels/halo.hpp) as HIP kernels: both exchanged faces of a
// direction in one launch, all five variables per thread.
#pragma once

#include "kernels/halo.hpp"
#include "kernels/hip/policies.hpp"

namespace halocline::hip {
// Halo messages of direction d (kernels/halo.hpp), both exchanged faces at once: thread x
// along the other direction of smaller stride, y over the layers, the grid's z over the
// last direction; all five variables per thread.
inline dim3 message_blocks(const Grid& g, int d) {
  int fast, slow;
  ghost_directions(d, fast, slow);
  return dim3((g.np[fast] + 63) / 64, (g.ng[d] + 3) / 4, g.np[slow]);
}

// Pack (Pack = true: ghost-adjacent interior cells -> messages) or unpack (messages ->
// ghosts) the faces `low` and `high` of direction d.
template <bool Pack, class Real, class L>
__global__ void halo_kernel(Grid g, StateRef<Real, L> u, int d, bool low, bool high, Real* message_low,
                            Real* message_high) {
  int fast, slow;
  ghost_directions(d, fast, slow);
  const int ia = static_cast<int>(blockIdx.x * blockDim.x + threadIdx.x);
  const int layer = static_cast<int>(blockIdx.y * blockDim.y + threadIdx.y);
  const int ib = static_cast<int>(blockIdx.z);
  if (ia >= g.np[fast] || layer >= g.ng[d]) return;
  halo_values<Pack>(g, u, d, low, high, layer, ia, ib, message_low, message_high);
}

}  // namespace halocline::hip
