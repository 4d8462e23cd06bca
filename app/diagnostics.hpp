// Diagnostics of a state (app/diagnostics.cpp): conserved totals and their drift, the
// checksum, and primitive variables for snapshots.
#pragma once

#include <array>
#include <cstddef>
#include <cstdint>
#include <string>
#include <vector>

#include "base/grid.hpp"
#include "kernels/contract/backend.hpp"
#include "kernels/totals.hpp"

namespace halocline {

class Comm;

// Totals over the interior of mass, x/y/z momentum and energy (each times the cell
// volume), and of their absolute values (the scale that relative drift is measured by).
struct Totals {
  std::array<double, 5> sum{};
  std::array<double, 5> abs_sum{};
};

// Totals of a canonical state of the whole grid, as kernels/totals.hpp defines them: the same
// bits as the backends' totals of that state.
Totals conserved_totals(const std::vector<double>& canonical, const Grid& grid);
// The totals of fixed-point sums over the whole grid at `scale`, times the cell volume.
Totals fixed_point_totals(FixedSums sums, const TotalsScale& scale, double cell_volume);

// Largest relative drift |final - initial| / scale over the five totals, where scale is
// the initial total of absolute values (for momentum at least sqrt(2 M E), see diagnostics.cpp).
double max_relative_drift(const Totals& initial, const Totals& final);

// The state's checksum (kernels/checksum.hpp) of the whole canonical state (variable-major,
// cells x fastest), as 16 hex digits: a layout- and decomposition-independent fingerprint of
// the solution, equal to what the backends compute where the state lives.
std::string state_checksum(const std::vector<double>& canonical);
// The same of the state in `backend`, each rank's part made where its state lives, summed
// over the ranks of `comm`.
std::string state_checksum(const Comm& comm, Backend& backend);
std::string checksum_text(std::uint64_t checksum);

// Primitive variables (rho, u, v, w, p), canonical order, from conserved ones.
std::vector<double> primitives(const std::vector<double>& canonical, std::size_t ncells, double gamma);
void primitives(const double* canonical, std::size_t ncells, double gamma, double* prim);

}  // namespace halocline
