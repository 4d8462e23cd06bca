// Initial conditions of the problems a deck can choose, evaluated on the host in canonical
// order, and the exact solutions the verification compares with.
#pragma once

#include <array>
#include <vector>

#include "base/grid.hpp"
#include "io/config.hpp"
#include "kernels/initial_state.hpp"

namespace halocline {

// The grid a deck describes (interior sizes, domain, ghost layers).
Grid grid_of(const Config& config);

// The subdomain at `coords` of a process grid of `dims` subdomains per direction (uneven
// sizes allowed: split_axis in base/grid.hpp).
Grid grid_of(const Config& config, const int dims[3], const int coords[3]);

// The directions whose two faces are periodic (the process grid wraps there).
std::array<bool, 3> periodic_directions(const Config& config);

// Boundary faces of the deck, in the form the kernels take.
BoundaryFaces boundary_of(const Config& config);

// The deck's problem as kernels/initial_state.hpp evaluates it (on the host and in every
// backend); `grid` is any subdomain of the whole (Sedov counts its deposit over the whole).
InitialCondition initial_condition_of(const Config& config, const Grid& grid);

// Conserved variables of every interior cell: variable-major, x fastest (canonical order).
std::vector<double> initial_state(const Config& config, const Grid& grid);

// Exact density of the isentropic vortex `ic` (initial_condition_of) at the centre of interior
// cell (i, j) at time t.
double vortex_exact_density(const InitialCondition& ic, const Grid& grid, int i, int j, double t);

}  // namespace halocline
