// Halo pack and unpack (kernels/halo.hpp) as Kokkos loops: one thread per (cell of the
// face's layers), all five variables, both exchanged faces of a direction in one loop.
#pragma once

#include "kernels/halo.hpp"
#include "kernels/kokkos/policies.hpp"

namespace halocline::kokkos_detail {

// The (ia, layer, ib) box of one face's message: ia fastest (the smaller stride).
inline Box3 message_cells(const Exec& exec, const Grid& g, int d) {
  int a, b;
  other_directions(d, a, b);
  return Box3(exec, {0, 0, 0}, {g.np[a], g.ng[d], g.np[b]});
}

// Packs the faces of direction d marked in `sides` into message[0] (low) and message[1].
template <class Real, class L>
void pack_halo(const Exec& exec, const Grid& g, const StateRef<Real, L>& u, int d,
               const bool sides[2], Real* low, Real* high) {
  const bool send_low = sides[0], send_high = sides[1];
  Kokkos::parallel_for(
      "halo_pack", message_cells(exec, g, d), KOKKOS_LAMBDA(int ia, int layer, int ib) {
        for (int v = 0; v < kNumVars; ++v) {
          if (send_low) pack_halo_value(g, u, d, 0, v, layer, ia, ib, low);
          if (send_high) pack_halo_value(g, u, d, 1, v, layer, ia, ib, high);
        }
      });
}

// Unpacks received[0] into the low ghosts of d and received[1] into the high ghosts.
template <class Real, class L>
void unpack_halo(const Exec& exec, const Grid& g, const StateRef<Real, L>& u, int d,
                 const bool sides[2], const Real* low, const Real* high) {
  const bool recv_low = sides[0], recv_high = sides[1];
  Kokkos::parallel_for(
      "halo_unpack", message_cells(exec, g, d), KOKKOS_LAMBDA(int ia, int layer, int ib) {
        for (int v = 0; v < kNumVars; ++v) {
          if (recv_low) unpack_halo_value(g, u, d, 0, v, layer, ia, ib, low);
          if (recv_high) unpack_halo_value(g, u, d, 1, v, layer, ia, ib, high);
        }
      });
}

}  // namespace halocline::kokkos_detail
