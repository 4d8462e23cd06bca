// Memory layouts of the conserved state: where value `var` of cell `cell` lives.
//
// A layout is a type with two static functions, `storage_size(ncells)` and
// `offset(var, cell, ncells)`. Kernels are written once against `StateRef<Real, Layout>`
// (below) and never compute an address themselves, so changing the layout changes only
// these few lines. The run-time choice among them is made in app/select.cpp.
//
//   AoS   (array of structures, cell-major): the 5 values of a cell are adjacent.
//           [rho0 mx0 my0 mz0 E0 | rho1 mx1 ...]
//   SoA   (structure of arrays, variable-major): one contiguous array per variable.
//           [rho0 rho1 ... | mx0 mx1 ... | ... | E0 E1 ...]
//   AoSoA (array of structures of arrays): tiles of W consecutive cells; each tile holds
//           W values of rho, then W of mx, ... . W = 8: 8 doubles are one 64-byte CPU
//           cache line (and two 32-byte GPU sectors), so a tile's run of one variable fills
//           whole lines, while the 5 variables of a cell stay within 320 bytes.
#pragma once

#include <cstddef>
#include <type_traits>

#include "base/grid.hpp"
#include "base/portability.hpp"

namespace halocline {

enum class LayoutKind { AoS, SoA, AoSoA };

// The type a layout counts values in: size_t, or a wider count given (unsigned __int128 in the
// memory plan, which counts grids too large for size_t).
template <class Count>
using CountOf = std::common_type_t<Count, std::size_t>;

struct AoS {
  static constexpr LayoutKind kind = LayoutKind::AoS;
  static constexpr const char* name = "aos";
  template <class Count>
  static constexpr CountOf<Count> storage_size(Count ncells) {
    return CountOf<Count>(ncells) * kNumVars;
  }
  HC_INLINE static std::size_t offset(int var, std::size_t cell, std::size_t /*ncells*/) {
    return cell * kNumVars + static_cast<std::size_t>(var);
  }
};

struct SoA {
  static constexpr LayoutKind kind = LayoutKind::SoA;
  static constexpr const char* name = "soa";
  template <class Count>
  static constexpr CountOf<Count> storage_size(Count ncells) {
    return CountOf<Count>(ncells) * kNumVars;
  }
  HC_INLINE static std::size_t offset(int var, std::size_t cell, std::size_t ncells) {
    return static_cast<std::size_t>(var) * ncells + cell;
  }
};

template <int W>
struct AoSoAW {
  static_assert(W > 0 && (W & (W - 1)) == 0, "AoSoA tile width must be a power of two");
  static constexpr LayoutKind kind = LayoutKind::AoSoA;
  static constexpr const char* name = "aosoa";
  static constexpr int width = W;
  // The last tile is padded to W cells.
  template <class Count>
  static constexpr CountOf<Count> storage_size(Count ncells) {
    return (CountOf<Count>(ncells) + W - 1) / W * W * kNumVars;
  }
  HC_INLINE static std::size_t offset(int var, std::size_t cell, std::size_t /*ncells*/) {
    return (cell / W) * (W * kNumVars) + static_cast<std::size_t>(var) * W + cell % W;
  }
};

using AoSoA = AoSoAW<8>;

// The values a state array of `ncells` cells holds in layout `kind` (its storage_size), for
// counts made before any array exists (kernels/contract/footprint.hpp; Count may be 128-bit).
template <class Count>
constexpr CountOf<Count> storage_values(LayoutKind kind, Count ncells) {
  switch (kind) {
    case LayoutKind::AoS: return AoS::storage_size(ncells);
    case LayoutKind::SoA: return SoA::storage_size(ncells);
    case LayoutKind::AoSoA: return AoSoA::storage_size(ncells);
  }
  return 0;
}

// A non-owning view of one state array (or flux array) in layout L. Trivially copyable,
// so kernels capture it by value on any backend.
template <class Real, class L>
struct StateRef {
  Real* data = nullptr;
  std::size_t ncells = 0;

  // SoA in fp64 device code: the variable's array, then the cell's 32-bit index in it (kMaxDeviceCells),
  // one multiply-add an address where the 64-bit sum took several.
  HC_INLINE Real& operator()(int var, std::size_t cell) const {
#if defined(__CUDA_ARCH__) || defined(__HIP_DEVICE_COMPILE__)
    if constexpr (L::kind == LayoutKind::SoA && sizeof(Real) == 8)
      return (data + static_cast<std::size_t>(var) * ncells)[static_cast<unsigned>(cell)];
#endif
    return data[L::offset(var, cell, ncells)];
  }
};

// Applies X(Real, Layout) to every precision and layout: the list a backend instantiates
// its templates for (app/select.cpp chooses among them at run time).
#define HALOCLINE_FOR_EACH_PRECISION_AND_LAYOUT(X) \
  X(double, AoS) X(double, SoA) X(double, AoSoA) X(float, AoS) X(float, SoA) X(float, AoSoA)

inline const char* layout_name(LayoutKind k) {
  switch (k) {
    case LayoutKind::AoS: return AoS::name;
    case LayoutKind::SoA: return SoA::name;
    case LayoutKind::AoSoA: return AoSoA::name;
  }
  return "?";
}

}  // namespace halocline
