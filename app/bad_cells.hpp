// Where a state stops being physical, for the message of a numerical failure and for the
// check that keeps a broken state out of a checkpoint.
#pragma once

#include <cstddef>
#include <string>
#include <vector>

#include "base/grid.hpp"

namespace halocline {

// The first cell of canonical state `s` (n interior cells), in index order, with a
// non-finite value or a non-positive density or pressure; n when there is none.
std::size_t first_bad_cell(const double* s, std::size_t n, double gamma);
inline std::size_t first_bad_cell(const std::vector<double>& s, std::size_t n, double gamma) {
  return first_bad_cell(s.data(), n, gamma);
}

// The first bad cell of the whole state `s` in global indices, with its primitive values.
std::string describe_bad_cell(const std::vector<double>& s, const Grid& g, double gamma);

}  // namespace halocline
