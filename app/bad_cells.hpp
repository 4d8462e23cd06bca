// Where a state stops being physical, for the message of a numerical failure and for the
// check that keeps a broken state out of a checkpoint.
#pragma once

#include <cstddef>
#include <string>
#include <vector>

#include "base/grid.hpp"
#include "kernels/contract/state_slabs.hpp"

namespace halocline {

// The first cell of canonical state `s` (n interior cells), in index order, with a
// non-finite value or a non-positive density or pressure; n when there is none.
std::size_t first_bad_cell(const double* s, std::size_t n, double gamma);
inline std::size_t first_bad_cell(const std::vector<double>& s, std::size_t n, double gamma) {
  return first_bad_cell(s.data(), n, gamma);
}

// The first bad cell of the whole grid (in its index order, x fastest) among the slabs a
// rank is shown, with its primitive values: each rank looks through its own slabs, so no
// process ever holds more of the state than a slab (a run of 1024^3 cells per rank faults
// without gathering them), and first_over_ranks says the earliest of all.
class FirstBadCell {
 public:
  FirstBadCell(const Grid& whole, double gamma) : whole_(whole), gamma_(gamma), index_(whole.ninterior) {}
  // Keeps the slab's first bad cell when it comes before the one kept.
  void look(const StateSlab& slab);
  // Its index in the whole grid (whole.ninterior when none was seen), and what it holds.
  std::size_t index() const { return index_; }
  const std::string& text() const { return text_; }
  // This rank could not look through its state (`why`): the others' cells are still said.
  void failed(const std::string& why) { failure_ = why; }
  // This rank's cell as one string for a gather (its index first, fixed width, or its
  // failure), and the earliest of the ranks' strings in words, with any rank's failure.
  std::string encoded() const;
  static std::string first_over_ranks(const std::vector<std::string>& encoded);

 private:
  const Grid& whole_;
  double gamma_;
  std::size_t index_;
  std::string text_;
  std::string failure_;
};

}  // namespace halocline
