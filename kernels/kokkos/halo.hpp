// Halo pack and unpack (kernels/halo.hpp) as Kokkos loops: one thread per (cell of the
// face's layers), all five variables, both exchanged faces of a direction in one loop.
#pragma once

#include "kernels/halo.hpp"
#include "kernels/kokkos/policies.hpp"

namespace halocline::kokkos {

// The (ia, layer, ib) box of one face's message: ia fastest (the smaller stride).
inline Box3 message_cells(const Exec& exec, const Grid& g, int d) {
  int a, b;
  other_directions(d, a, b);
  return Box3(exec, {0, 0, 0}, {g.np[a], g.ng[d], g.np[b]});
}

// Packs (Pack = true) the faces of direction d marked in `sides` into message[0] (low) and
// message[1] (high), or unpacks them from there into the ghosts of those faces.
template <bool Pack, class Real, class L>
void halo_loop(const Exec& exec, const Grid& g, const StateRef<Real, L>& u, int d, const bool sides[2], Real* low,
               Real* high) {
  const bool do_low = sides[0], do_high = sides[1];
  Kokkos::parallel_for(
      Pack ? "halo_pack" : "halo_unpack", message_cells(exec, g, d), KOKKOS_LAMBDA(int ia, int layer, int ib) {
        halo_values<Pack>(g, u, d, do_low, do_high, layer, ia, ib, low, high);
      });
}

}  // namespace halocline::kokkos
