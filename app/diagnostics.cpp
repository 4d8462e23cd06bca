// Diagnostics of a canonical state: conserved totals, drift, checksum, primitives.
#include <algorithm>
#include <cmath>
#include <cstdint>
#include <cstdio>
#include <cstring>

#include "app/diagnostics.hpp"

#include "app/comm.hpp"
#include "base/host_parallel.hpp"
#include "kernels/checksum.hpp"
#include "kernels/hydro.hpp"
#include "kernels/totals.hpp"

namespace halocline {

Totals conserved_totals(const std::vector<double>& s, const Grid& g) {
  const std::size_t n = g.ninterior;
  // The canonical state as the backends' passes read theirs: value (v, c).
  const auto canonical = [&](int v, std::size_t c) { return s[v * n + c]; };
  MaxAbs m;
  reset(m);
  for (std::size_t c = 0; c < n; ++c) add_state_cell(m, canonical, c);
  const TotalsScale scale = totals_scale(m, n);
  FixedSums sums;
  reset(sums);
  for (std::size_t c = 0; c < n; ++c) add_state_cell(sums, canonical, c, scale);
  return fixed_point_totals(sums, scale, g.dx[0] * g.dx[1] * g.dx[2]);
}

Totals fixed_point_totals(FixedSums sums, const TotalsScale& scale, double cell_volume) {
  carry(sums);  // one (hi, lo) for each integer: the same double for any split of the sum
  Totals out;
  for (int v = 0; v < kNumVars; ++v) {
    out.sum[v] = fixed_total(sums, scale, v) * cell_volume;
    out.abs_sum[v] = fixed_total(sums, scale, kNumVars + v) * cell_volume;
  }
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
    const double drift = std::fabs(b.sum[v] - a.sum[v]) / scale;
    if (std::isnan(drift) && !(scale == 0)) return drift;  // NaN totals: no drift to tell, never 0
    if (scale > 0) worst = std::max(worst, drift);
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

std::string state_checksum(const Comm& comm, Backend& backend) {
  return checksum_text(comm.sum_mod64(backend.checksum_part()));
}

std::vector<double> primitives(const std::vector<double>& s, std::size_t n, double gamma) {
  std::vector<double> p(kNumVars * n);
  primitives(s.data(), n, gamma, p.data());
  return p;
}

// The solver's own conversion (kernels/hydro.hpp's to_prim, in the x frame): a snapshot's
// pressure is the one the fluxes of x faces start from, bit for bit.
void primitives(const double* s, std::size_t n, double gamma, double* p) {
  const IdealGas<double> gas(gamma);
  parallel_for(
      n,
      [&](std::size_t c0, std::size_t c1) {
        for (std::size_t c = c0; c < c1; ++c) {
          const Prim<double> q = to_prim(cell_of(s, n, c), gas);
          p[c] = q.rho;
          for (int d = 0; d < 3; ++d) p[(1 + d) * n + c] = q.u[d];
          p[4 * n + c] = q.p;
        }
      },
      1u << 14);
}

}  // namespace halocline
