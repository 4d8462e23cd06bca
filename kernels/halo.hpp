// Halo exchange, the per-cell part, written once for every backend: where the cells of a
// face's message lie, and how a message is packed and unpacked.
//
// A message carries the 2 layers next to one face of direction d (all 5 variables), over
// the whole padded extent of the other two directions. Exchanging direction by direction
// (x, then y, whose messages include the x ghosts just received, then z) makes edges and
// corners right with six messages instead of 26. The message is in canonical order
// (variable, then layer, then the two other directions, the faster-strided first), so it
// does not depend on the layout: packing and unpacking are the only layout-aware steps.
//
// With one rank and periodic boundaries the exchange is with itself (the high face's
// layers become the low ghosts and back), which must equal the periodic ghost fill.
#pragma once

#include <cstddef>

#include "base/grid.hpp"
#include "base/portability.hpp"
#include "layouts/layouts.hpp"

namespace halocline {

// The two directions other than d, the one with the smaller stride first.
HC_INLINE void other_directions(int d, int& a, int& b) {
  a = d == 0 ? 1 : 0;
  b = 3 - d - a;
}

// Values in the message of one face of direction d (Count: wider for the memory plan's grids).
template <class Count = std::size_t>
HC_INLINE Count halo_message_size(const Grid& g, int d) {
  int a, b;
  other_directions(d, a, b);
  return static_cast<Count>(kNumVars) * g.ng[d] * g.np[a] * g.np[b];
}

// Position in a message of value (var, layer, ia, ib).
HC_INLINE std::size_t halo_message_index(const Grid& g, int d, int var, int layer, int ia, int ib) {
  int a, b;
  other_directions(d, a, b);
  return ((static_cast<std::size_t>(var) * g.ng[d] + layer) * g.np[b] + ib) * g.np[a] + ia;
}

// Coordinate along d of message layer `layer` of face `side` (0 low, 1 high): the interior
// layers next to the face when sending, the ghost layers beyond it when receiving. Layers
// run from low to high coordinates in both, so the message a rank sends from its high face
// lands, layer for layer, in the low ghosts of its high neighbour (and low face -> the low
// neighbour's high ghosts).
HC_INLINE int halo_send_coordinate(const Grid& g, int d, int side, int layer) {
  // The low face sends interior cells ng .. 2ng-1, the high face n .. n+ng-1 (padded).
  return side == 0 ? g.ng[d] + layer : g.n[d] + layer;
}
HC_INLINE int halo_receive_coordinate(const Grid& g, int d, int side, int layer) {
  // The low ghosts are 0 .. ng-1, the high ghosts n+ng .. n+2ng-1.
  return side == 0 ? layer : g.n[d] + g.ng[d] + layer;
}

// Padded cell index of (coordinate c along d, ia along a, ib along b).
HC_INLINE std::size_t halo_cell(const Grid& g, int d, int c, int ia, int ib) {
  int a, b;
  other_directions(d, a, b);
  return g.stride[d] * c + g.stride[a] * ia + g.stride[b] * ib;
}

// Packs one value of the message of face `side` of direction d.
template <class Real, class L>
HC_INLINE void pack_halo_value(const Grid& g, const StateRef<Real, L>& u, int d, int side, int var, int layer, int ia,
                               int ib, Real* message) {
  const std::size_t cell = halo_cell(g, d, halo_send_coordinate(g, d, side, layer), ia, ib);
  message[halo_message_index(g, d, var, layer, ia, ib)] = u(var, cell);
}

// Unpacks into the ghosts of face `side` one value of the message that the neighbour across
// that face sent from its opposite face.
template <class Real, class L>
HC_INLINE void unpack_halo_value(const Grid& g, const StateRef<Real, L>& u, int d, int side, int var, int layer, int ia,
                                 int ib, const Real* message) {
  const std::size_t cell = halo_cell(g, d, halo_receive_coordinate(g, d, side, layer), ia, ib);
  u(var, cell) = message[halo_message_index(g, d, var, layer, ia, ib)];
}

// Packs (Pack = true) the five variables of position (layer, ia, ib) of the faces of
// direction d marked `low` and `high` into their messages, or unpacks them from there:
// what one thread of a backend's pack or unpack loop does.
template <bool Pack, class Real, class L>
HC_INLINE void halo_values(const Grid& g, const StateRef<Real, L>& u, int d, bool low, bool high, int layer, int ia,
                           int ib, Real* message_low, Real* message_high) {
  for (int v = 0; v < kNumVars; ++v) {
    if (Pack) {
      if (low) pack_halo_value(g, u, d, 0, v, layer, ia, ib, message_low);
      if (high) pack_halo_value(g, u, d, 1, v, layer, ia, ib, message_high);
    } else {
      if (low) unpack_halo_value(g, u, d, 0, v, layer, ia, ib, message_low);
      if (high) unpack_halo_value(g, u, d, 1, v, layer, ia, ib, message_high);
    }
  }
}

// ---- Regions of the overlap strategy ----------------------------------------------------
// A box of cells [lo, hi) in padded coordinates.
struct CellBox {
  int lo[3] = {0, 0, 0}, hi[3] = {0, 0, 0};
  HC_INLINE bool empty() const { return hi[0] <= lo[0] || hi[1] <= lo[1] || hi[2] <= lo[2]; }
};

// All interior cells.
inline CellBox interior_cells(const Grid& g) {
  CellBox b;
  for (int d = 0; d < 3; ++d) {
    b.lo[d] = g.ng[d];
    b.hi[d] = g.ng[d] + g.n[d];
  }
  return b;
}

// Splits the interior into the cells whose update reads no ghost cell (`inner`) and the
// shell around them, as six disjoint slabs (x faces first, then y, then z; some may be
// empty). The update of a cell reads the fluxes of its faces, and the MUSCL flux of a face
// reads two cells on each side, so a cell needs ghosts when it is within ng cells of the
// subdomain's edge along an active direction.
inline void split_for_overlap(const Grid& g, CellBox& inner, CellBox shell[6]) {
  const CellBox all = interior_cells(g);
  int a[3], b[3];  // the inner range [a, b) per direction
  for (int d = 0; d < 3; ++d) {
    a[d] = all.lo[d] + (g.active(d) ? g.ng[d] : 0);
    if (a[d] > all.hi[d]) a[d] = all.hi[d];
    b[d] = all.hi[d] - (g.active(d) ? g.ng[d] : 0);
    if (b[d] < a[d]) b[d] = a[d];
  }
  for (int d = 0; d < 3; ++d) {
    inner.lo[d] = a[d];
    inner.hi[d] = b[d];
  }
  // Slabs of direction d span the inner range of the directions before it and the whole
  // interior of those after it.
  for (int d = 0; d < 3; ++d)
    for (int side = 0; side < 2; ++side) {
      CellBox& s = shell[2 * d + side];
      for (int e = 0; e < 3; ++e) {
        s.lo[e] = e < d ? a[e] : all.lo[e];
        s.hi[e] = e < d ? b[e] : all.hi[e];
      }
      s.lo[d] = side == 0 ? all.lo[d] : b[d];
      s.hi[d] = side == 0 ? a[d] : all.hi[d];
    }
}

}  // namespace halocline
