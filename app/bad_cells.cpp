#include "app/bad_cells.hpp"

#include <cmath>
#include <cstdio>

#include "kernels/hydro.hpp"

namespace halocline {

// Both read a cell as the solver does (kernels/hydro.hpp's to_prim), so the cell found bad
// and the values said of it are the fp64 solver's (an fp32 run's state is read as doubles).
std::size_t first_bad_cell(const double* s, std::size_t n, double gamma) {
  const IdealGas<double> gas(gamma);
  for (std::size_t c = 0; c < n; ++c) {
    const Cons<double> w = cell_of(s, n, c);
    bool finite = true;
    for (int var = 0; var < kNumVars; ++var) finite = finite && std::isfinite(w.q[var]);
    if (!(finite && w.q[0] > 0 && to_prim(w, gas).p > 0)) return c;
  }
  return n;
}

std::string describe_bad_cell(const std::vector<double>& s, const Grid& g, double gamma) {
  const std::size_t n = g.ninterior, c = first_bad_cell(s.data(), n, gamma);
  if (c == n) return "every cell is finite with positive density and pressure, but the signal rate is not";
  const Prim<double> q = to_prim(cell_of(s.data(), n, c), IdealGas<double>(gamma));
  const double rho = q.rho, u = q.u[0], v = q.u[1], w = q.u[2], p = q.p;
  const std::size_t i = c % g.n[0], j = c / g.n[0] % g.n[1], k = c / g.n[0] / g.n[1];
  char text[256];
  std::snprintf(text, sizeof text,
                "first bad cell (i, j, k) = (%zu, %zu, %zu) of the whole grid: rho = %.6g, "
                "u = %.6g, v = %.6g, w = %.6g, p = %.6g",
                i, j, k, rho, u, v, w, p);
  return text;
}

}  // namespace halocline
