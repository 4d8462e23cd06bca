// Packing a slab of whole z-planes of u0's interior into a contiguous buffer in the slab's
// canonical order (layouts/canonical.hpp's pack_slab_cell), for Backend::read_state, and
// back (write_state).
#pragma once

#include <Kokkos_Core.hpp>
#include <cstddef>

#include "kernels/kokkos/policies.hpp"
#include "layouts/canonical.hpp"

namespace halocline::kokkos {

template <class Real, class L, class Out>
void pack_slab(const Exec& exec, const Grid& g, const StateRef<Real, L>& u, int z_begin, std::size_t cells, Out* out) {
  Kokkos::parallel_for(
      "pack_slab", Kokkos::RangePolicy<Exec>(exec, 0, cells),
      KOKKOS_LAMBDA(std::size_t n) { pack_slab_cell(g, u, z_begin, cells, n, out); });
}

template <class Real, class L, class In>
void unpack_slab(const Exec& exec, const Grid& g, const StateRef<Real, L>& u, int z_begin, std::size_t cells,
                 const In* in) {
  Kokkos::parallel_for(
      "unpack_slab", Kokkos::RangePolicy<Exec>(exec, 0, cells),
      KOKKOS_LAMBDA(std::size_t n) { unpack_slab_cell(g, u, z_begin, cells, n, in); });
}

}  // namespace halocline::kokkos
