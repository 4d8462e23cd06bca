// Conservation totals, defined once for the host and every backend so that they are the
// same bits for every layout, rank count, process grid and backend: sums of fixed-point
// numbers, which are exact in any order.
//
// Two passes over the interior. The first finds each variable's largest |value| M (a max:
// the same in any order); M over all ranks sets the variable's scale 2^s, the largest power
// of two with M 2^s < 2^(62 - b), where b makes room for more than 2^31 cells (b = 0 up to
// 2^31 cells, about 1290^3). The second pass rounds each value times 2^s to the nearest
// integer q (|q| <= 2^62) and adds the q's, and the |q|'s for the scale of the drift,
// exactly: q splits into q = hi 2^31 + lo with 0 <= lo < 2^31, and the hi's and lo's add
// in 64-bit integers without overflow (at most 2^32 cells per rank). A total is then
// (sum hi) 2^(31-s) + (sum lo) 2^-s, rounded to a double once, the same way everywhere.
// Each value's rounding error is at most 2^-63 M, so a total is good to about 1e-19 of M per
// cell, far below the drift the report measures (round-off near 1e-16).
#pragma once

#include <cmath>
#include <cstddef>
#include <cstdint>

#include "base/grid.hpp"
#include "base/portability.hpp"

namespace halocline {

// Sums 0-4: the five conserved variables; 5-9: their absolute values.
constexpr int kTotalsSums = 2 * kNumVars;
constexpr int kFixedLoBits = 31;

// An exact integer sum of fixed-point numbers q = hi 2^31 + lo.
struct FixedSums {
  std::int64_t hi[kTotalsSums];
  std::int64_t lo[kTotalsSums];
};

// The largest |value| of each variable.
struct MaxAbs {
  double v[kNumVars];
};

// Each variable's scale: the power of two `factor` = 2^shift the values are multiplied by.
// A variable with a value that is not finite gets factor 0 and shift kNoTotal.
struct TotalsScale {
  double factor[kNumVars];
  int shift[kNumVars];
};
constexpr int kNoTotal = 1 << 20;

HC_INLINE void reset(FixedSums& s) {
  for (int n = 0; n < kTotalsSums; ++n) s.hi[n] = s.lo[n] = 0;
}
HC_INLINE void reset(MaxAbs& m) {
  for (int v = 0; v < kNumVars; ++v) m.v[v] = 0;
}
HC_INLINE void merge(FixedSums& into, const FixedSums& s) {
  for (int n = 0; n < kTotalsSums; ++n) {
    into.hi[n] += s.hi[n];
    into.lo[n] += s.lo[n];
  }
}
HC_INLINE void merge(MaxAbs& into, const MaxAbs& m) {
  for (int v = 0; v < kNumVars; ++v)
    if (m.v[v] > into.v[v]) into.v[v] = m.v[v];
}

// Folds one cell's values (as doubles) into the maxima. NaN counts as +inf: a state with a
// value that is not finite has no totals (fixed_total says NaN).
HC_INLINE void add_cell(MaxAbs& m, const double w[kNumVars]) {
  for (int v = 0; v < kNumVars; ++v) {
    const double a = w[v] < 0 ? -w[v] : w[v];
    if (!(a <= m.v[v])) m.v[v] = a <= HUGE_VAL ? a : HUGE_VAL;
  }
}

// Adds the fixed-point number of `scaled` (a value times its factor, |scaled| <= 2^62).
// Rounding half away from zero; the cast then truncates an integer-valued double.
HC_INLINE void add_fixed(FixedSums& s, int n, double scaled) {
  double rounded = scaled + (scaled < 0 ? -0.5 : 0.5);
  if (!(rounded > -4.7e18 && rounded < 4.7e18)) rounded = 0;  // not finite: no totals anyway
  const std::int64_t q = static_cast<std::int64_t>(rounded);
  const std::int64_t lo = q & ((std::int64_t(1) << kFixedLoBits) - 1);
  s.hi[n] += (q - lo) / (std::int64_t(1) << kFixedLoBits);  // exact: q - lo is a multiple
  s.lo[n] += lo;
}

// Folds one cell's values (as doubles) into the sums.
HC_INLINE void add_cell(FixedSums& s, const TotalsScale& scale, const double w[kNumVars]) {
  for (int v = 0; v < kNumVars; ++v) {
    const double scaled = w[v] * scale.factor[v];  // exact: a power of two, no overflow
    add_fixed(s, v, scaled);
    add_fixed(s, kNumVars + v, scaled < 0 ? -scaled : scaled);
  }
}

// Folds the values of cell c of state u (as doubles; fp32 converts exactly) into `into`:
// add_cell(into, scale..., values), for the maxima or the sums.
template <class State, class Into, class... Scale>
HC_INLINE void add_state_cell(Into& into, const State& u, std::size_t c, const Scale&... scale) {
  double w[kNumVars];
  for (int v = 0; v < kNumVars; ++v) w[v] = static_cast<double>(u(v, c));
  add_cell(into, scale..., w);
}

// Moves each lo's bits above 2^31 into hi, so that sums from many ranks add without
// overflow (done on each rank before the ranks' sums are added).
inline void carry(FixedSums& s) {
  for (int n = 0; n < kTotalsSums; ++n) {
    s.hi[n] += s.lo[n] >> kFixedLoBits;
    s.lo[n] &= (std::int64_t(1) << kFixedLoBits) - 1;
  }
}

// The scales for the maxima over every rank of a domain of `cells` interior cells.
inline TotalsScale totals_scale(const MaxAbs& m, std::uint64_t cells) {
  int room = 0;  // b above: the sums of hi over 2^(31 + b) cells stay below 2^62
  while (room < 32 && (cells >> (kFixedLoBits + room)) > 0) ++room;
  TotalsScale scale{};
  for (int v = 0; v < kNumVars; ++v) {
    if (!(m.v[v] < HUGE_VAL)) {
      scale.shift[v] = kNoTotal;
      scale.factor[v] = 0;
      continue;
    }
    int exponent = 0;  // m.v[v] < 2^exponent
    if (m.v[v] > 0) std::frexp(m.v[v], &exponent);
    // No scale beyond 2^1000 (values below about 1e-290 count as 0) or below 2^-1000.
    int shift = m.v[v] > 0 ? 62 - room - exponent : 0;
    shift = shift > 1000 ? 1000 : shift < -1000 ? -1000 : shift;
    scale.shift[v] = shift;
    scale.factor[v] = std::ldexp(1.0, shift);
  }
  return scale;
}

// Total n (0-9) of the sums, once every rank's carried sums are added.
inline double fixed_total(const FixedSums& s, const TotalsScale& scale, int n) {
  const int shift = scale.shift[n % kNumVars];
  if (shift == kNoTotal) return NAN;
  return std::ldexp(static_cast<double>(s.hi[n]), kFixedLoBits - shift) +
         std::ldexp(static_cast<double>(s.lo[n]), -shift);
}

}  // namespace halocline
