// exp, log, pow and sin(pi x) from +, -, * and / alone, for the initial states of
// kernels/initial_state.hpp: IEEE arithmetic rounds the same on every CPU and GPU (with
// contraction off, as the strict-FP build sets), so these give the same bits everywhere,
// where the host's libm and a GPU's math library differ in the last bits. They are accurate
// to a few units in the last place, as the problems need, and are not meant for kernels
// that run every step.
#pragma once

#include <cmath>  // HUGE_VAL
#include <cstdint>

#include "base/portability.hpp"

namespace halocline::portable {

constexpr double kLn2Hi = 6.93147180369123816490e-01;  // ln 2 in two parts (fdlibm): k kLn2Hi
constexpr double kLn2Lo = 1.90821492927058770002e-10;  // is exact for |k| < 2^11
constexpr double kInvLn2 = 1.44269504088896338700e+00;
constexpr double kPi = 3.14159265358979323846;

// Rounds to the nearest integer (ties away from zero), for |x| < 2^62.
HC_INLINE double round_integer(double x) {
  return static_cast<double>(static_cast<std::int64_t>(x + (x < 0 ? -0.5 : 0.5)));
}

// The largest integer not above x, for |x| < 2^62.
HC_INLINE double floor(double x) {
  const double t = static_cast<double>(static_cast<std::int64_t>(x));  // toward zero
  return t > x ? t - 1 : t;
}

// 2^k for -1022 <= k <= 1023, from its bits.
HC_INLINE double power_of_two(int k) { return bit_cast<double>(static_cast<std::uint64_t>(k + 1023) << 52); }

// e^x: x = k ln 2 + r with |r| <= ln2 / 2 (Cody and Waite), e^r by its Taylor series to
// r^14 in Horner's form (the next term is below 2^-60 of the sum), scaled by 2^k in two steps so that
// results down to the subnormals come out right. 0 below -745, +inf above 709.8.
HC_INLINE double exp(double x) {
  if (!(x > -745.2)) return x != x ? x : 0.0;
  if (x > 709.78) return HUGE_VAL;
  const double k = round_integer(x * kInvLn2);
  const double r = (x - k * kLn2Hi) - k * kLn2Lo;
  double p = 1.0;  // Horner: 1 + r (1 + r/2 (1 + r/3 (...)))
  for (int n = 14; n >= 1; --n) p = 1.0 + r * p / n;
  const int ki = static_cast<int>(k);
  const int half = ki / 2;
  return p * power_of_two(half) * power_of_two(ki - half);
}

// ln x for x > 0: x = m 2^e with sqrt(1/2) <= m < sqrt(2), ln m = 2 atanh(s) with
// s = (m - 1) / (m + 1), |s| < 0.1716, by its series to s^23. NaN for x <= 0 or NaN.
HC_INLINE double log(double x) {
  if (!(x > 0)) return (x - x) / (x - x);  // NaN (x = 0 included: no pole needed here)
  if (x > 1.7976931348623157e308) return x;
  std::uint64_t bits = bit_cast<std::uint64_t>(x);
  int e = static_cast<int>((bits >> 52) & 0x7ff) - 1023;
  if (e == -1023) {               // subnormal: scale into the normal range first
    x = x * 18014398509481984.0;  // 2^54
    bits = bit_cast<std::uint64_t>(x);
    e = static_cast<int>((bits >> 52) & 0x7ff) - 1023 - 54;
  }
  bits = (bits & 0x000fffffffffffffull) | 0x3ff0000000000000ull;  // m in [1, 2)
  double m = bit_cast<double>(bits);
  if (m > 1.4142135623730951) {
    m = m * 0.5;
    ++e;
  }
  const double s = (m - 1) / (m + 1), s2 = s * s;
  double sum = 0;
  for (int n = 23; n >= 3; n -= 2) sum = (sum + 1.0 / n) * s2;  // s^2/3 + s^4/5 + ...
  const double ln_m = 2 * s + 2 * s * sum;
  return e * kLn2Hi + (ln_m + e * kLn2Lo);
}

// a^b = e^(b ln a) for a > 0.
HC_INLINE double pow(double a, double b) { return exp(b * log(a)); }

// sin(pi x) for |x| < 2^52: x = n / 2 + r with |r| <= 1/4 (exact: n / 2 and r are
// representable), then sin(pi r) or cos(pi r) by their Taylor series (to the 19th and 18th
// powers of pi r, whose next terms are below 2^-60), with the sign of the quarter period.
HC_INLINE double sin_pi(double x) {
  const double n = round_integer(2 * x);
  const double r = x - 0.5 * n;
  const double t = kPi * r, t2 = t * t;
  const std::int64_t quarter = static_cast<std::int64_t>(n) & 3;
  double p = 1.0;  // Horner: sin t = t (1 - t^2/(2 3) (1 - t^2/(4 5) (...))), cos alike
  const bool odd = quarter == 0 || quarter == 2;
  for (int k = 9; k >= 1; --k) p = 1.0 - t2 * p / (odd ? (2 * k) * (2 * k + 1) : (2 * k - 1) * (2 * k));
  const double value = odd ? t * p : p;
  return quarter >= 2 ? -value : value;
}

}  // namespace halocline::portable
