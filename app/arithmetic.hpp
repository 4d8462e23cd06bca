// The arithmetic a cell-update costs, counted from the physics itself, and the limit the
// device's measured arithmetic rates put on the cell-update rate (docs/report.md,
// `arithmetic`).
//
// The physics (kernels/hydro.hpp, kernels/stencil.hpp) is written once as templates on Real.
// CountedReal is a Real that records each operation on a tape; the operations that count are
// those the stored results depend on (the compiler drops the others: a face state that a
// kernel does not use, a frame's pressure that it does not store) and every comparison.
#pragma once

#include <nlohmann/json.hpp>
#include <vector>

#include "io/config.hpp"
#include "kernels/contract/probe_result.hpp"
#include "kernels/contract/strategy.hpp"
#include "kernels/hydro.hpp"

namespace halocline {

// Operations by kind. `compare` holds comparisons (each with the select, min, max or branch
// it feeds), absolute values and copysigns; a negation is a sign modifier of the operation using it and
// counts nothing; so does a constant.
struct ArithmeticCount {
  double add = 0, mul = 0, fma = 0, div = 0, sqrt = 0, compare = 0;
  // Every add, mul, fma and compare takes one issue slot of the FMA pipe.
  double fma_slots() const { return add + mul + fma + compare; }
  ArithmeticCount& operator+=(const ArithmeticCount& o);
};
ArithmeticCount operator*(double times, ArithmeticCount c);
ArithmeticCount operator+(ArithmeticCount a, const ArithmeticCount& b);

// Abs counts as a compare; comparisons are always live (they steer branches and selects).
enum class OpKind : unsigned char { Add, Mul, Fma, Div, Sqrt, Compare, Abs };

// The operations recorded since the last clear, one node each with its operands (-1: a
// constant or an input). One tape per thread.
class OpTape {
 public:
  static OpTape& current();
  int record(OpKind kind, int a, int b = -1, int c = -1);
  void clear() { nodes_.clear(); }
  // The precision whose arithmetic is counted, where the physics takes a form per precision
  // (hllc_flux: hllc_rescales).
  Precision precision = Precision::FP64;
  // The operations that `outputs` (node ids) or any comparison depend on.
  ArithmeticCount live(const std::vector<int>& outputs) const;

 private:
  struct Node {
    OpKind kind;
    int operand[3];
  };
  std::vector<Node> nodes_;
};

// A double that records what is done with it on OpTape::current().
class CountedReal {
 public:
  CountedReal() = default;
  explicit CountedReal(double v) : value_(v) {}  // a constant or an input: no operation
  CountedReal(double v, int node) : value_(v), node_(node) {}
  double value() const { return value_; }
  int node() const { return node_; }

 private:
  double value_ = 0;
  int node_ = -1;
};

CountedReal operator+(CountedReal a, CountedReal b);
CountedReal operator-(CountedReal a, CountedReal b);
CountedReal operator*(CountedReal a, CountedReal b);
CountedReal operator/(CountedReal a, CountedReal b);
inline CountedReal operator-(CountedReal a) { return {-a.value(), a.node()}; }
bool operator<(CountedReal a, CountedReal b);
bool operator<=(CountedReal a, CountedReal b);
bool operator>(CountedReal a, CountedReal b);
bool operator>=(CountedReal a, CountedReal b);
bool operator!=(CountedReal a, CountedReal b);
// The physics' own names (kernels/hydro.hpp), found by argument-dependent lookup.
CountedReal mul_add(CountedReal a, CountedReal b, CountedReal c);
CountedReal square_root(CountedReal x);
CountedReal absolute_value(CountedReal x);
CountedReal smaller(CountedReal a, CountedReal b);       // a min: one compare
CountedReal with_sign_of(CountedReal m, CountedReal a);  // a copysign, counted as an abs
// hllc_flux's form for the precision the tape counts (OpTape::precision): fp32 scales its
// states by a power of two (hllc_flux_rescaled), whose making is integer work, not counted; its
// multiplications are.
inline bool hllc_rescales(CountedReal) { return OpTape::current().precision == Precision::FP32; }
inline PowerOfTwoScale<CountedReal> density_scale(CountedReal) { return {CountedReal(1), CountedReal(1)}; }

// The tape counts `precision`'s forms while this lives (then fp64's again).
struct CountedPrecision {
  explicit CountedPrecision(Precision p) { OpTape::current().precision = p; }
  ~CountedPrecision() { OpTape::current().precision = Precision::FP64; }
  CountedPrecision(const CountedPrecision&) = delete;
  CountedPrecision& operator=(const CountedPrecision&) = delete;
};

// Counts the live operations of `work`, which returns the values a kernel would store.
template <class Work>
ArithmeticCount count_operations(Work work) {
  OpTape& tape = OpTape::current();
  tape.clear();
  std::vector<int> outputs;
  for (const CountedReal& x : work()) outputs.push_back(x.node());
  const ArithmeticCount count = tape.live(outputs);
  tape.clear();
  return count;
}

// Which kernels' structure a run's cell-updates have: the split kernels or the fused stage
// (both backends work on kernels/fused_tile.hpp's tile).
enum class ArithmeticPath { Split, FusedTile };
ArithmeticPath arithmetic_path(BackendKind backend, KernelStrategy kernels);
const char* arithmetic_path_name(ArithmeticPath path);

// The operations of one interior cell-update (a whole SSP-RK2 step) with the directions
// `active`, along the representative path of docs/report.md (every face in HLLC's star
// region, every slope limited but not zero, no first-order fallback), in the forms that
// `precision` takes.
ArithmeticCount cell_update_operations(ArithmeticPath path, RiemannSolver solver, Limiter limiter, const bool active[3],
                                       Precision precision = Precision::FP64);

// 1 / (fma_slots / fma rate + div / div rate + sqrt / sqrt rate): cell-updates per second if
// the arithmetic alone limited the step (0 when a rate is missing).
double arithmetic_limit(const ArithmeticCount& per_cell, const ArithmeticRates& rates);

// The report's `arithmetic` object (docs/report.md) without the rates (add_probe_to_report,
// app/report.hpp, adds them), and its counts read back.
nlohmann::json arithmetic_json(const ArithmeticCount& per_cell, ArithmeticPath path, RiemannSolver solver);
ArithmeticCount arithmetic_count_from_json(const nlohmann::json& per_cell_update);

}  // namespace halocline
