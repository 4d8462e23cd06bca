// The state-sized arrays of SSP-RK2 and which of them is the solution, written once for
// every backend; each backend supplies its array type (anything with get() and bytes())
// and how to make one.
//
// u0 and unew take turns: stage 2 writes the new solution into unew, finish_step() swaps
// their roles, so the step's input is never overwritten by the step itself and a
// numerical fault leaves both the broken state and the last good one (select_after_fault).
#pragma once

#include <cstddef>
#include <string>

#include "base/grid.hpp"
#include "kernels/contract/backend.hpp"
#include "kernels/contract/errors.hpp"
#include "kernels/contract/strategy.hpp"
#include "kernels/stencil.hpp"

namespace halocline {

// Refuses, before allocating, a subdomain a GPU backend cannot index: more padded cells than
// kMaxDeviceCells (base/grid.hpp). One clear line and exit code 2.
inline void check_device_indexable(const Grid& g) {
  if (g.ncells > kMaxDeviceCells)
    throw ResourceError("this subdomain has " + std::to_string(g.ncells) +
                        " cells with its ghost layers; a rank on a GPU holds at most " +
                        std::to_string(kMaxDeviceCells) + " (its cell indices are 32-bit there): use more ranks");
}

template <class Array>
class SolverArrays {
 public:
  // Makes u0, unew, u1 and, with `flux_arrays` (the split kernels), a flux array per active
  // direction, each of `bytes`, with `make(bytes, name)`; solver_arrays() (kernels/stencil.hpp)
  // counts them for the memory checks that come before.
  template <class Make>
  void allocate(const Grid& g, bool flux_arrays, std::size_t bytes, Make make) {
    solution_[0] = make(bytes, "u0");
    solution_[1] = make(bytes, "unew");
    stage_ = make(bytes, "u1");
    for (int d = 0; d < 3; ++d)
      if (flux_arrays && g.active(d)) flux_[d] = make(bytes, std::string("flux_") + "xyz"[d]);
  }

  const Array& u0() const { return solution_[current_]; }
  const Array& unew() const { return solution_[1 - current_]; }
  const Array& u1() const { return stage_; }
  const Array& operator[](Slot s) const { return s == Slot::U0 ? u0() : u1(); }
  const Array& flux(int d) const { return flux_[d]; }
  // Which of the two solution arrays is u0 (the controller records it when a step fails).
  int current() const { return current_; }

  // Stage 2 wrote the new state (or carried the old one) into unew: it becomes u0.
  void finish_step() { current_ ^= 1; }
  // After a fault found in solution array `failed_array` (the controller records it): u0
  // becomes that broken state, or the last good one it was made from (the other array).
  void select_after_fault(AfterFault which, int failed_array) {
    current_ = which == AfterFault::Broken ? failed_array : 1 - failed_array;
  }

  // f(array) for every array made (for prefetching them all).
  template <class F>
  void for_each(F f) const {
    for (const Array* a : {&solution_[0], &solution_[1], &stage_, &flux_[0], &flux_[1], &flux_[2]})
      if (a->bytes()) f(*a);
  }
  std::size_t bytes() const {
    std::size_t total = 0;
    for_each([&](const Array& a) { total += a.bytes(); });
    return total;
  }

 private:
  Array solution_[2];  // u0 and unew, by turns
  Array stage_;        // u1
  Array flux_[3];      // empty for inactive directions
  int current_ = 0;    // which of solution_ is u0
};

// Whether an owner model moves the state between host and device at each step's start and
// end: the host owner's naive port, and managed memory with prefetches.
inline bool moves_state_each_step(const MemoryStrategy& m) {
  return m.owner == Owner::Host || (m.owner == Owner::Managed && m.prefetch);
}

}  // namespace halocline
