#include "app/arithmetic.hpp"

#include <cmath>

#include "kernels/stencil.hpp"

namespace halocline {

ArithmeticCount& ArithmeticCount::operator+=(const ArithmeticCount& o) {
  add += o.add;
  mul += o.mul;
  fma += o.fma;
  div += o.div;
  sqrt += o.sqrt;
  compare += o.compare;
  return *this;
}

ArithmeticCount operator*(double times, ArithmeticCount c) {
  for (double* x : {&c.add, &c.mul, &c.fma, &c.div, &c.sqrt, &c.compare}) *x *= times;
  return c;
}

ArithmeticCount operator+(ArithmeticCount a, const ArithmeticCount& b) { return a += b; }

OpTape& OpTape::current() {
  thread_local OpTape tape;
  return tape;
}

int OpTape::record(OpKind kind, int a, int b, int c) {
  nodes_.push_back({kind, {a, b, c}});
  return static_cast<int>(nodes_.size()) - 1;
}

ArithmeticCount OpTape::live(const std::vector<int>& outputs) const {
  std::vector<char> seen(nodes_.size(), 0);
  std::vector<int> todo;
  for (int n : outputs)
    if (n >= 0) todo.push_back(n);
  for (std::size_t n = 0; n < nodes_.size(); ++n)
    if (nodes_[n].kind == OpKind::Compare) todo.push_back(static_cast<int>(n));
  ArithmeticCount count;
  while (!todo.empty()) {
    const int n = todo.back();
    todo.pop_back();
    if (seen[n]) continue;
    seen[n] = 1;
    const Node& node = nodes_[n];
    double* const by_kind[] = {&count.add,  &count.mul,     &count.fma,    &count.div,
                               &count.sqrt, &count.compare, &count.compare};
    *by_kind[static_cast<int>(node.kind)] += 1;
    for (int operand : node.operand)
      if (operand >= 0 && !seen[operand]) todo.push_back(operand);
  }
  return count;
}

namespace {

CountedReal recorded(double value, OpKind kind, int a, int b = -1, int c = -1) {
  return {value, OpTape::current().record(kind, a, b, c)};
}
bool compared(bool result, CountedReal a, CountedReal b) {
  OpTape::current().record(OpKind::Compare, a.node(), b.node());
  return result;
}

}  // namespace

CountedReal operator+(CountedReal a, CountedReal b) {
  return recorded(a.value() + b.value(), OpKind::Add, a.node(), b.node());
}
CountedReal operator-(CountedReal a, CountedReal b) {
  return recorded(a.value() - b.value(), OpKind::Add, a.node(), b.node());
}
CountedReal operator*(CountedReal a, CountedReal b) {
  return recorded(a.value() * b.value(), OpKind::Mul, a.node(), b.node());
}
CountedReal operator/(CountedReal a, CountedReal b) {
  return recorded(a.value() / b.value(), OpKind::Div, a.node(), b.node());
}
bool operator<(CountedReal a, CountedReal b) { return compared(a.value() < b.value(), a, b); }
bool operator<=(CountedReal a, CountedReal b) { return compared(a.value() <= b.value(), a, b); }
bool operator>(CountedReal a, CountedReal b) { return compared(a.value() > b.value(), a, b); }
bool operator>=(CountedReal a, CountedReal b) { return compared(a.value() >= b.value(), a, b); }
bool operator!=(CountedReal a, CountedReal b) { return compared(a.value() != b.value(), a, b); }
CountedReal mul_add(CountedReal a, CountedReal b, CountedReal c) {
  return recorded(std::fma(a.value(), b.value(), c.value()), OpKind::Fma, a.node(), b.node(), c.node());
}
CountedReal square_root(CountedReal x) { return recorded(std::sqrt(x.value()), OpKind::Sqrt, x.node()); }
CountedReal absolute_value(CountedReal x) { return recorded(std::fabs(x.value()), OpKind::Abs, x.node()); }
CountedReal smaller(CountedReal a, CountedReal b) {
  return recorded(std::fmin(a.value(), b.value()), OpKind::Compare, a.node(), b.node());
}
CountedReal with_sign_of(CountedReal m, CountedReal a) {
  return recorded(std::copysign(m.value(), a.value()), OpKind::Abs, m.node(), a.node());
}

namespace {

using R = CountedReal;

// The representative stencil along a face normal: cell j (-2 .. 2) of a smooth, monotone
// state, so that every value's slopes have one sign (limited, not zero), the face states are
// positive (no fallback), and the face between cells -1 and 0 sees both waves of HLLC on
// opposite sides, the contact moving right: the star region's flux.
Prim<double> stencil_prim(int j) {
  Prim<double> q;
  q.rho = 1 + 0.1 * j + 0.01 * j * j;
  q.u[0] = 0.1 + 0.05 * j;
  q.u[1] = 0.2 + 0.03 * j;
  q.u[2] = -0.1 - 0.02 * j;
  q.p = 1 + 0.2 * j + 0.01 * j * j;
  return q;
}
constexpr double kGamma = 1.4;

// The gas's constants, made where a kernel starts: inputs, not operations of a cell.
IdealGas<R> input_gas() {
  const IdealGas<double> g(kGamma);
  IdealGas<R> gas{R(kGamma)};
  gas.gamma_minus_1 = R(g.gamma_minus_1);
  gas.inv_gamma_minus_1 = R(g.inv_gamma_minus_1);
  return gas;
}
Prim<R> input(const Prim<double>& q) {
  Prim<R> r;
  r.rho = R(q.rho);
  for (int c = 0; c < 3; ++c) r.u[c] = R(q.u[c]);
  r.p = R(q.p);
  return r;
}
Cons<R> input_cons(int j) {
  const Cons<double> w = to_cons(stencil_prim(j), IdealGas<double>(kGamma));
  Cons<R> r;
  for (int v = 0; v < kNumVars; ++v) r.q[v] = R(w.q[v]);
  return r;
}
std::vector<R> stored(const Prim<R>& q) { return {q.rho, q.u[0], q.u[1], q.u[2], q.p}; }
std::vector<R> stored(const Cons<R>& w) { return {w.q, w.q + kNumVars}; }

// The pieces of a cell-update, each a call of the physics with the values its kernel stores.
// The split kernels' flux through one face (face_flux: four cells converted, two muscl_cell
// halves, the Riemann flux), direction x (the others are relabellings).
ArithmeticCount split_face(RiemannSolver solver, Limiter lim) {
  return count_operations([&] {
    std::vector<R> u(4 * kNumVars), f(4 * kNumVars);
    const StateRef<R, AoS> state{u.data(), 4}, flux{f.data(), 4};
    for (int j = -2; j < 2; ++j) {
      const Cons<R> w = input_cons(j);
      for (int v = 0; v < kNumVars; ++v) state(v, j + 2) = w.q[v];
    }
    face_flux<0>(state, flux, 2, 1, input_gas(), lim, solver);
    std::vector<R> out;
    for (int v = 0; v < kNumVars; ++v) out.push_back(flux(v, 2));
    return out;
  });
}
// A fused stage's conversion of a cell, once, in all three frames: into the column's lookahead
// (z active) or into the filled plane (z inactive: the plane filled whole).
ArithmeticCount cell_conversion() {
  return count_operations([] {
    const CellPrims<R> q = cell_prims(input_cons(0), input_gas());
    return std::vector<R>{q.rho, q.u[0], q.u[1], q.u[2], q.p[0], q.p[1], q.p[2]};
  });
}
// The fused tile's reconstruction of a cell along one direction: its slopes, and the two face
// states its faces make from them (limited_slopes, then face_state twice: muscl_cell's operations).
ArithmeticCount cell_reconstruction(Limiter lim) {
  return count_operations([&] {
    const FaceStates<R> fs = muscl_cell(input(stencil_prim(-1)), input(stencil_prim(0)), input(stencil_prim(1)), lim);
    std::vector<R> out = stored(fs.low);
    for (const R& x : stored(fs.high)) out.push_back(x);
    return out;
  });
}
// The Riemann flux of the representative face, from its reconstructed states.
ArithmeticCount face_riemann(RiemannSolver solver, Limiter lim) {
  const Prim<double> left = muscl_cell(stencil_prim(-2), stencil_prim(-1), stencil_prim(0), lim).high;
  const Prim<double> right = muscl_cell(stencil_prim(-1), stencil_prim(0), stencil_prim(1), lim).low;
  return count_operations([&] { return stored(riemann_flux(input(left), input(right), input_gas(), solver)); });
}
// A stage's update of a cell from its face fluxes: update_cell's (and the fused stages') sum of
// the flux differences in x, y, z order and stage_value, for each value.
ArithmeticCount cell_stage_update(int stage, const bool active[3]) {
  return count_operations([&] {
    std::vector<R> out;
    for (int v = 0; v < kNumVars; ++v) {
      R div = R(0);
      for (int d = 0; d < 3; ++d)
        if (active[d]) div = add_flux_difference(div, 0.1, R(1.0 + v), R(0.9 + v));
      StageUpdate st{};
      st.stage = stage;
      out.push_back(stage_value(st, R(2.0 + v), R(2.1 + v), div));
    }
    return out;
  });
}
// The signal rate of a cell, once per step (the split kernels' pass, the fused stage 2's
// epilogue), with the comparison that folds it into the largest.
ArithmeticCount signal_rate_of_cell(const bool active[3]) {
  ArithmeticCount count = count_operations([&] {
    RateScale<R> scale;
    for (int d = 0; d < 3; ++d) {
      scale.inv_dx[d] = R(64.0);
      scale.active[d] = active[d];
    }
    return std::vector<R>{state_signal_rate(input_cons(0), input_gas(), scale)};
  });
  count.compare += 1;  // if (rate > most) most = rate
  return count;
}

}  // namespace

ArithmeticPath arithmetic_path(BackendKind backend, KernelStrategy kernels) {
  (void)backend;  // both backends' fused stages work on kernels/fused_tile.hpp's tile
  return kernels == KernelStrategy::Fused ? ArithmeticPath::FusedTile : ArithmeticPath::Split;
}

const char* arithmetic_path_name(ArithmeticPath path) {
  switch (path) {
    case ArithmeticPath::Split: return "split";
    case ArithmeticPath::FusedTile: return "fused-tile";
  }
  return "?";
}

// Mirrored by hand from the kernels (kernels/hip/fluxes.hpp with kernels/stencil.hpp's
// face_flux, kernels/fused_tile.hpp): how many of each piece one
// interior cell takes per stage. Each face is shared by two cells, so a cell owns one face
// per active direction; the faces and conversions of a tile's halo are left out.
ArithmeticCount cell_update_operations(ArithmeticPath path, RiemannSolver solver, Limiter lim, const bool active[3],
                                       Precision precision) {
  const CountedPrecision counted(precision);  // until this returns
  const int directions = int(active[0]) + active[1] + active[2];
  ArithmeticCount stage;
  switch (path) {
    case ArithmeticPath::Split: stage = directions * split_face(solver, lim); break;
    case ArithmeticPath::FusedTile:
      stage = cell_conversion() + directions * (cell_reconstruction(lim) + face_riemann(solver, lim));
      break;
  }
  return 2 * stage + cell_stage_update(1, active) + cell_stage_update(2, active) + signal_rate_of_cell(active);
}

double arithmetic_limit(const ArithmeticCount& c, const ArithmeticRates& rates) {
  if (!(rates.fma_per_s > 0) || !(rates.div_per_s > 0) || !(rates.sqrt_per_s > 0)) return 0.0;
  return 1.0 / (c.fma_slots() / rates.fma_per_s + c.div / rates.div_per_s + c.sqrt / rates.sqrt_per_s);
}

nlohmann::json arithmetic_json(const ArithmeticCount& c, ArithmeticPath path, RiemannSolver solver) {
  return {{"path", arithmetic_path_name(path)},
          {"riemann_solver", riemann_name(solver)},
          {"per_cell_update",
           {{"add", c.add},
            {"mul", c.mul},
            {"fma", c.fma},
            {"div", c.div},
            {"sqrt", c.sqrt},
            {"compare", c.compare},
            {"fma_slots", c.fma_slots()}}}};
}

ArithmeticCount arithmetic_count_from_json(const nlohmann::json& per_cell_update) {
  ArithmeticCount c;
  c.add = per_cell_update.at("add").get<double>();
  c.mul = per_cell_update.at("mul").get<double>();
  c.fma = per_cell_update.at("fma").get<double>();
  c.div = per_cell_update.at("div").get<double>();
  c.sqrt = per_cell_update.at("sqrt").get<double>();
  c.compare = per_cell_update.at("compare").get<double>();
  return c;
}

}  // namespace halocline
