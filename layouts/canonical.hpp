// Between a layout and the canonical order (variable-major; interior cells, x fastest), on
// the host: how every backend hands its state to the driver, so that checksums, totals and
// snapshots never depend on the layout.
#pragma once

#include <cstddef>
#include <vector>

#include "base/portability.hpp"

#include "base/grid.hpp"
#include "base/host_parallel.hpp"
#include "layouts/layouts.hpp"

namespace halocline {

// Calls f(padded cell index, canonical interior index) once for every interior cell; the
// planes of constant k are split over host threads (base/host_parallel.hpp), so f must
// only touch its own cell.
template <class F>
void for_each_interior(const Grid& g, F&& f) {
  const std::size_t plane = static_cast<std::size_t>(g.n[0]) * g.n[1];
  parallel_for(
      static_cast<std::size_t>(g.n[2]),
      [&](std::size_t k0, std::size_t k1) {
        for (std::size_t k = k0; k < k1; ++k) {
          std::size_t n = k * plane;
          for (int j = 0; j < g.n[1]; ++j)
            for (int i = 0; i < g.n[0]; ++i) f(g.index(i + g.ng[0], j + g.ng[1], static_cast<int>(k) + g.ng[2]), n++);
        }
      },
      1 + (1u << 15) / std::max<std::size_t>(1, plane));
}

// Canonical doubles -> the interior of a state array in layout L and precision Real.
template <class Real, class L>
void from_canonical(const Grid& g, const std::vector<double>& canonical, Real* data) {
  const StateRef<Real, L> u{data, g.ncells};
  for_each_interior(g, [&](std::size_t cell, std::size_t n) {
    for (int v = 0; v < kNumVars; ++v) u(v, cell) = static_cast<Real>(canonical[v * g.ninterior + n]);
  });
}

// The interior of a state array in layout L -> canonical doubles (exact for float).
template <class Real, class L>
void to_canonical(const Grid& g, const Real* data, std::vector<double>& canonical) {
  const StateRef<Real, L> u{const_cast<Real*>(data), g.ncells};
  canonical.resize(kNumVars * g.ninterior);  // before the threads start
  for_each_interior(g, [&](std::size_t cell, std::size_t n) {
    for (int v = 0; v < kNumVars; ++v) canonical[v * g.ninterior + n] = static_cast<double>(u(v, cell));
  });
}

// Slabs of whole z-planes (kernels/contract/state_slabs.hpp): value n of a slab that starts
// at local plane z_begin and holds `cells` cells, in the slab's canonical order, taken from
// u. Written once for the host and every device's pack kernel.
// The padded index of value n of a slab that starts at local plane z_begin.
HC_INLINE std::size_t slab_cell(const Grid& g, int z_begin, std::size_t n) {
  const std::size_t row = static_cast<std::size_t>(g.n[0]), plane = row * static_cast<std::size_t>(g.n[1]);
  const int i = static_cast<int>(n % row), j = static_cast<int>(n / row % g.n[1]), k = static_cast<int>(n / plane);
  return g.index(i + g.ng[0], j + g.ng[1], z_begin + k + g.ng[2]);
}

template <class Real, class L, class Out>
HC_INLINE void pack_slab_cell(const Grid& g, const StateRef<Real, L>& u, int z_begin, std::size_t cells, std::size_t n,
                              Out* out) {
  const std::size_t cell = slab_cell(g, z_begin, n);
  for (int v = 0; v < kNumVars; ++v) out[v * cells + n] = static_cast<Out>(u(v, cell));
}

// The reverse: value n of the slab `in` into u.
template <class Real, class L, class In>
HC_INLINE void unpack_slab_cell(const Grid& g, const StateRef<Real, L>& u, int z_begin, std::size_t cells,
                                std::size_t n, const In* in) {
  const std::size_t cell = slab_cell(g, z_begin, n);
  for (int v = 0; v < kNumVars; ++v) u(v, cell) = static_cast<Real>(in[v * cells + n]);
}

// f(n) for every value index n of the slab of planes z_begin <= k < z_end, on the host's
// threads; returns the slab's cells.
template <class F>
std::size_t for_each_slab_cell(const Grid& g, int z_begin, int z_end, const F& f) {
  const std::size_t cells = static_cast<std::size_t>(g.n[0]) * g.n[1] * (z_end - z_begin);
  parallel_for(
      cells,
      [&](std::size_t n0, std::size_t n1) {
        for (std::size_t n = n0; n < n1; ++n) f(n, cells);
      },
      1u << 14);
  return cells;
}

// The slab's canonical doubles -> the planes z_begin <= k < z_end of a state array in
// layout L.
template <class Real, class L>
void from_canonical_slab(const Grid& g, Real* data, int z_begin, int z_end, const double* in) {
  const StateRef<Real, L> u{data, g.ncells};
  for_each_slab_cell(g, z_begin, z_end,
                     [&](std::size_t n, std::size_t cells) { unpack_slab_cell(g, u, z_begin, cells, n, in); });
}

// The planes z_begin <= k < z_end of the interior of a state array in layout L -> the
// slab's canonical doubles.
template <class Real, class L>
void to_canonical_slab(const Grid& g, const Real* data, int z_begin, int z_end, double* out) {
  const StateRef<Real, L> u{const_cast<Real*>(data), g.ncells};
  for_each_slab_cell(g, z_begin, z_end,
                     [&](std::size_t n, std::size_t cells) { pack_slab_cell(g, u, z_begin, cells, n, out); });
}

}  // namespace halocline
