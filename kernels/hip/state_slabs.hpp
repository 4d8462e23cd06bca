// Packing a slab of whole z-planes of u0's interior into a contiguous buffer in the slab's
// canonical order (layouts/canonical.hpp's pack_slab_cell), for Backend::read_state, and
// back (write_state).
#pragma once

#include <cstddef>

#include "kernels/hip/runtime.hpp"
#include "layouts/canonical.hpp"

namespace halocline::hip {

template <class Real, class L>
__global__ void pack_slab_kernel(Grid g, StateRef<Real, L> u, int z_begin, std::size_t cells, Real* out) {
  const std::size_t n = static_cast<std::size_t>(blockIdx.x) * blockDim.x + threadIdx.x;
  if (n < cells) pack_slab_cell(g, u, z_begin, cells, n, out);
}

template <class Real, class L>
__global__ void unpack_slab_kernel(Grid g, StateRef<Real, L> u, int z_begin, std::size_t cells, const Real* in) {
  const std::size_t n = static_cast<std::size_t>(blockIdx.x) * blockDim.x + threadIdx.x;
  if (n < cells) unpack_slab_cell(g, u, z_begin, cells, n, in);
}

constexpr unsigned kPackThreads = 256;
inline unsigned pack_blocks(std::size_t cells) {
  return static_cast<unsigned>((cells + kPackThreads - 1) / kPackThreads);
}

}  // namespace halocline::hip
