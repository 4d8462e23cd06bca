// Iteration ranges of the Kokkos kernels. All loops run over (i, j, k) with i fastest
// (Iterate::Left), which walks memory in order for the linear cell index i + nx (j + ny k).
#pragma once

#include <Kokkos_Core.hpp>
#include <array>
#include <type_traits>

#include "base/grid.hpp"
#include "kernels/halo.hpp"

namespace halocline::kokkos {

using Exec = Kokkos::DefaultExecutionSpace;
using Box3 =
    Kokkos::MDRangePolicy<Exec, Kokkos::Rank<3, Kokkos::Iterate::Left, Kokkos::Iterate::Left>, Kokkos::IndexType<int>>;

// The execution space runs in host memory (Serial, OpenMP), not on a GPU.
constexpr bool kHostExecution = Kokkos::SpaceAccessibility<Kokkos::HostSpace, Exec::memory_space>::accessible;

// Where and how a cell loop runs: the instance, and the tile of cells (i, j, k) that one
// thread block takes on a GPU (--kokkos-tile): {0, 0, 0} the backend's choice, {-1, -1, -1}
// Kokkos' own tiling, {-2, -2, -2} no tiles at all (one flat range, see for_cells), otherwise
// the tile given.
//
// The backend's choice on a GPU is the flat range: one thread per cell, i fastest, the
// mapping of the native backend's kernels. On the H200 at 256^3 (SoA) a step took 1.05x
// (fp64) and 1.07x (fp32) the native backend's with it, against 1.46x and 1.22x with the
// best rank-3 tiles tried (docs/kokkos.md says why). On the host spaces the backend's
// choice is Kokkos' own tiling.
struct Launch {
  Exec exec;
  std::array<int, 3> tile{0, 0, 0};
  bool flat() const { return tile[0] == -2 || (tile[0] == 0 && !kHostExecution); }
};

// The cells of `box`, extended by `extra` cells on the high side of direction d (for the
// n + 1 faces of direction d; extra = 0 and d = -1 for cells), as a rank-3 range: in the
// tiles given, or else in Kokkos' own.
inline Box3 cells_of(const Launch& on, const CellBox& box, int d = -1, int extra = 0) {
  int hi[3];
  for (int a = 0; a < 3; ++a) hi[a] = box.hi[a] + (a == d ? extra : 0);
  if (on.tile[0] <= 0) return Box3(on.exec, {box.lo[0], box.lo[1], box.lo[2]}, {hi[0], hi[1], hi[2]});
  return Box3(on.exec, {box.lo[0], box.lo[1], box.lo[2]}, {hi[0], hi[1], hi[2]}, {on.tile[0], on.tile[1], on.tile[2]});
}

// A cell functor f(i, j, k) (or f(i, j, k, value) for a reduction) over one flat index of
// the box's cells, i fastest: the mapping a hand-written kernel makes from a 1-D thread index.
template <class F>
struct FlatCells {
  F f;
  int lo[3], n0, n1;
  KOKKOS_INLINE_FUNCTION void cell(long idx, int& i, int& j, int& k) const {
    const long row = idx / n0;
    i = lo[0] + static_cast<int>(idx - row * n0);
    j = lo[1] + static_cast<int>(row % n1);
    k = lo[2] + static_cast<int>(row / n1);
  }
  KOKKOS_INLINE_FUNCTION void operator()(long idx) const {
    int i, j, k;
    cell(idx, i, j, k);
    f(i, j, k);
  }
};

// The same for a reduction of values of type T (one operator(), as Kokkos deduces T from it).
template <class F, class T>
struct FlatReduce {
  FlatCells<F> cells;
  KOKKOS_INLINE_FUNCTION void operator()(long idx, T& value) const {
    int i, j, k;
    cells.cell(idx, i, j, k);
    cells.f(i, j, k, value);
  }
};

// The functor that decodes the flat index of the box of cells_of(on, box, d, extra), and
// that box's flat range.
template <class F>
FlatCells<F> flat_cells(const CellBox& box, int d, int extra, const F& f) {
  return FlatCells<F>{f,
                      {box.lo[0], box.lo[1], box.lo[2]},
                      box.hi[0] + (d == 0 ? extra : 0) - box.lo[0],
                      box.hi[1] + (d == 1 ? extra : 0) - box.lo[1]};
}
template <class Bounds = Kokkos::LaunchBounds<>>
Kokkos::RangePolicy<Exec, Kokkos::IndexType<long>, Bounds> flat_range(const Launch& on, const CellBox& box, int d,
                                                                      int extra) {
  long count = 1;
  for (int a = 0; a < 3; ++a) count *= box.hi[a] + (a == d ? extra : 0) - box.lo[a];
  return Kokkos::RangePolicy<Exec, Kokkos::IndexType<long>, Bounds>(on.exec, 0, count);
}

// The launch bounds of the flux loops on a GPU. In fp64 the native flux kernel's
// (kernels/hip/fluxes.hpp): at most 256 threads a block and at least 4 blocks resident per
// multiprocessor, which caps the registers at 64 (nvcc gave the Kokkos fp64 flux kernels
// 72-76 without them). On the H200 that made the fp64 flux kernels up to 9% faster (AoS,
// AoSoA), and the fp32 ones 2-6% slower: in fp32 (40-48 registers) Kokkos' own choice of
// block stays (docs/kokkos.md). Only the flat range takes them: a tile of more than 256
// cells could not run under them.
template <class Real>
using FluxBounds =
    std::conditional_t<std::is_same_v<Real, double>, Kokkos::LaunchBounds<256, 4>, Kokkos::LaunchBounds<>>;

// Runs f(i, j, k) over the cells of cells_of(on, box, d, extra): as a tiled rank-3 range,
// or with --kokkos-tile flat as one flat range under the launch bounds `Bounds`.
template <class Bounds = Kokkos::LaunchBounds<>, class F>
void for_cells(const char* name, const Launch& on, const CellBox& box, int d, int extra, const F& f) {
  if (box.empty()) return;
  if (on.flat())
    Kokkos::parallel_for(name, flat_range<Bounds>(on, box, d, extra), flat_cells(box, d, extra, f));
  else
    Kokkos::parallel_for(name, cells_of(on, box, d, extra), f);
}

// The same for a reduction f(i, j, k, value) with Kokkos reducer `reducer`.
template <class F, class Reducer>
void reduce_cells(const char* name, const Launch& on, const CellBox& box, const F& f, const Reducer& reducer) {
  if (on.flat())
    Kokkos::parallel_reduce(name, flat_range(on, box, -1, 0),
                            FlatReduce<F, typename Reducer::value_type>{flat_cells(box, -1, 0, f)}, reducer);
  else
    Kokkos::parallel_reduce(name, cells_of(on, box), f, reducer);
}

}  // namespace halocline::kokkos
