// The state on its way to a file, a slab of whole z-planes at a time (Backend::read_state):
// the host never holds more of it than a few slabs, so that a snapshot or a checkpoint of a
// grid that fills the device needs at most the file's own bytes on the host.
#pragma once

#include <algorithm>
#include <cstddef>
#include <functional>

#include "base/grid.hpp"

namespace halocline {

// A block of cells of the whole domain: its first cell's global index and its size.
struct CellBlock {
  int offset[3] = {0, 0, 0};
  int n[3] = {0, 0, 0};
  std::size_t cells() const { return static_cast<std::size_t>(n[0]) * n[1] * n[2]; }
};

// One slab of a rank's interior: the block it covers, and its conserved values as doubles in
// canonical order within the slab (variable-major, x fastest): values[v * cells + n].
struct StateSlab {
  CellBlock block;
  const double* values = nullptr;
};
using SlabSink = std::function<void(const StateSlab&)>;
// The other way (Backend::write_state): fills `values` with the conserved values of `block`,
// canonical within the block, as doubles.
using SlabSource = std::function<void(const CellBlock& block, double* values)>;

// How a rank's interior is cut into slabs: whole z-planes, as many as fit in about
// kSlabBytes of doubles (at least one plane), so that a slab is a few copies' worth of
// work for the DMA engines and the host's buffers stay small.
struct SlabPlan {
  static constexpr std::size_t kSlabBytes = std::size_t(16) << 20;
  const Grid& g;
  std::size_t slab_bytes = kSlabBytes;  // smaller in tests, to cut a small grid into several
  int planes_per_slab() const {         // a plane's bytes in 128 bits: the memory plan asks of grids beyond size_t
    const unsigned __int128 plane = static_cast<unsigned __int128>(g.n[0]) * g.n[1] * kNumVars * sizeof(double);
    return static_cast<int>(std::clamp<unsigned __int128>(slab_bytes / plane, 1, g.n[2]));
  }
  int count() const { return (g.n[2] + planes_per_slab() - 1) / planes_per_slab(); }
  int z_begin(int slab) const { return slab * planes_per_slab(); }
  int z_end(int slab) const { return std::min(g.n[2], (slab + 1) * planes_per_slab()); }
  // Cells of the largest slab: what a slab buffer holds.
  template <class Count = std::size_t>
  Count max_cells() const {
    return static_cast<Count>(g.n[0]) * g.n[1] * planes_per_slab();
  }
  // The slab's block in the whole domain (local planes z_begin..z_end).
  CellBlock block(int slab) const {
    CellBlock b{{g.offset[0], g.offset[1], g.offset[2] + z_begin(slab)}, {g.n[0], g.n[1], z_end(slab) - z_begin(slab)}};
    return b;
  }
};

// Copies the values of `block` (canonical within the block) into `into`'s canonical array
// `out` (variable-major, x fastest over `into`), where `block` lies inside `into`.
inline void place_block(const CellBlock& block, const double* values, const CellBlock& into, double* out) {
  const std::size_t cells = block.cells(), into_cells = into.cells();
  for (int v = 0; v < kNumVars; ++v)
    for (int k = 0; k < block.n[2]; ++k)
      for (int j = 0; j < block.n[1]; ++j) {
        const double* row = values + v * cells + (static_cast<std::size_t>(k) * block.n[1] + j) * block.n[0];
        const std::size_t z = static_cast<std::size_t>(block.offset[2] - into.offset[2] + k);
        const std::size_t y = static_cast<std::size_t>(block.offset[1] - into.offset[1] + j);
        std::copy(row, row + block.n[0],
                  out + v * into_cells + (z * into.n[1] + y) * into.n[0] + (block.offset[0] - into.offset[0]));
      }
}

// Whether every cell of `b` lies in `outer`.
inline bool contains(const CellBlock& outer, const CellBlock& b) {
  for (int d = 0; d < 3; ++d)
    if (b.n[d] < 0 || b.offset[d] < outer.offset[d] || b.offset[d] + b.n[d] > outer.offset[d] + outer.n[d])
      return false;
  return true;
}

// The block of a grid's interior cells in the whole domain.
inline CellBlock block_of(const Grid& g) {
  return CellBlock{{g.offset[0], g.offset[1], g.offset[2]}, {g.n[0], g.n[1], g.n[2]}};
}

}  // namespace halocline
