// The state's checksum, defined once for the host and every backend: the sum, modulo 2^64,
// over every interior cell and conserved variable of a strong mix of the value's bits with
// its global cell index and variable. The sum does not depend on the order of its terms, so
// a backend computes its part in parallel where the state lives, ranks add their parts, and
// the result is the same for every layout, decomposition and backend. Each term is a
// bijection of the value's bits (for a given cell and variable), so flipping any bit of any
// one value always changes the checksum; swapping two values changes it unless two 64-bit
// mixes happen to collide. fp32 states are checksummed as their (exact) double values.
#pragma once

#include <cstdint>

#include "base/grid.hpp"
#include "base/portability.hpp"

namespace halocline {

// The finaliser of SplitMix64 (Steele, Lea and Flood 2014): a bijection of 64-bit words in
// which every input bit affects every output bit.
HC_INLINE std::uint64_t mix64(std::uint64_t x) {
  x ^= x >> 30;
  x *= 0xbf58476d1ce4e5b9ull;
  x ^= x >> 27;
  x *= 0x94d049bb133111ebull;
  x ^= x >> 31;
  return x;
}

// The term of variable `var` of the cell with global linear index `cell` (x fastest over the
// whole domain's interior) whose value is `value`.
HC_INLINE std::uint64_t checksum_term(double value, std::uint64_t cell, int var) {
  const std::uint64_t bits = bit_cast<std::uint64_t>(value);
  return mix64(bits ^ mix64(cell * kNumVars + static_cast<std::uint64_t>(var) + 0x9e3779b97f4a7c15ull));
}

// The global linear index of the local interior cell (i, j, k) (padded indices) of grid g.
HC_INLINE std::uint64_t global_cell(const Grid& g, int i, int j, int k) {
  const std::uint64_t x = static_cast<std::uint64_t>(i - g.ng[0] + g.offset[0]);
  const std::uint64_t y = static_cast<std::uint64_t>(j - g.ng[1] + g.offset[1]);
  const std::uint64_t z = static_cast<std::uint64_t>(k - g.ng[2] + g.offset[2]);
  return x + static_cast<std::uint64_t>(g.n_global[0]) * (y + static_cast<std::uint64_t>(g.n_global[1]) * z);
}

}  // namespace halocline
