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

// A slab's cells run in the whole grid's order too (x fastest, then y, then z, all offset
// alike), so its first bad cell is its earliest in the whole grid.
void FirstBadCell::look(const StateSlab& slab) {
  const std::size_t n = slab.block.cells(), c = first_bad_cell(slab.values, n, gamma_);
  if (c == n) return;
  const CellBlock& b = slab.block;
  const std::size_t i = b.offset[0] + c % b.n[0], j = b.offset[1] + c / b.n[0] % b.n[1],
                    k = b.offset[2] + c / b.n[0] / b.n[1];
  const std::size_t index = i + static_cast<std::size_t>(whole_.n[0]) * (j + static_cast<std::size_t>(whole_.n[1]) * k);
  if (index >= index_) return;
  index_ = index;
  const Prim<double> q = to_prim(cell_of(slab.values, n, c), IdealGas<double>(gamma_));
  char text[256];
  std::snprintf(text, sizeof text,
                "first bad cell (i, j, k) = (%zu, %zu, %zu) of the whole grid: rho = %.6g, "
                "u = %.6g, v = %.6g, w = %.6g, p = %.6g",
                i, j, k, q.rho, q.u[0], q.u[1], q.u[2], q.p);
  text_ = text;
}

std::string FirstBadCell::encoded() const {
  if (!failure_.empty()) return "!" + failure_;
  char index[32];
  std::snprintf(index, sizeof index, "%020zu", index_);
  return index + text_;
}

// Fixed-width indices order as numbers do; none seen anywhere leaves the signal rate at fault.
std::string FirstBadCell::first_over_ranks(const std::vector<std::string>& encoded) {
  std::string first, failures;
  for (std::size_t rank = 0; rank < encoded.size(); ++rank) {
    const std::string& e = encoded[rank];
    if (!e.empty() && e[0] == '!')
      failures += "; rank " + std::to_string(rank) + " could not look through its state: " + e.substr(1);
    else if (first.empty() || e < first)
      first = e;
  }
  if (first.size() <= 20) {
    const std::string rate = "every cell is finite with positive density and pressure, but the signal rate is not";
    return (failures.empty() ? rate : "no bad cell found") + failures;
  }
  return first.substr(20) + failures;
}

}  // namespace halocline
