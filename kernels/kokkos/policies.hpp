// Iteration ranges of the Kokkos kernels. All loops run over (i, j, k) with i fastest
// (Iterate::Left), which walks memory in order for the linear cell index i + nx (j + ny k).
#pragma once

#include <Kokkos_Core.hpp>

#include "kernels/grid.hpp"
#include "kernels/halo.hpp"

namespace halocline::kokkos_detail {

using Exec = Kokkos::DefaultExecutionSpace;
using Box3 = Kokkos::MDRangePolicy<Exec, Kokkos::Rank<3, Kokkos::Iterate::Left, Kokkos::Iterate::Left>,
                                   Kokkos::IndexType<int>>;

// The execution space runs in host memory (Serial, OpenMP), not on a GPU.
constexpr bool kHostExecution =
    Kokkos::SpaceAccessibility<Kokkos::HostSpace, Exec::memory_space>::accessible;

// The cells of `box`, extended by `extra` cells on the high side of direction d (for the
// n + 1 faces of direction d; extra = 0 and d = -1 for cells), run on instance `exec`.
// On a GPU the tiles are the native backend's thread blocks, 64 x 4 x 1 cells with i
// fastest (kernels/hip/kernels.hpp), so that a warp reads 32 neighbouring cells of one row.
// With Kokkos' default tiles the step took 1.48x the native backend's on the H200
// (docs/kokkos.md); whether these tiles close the gap is still to be measured. The host
// spaces keep Kokkos' default tiling.
inline Box3 cells_of(const Exec& exec, const CellBox& box, int d = -1, int extra = 0) {
  int hi[3];
  for (int a = 0; a < 3; ++a) hi[a] = box.hi[a] + (a == d ? extra : 0);
  if constexpr (kHostExecution)
    return Box3(exec, {box.lo[0], box.lo[1], box.lo[2]}, {hi[0], hi[1], hi[2]});
  else
    return Box3(exec, {box.lo[0], box.lo[1], box.lo[2]}, {hi[0], hi[1], hi[2]}, {64, 4, 1});
}

}  // namespace halocline::kokkos_detail
