#include "app/bad_cells.hpp"

#include <cmath>
#include <cstdio>

namespace halocline {

std::size_t first_bad_cell(const double* s, std::size_t n, double gamma) {
  for (std::size_t c = 0; c < n; ++c) {
    const double rho = s[c], e = s[4 * n + c];
    const double m2 = s[n + c] * s[n + c] + s[2 * n + c] * s[2 * n + c] + s[3 * n + c] * s[3 * n + c];
    const double p = (gamma - 1) * (e - 0.5 * m2 / rho);
    bool finite = true;
    for (int var = 0; var < kNumVars; ++var) finite = finite && std::isfinite(s[var * n + c]);
    if (!(finite && rho > 0 && p > 0)) return c;
  }
  return n;
}

std::string describe_bad_cell(const std::vector<double>& s, const Grid& g, double gamma) {
  const std::size_t n = g.ninterior, c = first_bad_cell(s, n, gamma);
  if (c == n) return "every cell is finite with positive density and pressure, but the signal rate is not";
  const double rho = s[c], e = s[4 * n + c];
  const double u = s[n + c] / rho, v = s[2 * n + c] / rho, w = s[3 * n + c] / rho;
  const double p = (gamma - 1) * (e - 0.5 * rho * (u * u + v * v + w * w));
  const std::size_t i = c % g.n[0], j = c / g.n[0] % g.n[1], k = c / g.n[0] / g.n[1];
  char text[256];
  std::snprintf(text, sizeof text,
                "first bad cell (i, j, k) = (%zu, %zu, %zu) of the whole grid: rho = %.6g, "
                "u = %.6g, v = %.6g, w = %.6g, p = %.6g",
                i, j, k, rho, u, v, w, p);
  return text;
}

}  // namespace halocline
