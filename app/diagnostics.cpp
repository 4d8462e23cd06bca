// Diagnostics of a canonical state: conserved totals, drift, checksum, primitives.
#include <algorithm>
#include <cmath>
#include <cstdint>
#include <cstdio>
#include <cstring>

#include "app/driver.hpp"
#include "kernels/checksum.hpp"
#include "kernels/host_parallel.hpp"

namespace halocline {

Totals conserved_totals(const std::vector<double>& s, const Grid& g) {
  Totals out;
  const double volume = g.dx[0] * g.dx[1] * g.dx[2];
  // One variable per thread, each summed in canonical order (the same result on any number
  // of threads); small states on the calling thread.
  const std::size_t per_thread = g.ninterior >= (1u << 16) ? 1 : kNumVars;
  parallel_for(
      kNumVars,
      [&](std::size_t v0, std::size_t v1) {
        for (std::size_t v = v0; v < v1; ++v) {
          // Neumaier's compensated sum: the totals must resolve drifts near 1e-15.
          double sum = 0, comp = 0, abs_sum = 0;
          for (std::size_t c = 0; c < g.ninterior; ++c) {
            const double x = s[v * g.ninterior + c];
            const double t = sum + x;
            comp += std::fabs(sum) >= std::fabs(x) ? (sum - t) + x : (x - t) + sum;
            sum = t;
            abs_sum += std::fabs(x);
          }
          out.sum[v] = (sum + comp) * volume;
          out.abs_sum[v] = abs_sum * volume;
        }
      },
      per_thread);
  return out;
}

double max_relative_drift(const Totals& a, const Totals& b) {
  // Momentum totals are often zero, and so can be their absolute sums (a gas at rest): a
  // momentum drift is measured against sqrt(2 M E), the momentum the gas's mass M would
  // carry with all of its energy E as kinetic energy.
  const double momentum_scale = std::sqrt(2 * a.abs_sum[kRho] * a.abs_sum[kEnergy]);
  double worst = 0;
  for (int v = 0; v < kNumVars; ++v) {
    const bool momentum = v >= kMomX && v <= kMomZ;
    const double scale = momentum ? std::max(a.abs_sum[v], momentum_scale) : a.abs_sum[v];
    if (scale > 0) worst = std::max(worst, std::fabs(b.sum[v] - a.sum[v]) / scale);
  }
  return worst;
}

std::string state_checksum(const std::vector<double>& s) {
  const std::size_t cells = s.size() / kNumVars;
  std::uint64_t sum = 0;
  for (int v = 0; v < kNumVars; ++v)
    for (std::size_t c = 0; c < cells; ++c) sum += checksum_term(s[v * cells + c], c, v);
  return checksum_text(sum);
}

std::string checksum_text(std::uint64_t checksum) {
  char hex[17];
  std::snprintf(hex, sizeof hex, "%016llx", static_cast<unsigned long long>(checksum));
  return hex;
}

std::vector<double> primitives(const std::vector<double>& s, std::size_t n, double gamma) {
  std::vector<double> p(kNumVars * n);
  for (std::size_t c = 0; c < n; ++c) {
    const double rho = s[c];
    const double u = s[n + c] / rho, v = s[2 * n + c] / rho, w = s[3 * n + c] / rho;
    p[c] = rho;
    p[n + c] = u;
    p[2 * n + c] = v;
    p[3 * n + c] = w;
    p[4 * n + c] = (gamma - 1) * (s[4 * n + c] - 0.5 * rho * (u * u + v * v + w * w));
  }
  return p;
}

}  // namespace halocline
