// Iteration ranges of the Kokkos kernels. All loops run over (i, j, k) with i fastest
// (Iterate::Left), which walks memory in order for the linear cell index i + nx (j + ny k).
#pragma once

#include <Kokkos_Core.hpp>
#include <array>

#include "kernels/grid.hpp"
#include "kernels/halo.hpp"

namespace halocline::kokkos_detail {

using Exec = Kokkos::DefaultExecutionSpace;
using Box3 = Kokkos::MDRangePolicy<Exec, Kokkos::Rank<3, Kokkos::Iterate::Left, Kokkos::Iterate::Left>,
                                   Kokkos::IndexType<int>>;

// The execution space runs in host memory (Serial, OpenMP), not on a GPU.
constexpr bool kHostExecution =
    Kokkos::SpaceAccessibility<Kokkos::HostSpace, Exec::memory_space>::accessible;

// Where and how a cell loop runs: the instance, and the tile of cells (i, j, k) that one
// thread block takes on a GPU (--kokkos-tile): {0, 0, 0} the backend's choice, {-1, -1, -1}
// Kokkos' own tiling, otherwise the tile given.
struct Launch {
  Exec exec;
  std::array<int, 3> tile{0, 0, 0};
};

// The cells of `box`, extended by `extra` cells on the high side of direction d (for the
// n + 1 faces of direction d; extra = 0 and d = -1 for cells), run as `on` says. The
// backend's choice on a GPU is the native backend's thread block, 64 x 4 x 1 cells with i
// fastest (kernels/hip/kernels.hpp), so that a warp reads 32 neighbouring cells of a row:
// with Kokkos' own tiles the step took 1.48x the native backend's on the H200
// (docs/kokkos.md). On the host spaces the backend's choice is Kokkos' own tiling.
inline Box3 cells_of(const Launch& on, const CellBox& box, int d = -1, int extra = 0) {
  int hi[3];
  for (int a = 0; a < 3; ++a) hi[a] = box.hi[a] + (a == d ? extra : 0);
  const bool kokkos_tiles = on.tile[0] < 0 || (on.tile[0] == 0 && kHostExecution);
  if (kokkos_tiles) return Box3(on.exec, {box.lo[0], box.lo[1], box.lo[2]}, {hi[0], hi[1], hi[2]});
  const std::array<int, 3> t = on.tile[0] > 0 ? on.tile : std::array<int, 3>{64, 4, 1};
  return Box3(on.exec, {box.lo[0], box.lo[1], box.lo[2]}, {hi[0], hi[1], hi[2]}, {t[0], t[1], t[2]});
}

}  // namespace halocline::kokkos_detail
