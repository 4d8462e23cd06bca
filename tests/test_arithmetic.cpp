// The operation counts of app/arithmetic.hpp: the counting scalar against functions counted
// by hand, HLLC's divisions and square roots as its comment states them, the cell-update
// counts of each kernel structure from their pieces, and the limit's formula.
#include <gtest/gtest.h>

#include <cstdio>

#include "app/arithmetic.hpp"

namespace hc = halocline;
using R = hc::CountedReal;

namespace {

hc::Prim<R> prim(double rho, double u, double p) {
  hc::Prim<R> q;
  q.rho = R(rho);
  q.u[0] = R(u);
  q.u[1] = R(0.2);
  q.u[2] = R(-0.1);
  q.p = R(p);
  return q;
}

// The gas's constants as inputs (a kernel makes them once, not per cell).
hc::IdealGas<R> gas() {
  hc::IdealGas<R> g{R(1.4)};
  g.gamma_minus_1 = R(0.4);
  g.inv_gamma_minus_1 = R(2.5);
  return g;
}

std::vector<R> values(const hc::Cons<R>& w) { return {w.q, w.q + hc::kNumVars}; }

// hllc_flux's operations on a face, in the form `precision` takes.
hc::ArithmeticCount hllc(double ul, double ur, hc::Precision precision = hc::Precision::FP64) {
  const hc::CountedPrecision counted(precision);
  return hc::count_operations([&] { return values(hc::hllc_flux(prim(1.0, ul, 1.0), prim(0.9, ur, 0.9), gas())); });
}

}  // namespace

// to_prim: one division (the reciprocal density), three products for the velocities, the
// kinetic energy (a square, two fused multiply-adds, two products) and the pressure.
TEST(Arithmetic, ToPrimIsCountedAsWritten) {
  const hc::ArithmeticCount c = hc::count_operations([] {
    hc::Cons<R> w;
    for (int v = 0; v < hc::kNumVars; ++v) w.q[v] = R(1.0 + v);
    const hc::Prim<R> q = hc::to_prim(w, gas());
    return std::vector<R>{q.rho, q.u[0], q.u[1], q.u[2], q.p};
  });
  EXPECT_EQ(c.div, 1);
  EXPECT_EQ(c.sqrt, 0);
  EXPECT_EQ(c.mul, 7);
  EXPECT_EQ(c.fma, 2);
  EXPECT_EQ(c.add, 1);
  EXPECT_EQ(c.compare, 0);
}

// Only what the stored values depend on counts: a velocity alone needs the division and one
// product; a comparison always counts, with what it reads.
TEST(Arithmetic, DeadOperationsDoNotCount) {
  const hc::ArithmeticCount c = hc::count_operations([] {
    hc::Cons<R> w;
    for (int v = 0; v < hc::kNumVars; ++v) w.q[v] = R(1.0 + v);
    const hc::Prim<R> q = hc::to_prim(w, gas());
    const bool positive = q.p > R(0);
    return std::vector<R>{positive ? q.u[1] : q.u[2]};
  });
  EXPECT_EQ(c.div, 1);
  EXPECT_EQ(c.compare, 1);
  EXPECT_EQ(c.mul, 7);  // the pressure the comparison reads
}

// hllc_flux's comment: three divisions and four square roots per face (the star region), and
// a supersonic face returns before the one reciprocal of the contact and the star state; fp32
// takes the same form on states scaled by a power of two: 4 multiplications in (both sides'
// density and pressure) and 5 out (the flux), and nothing else more.
TEST(Arithmetic, HllcStarPathTakesEachPrecisionsDivisionsAndRoots) {
  const hc::ArithmeticCount star = hllc(0.1, 0.05);
  EXPECT_EQ(star.div, 3);
  EXPECT_EQ(star.sqrt, 4);
  const hc::ArithmeticCount supersonic = hllc(3.0, 3.0);
  EXPECT_EQ(supersonic.div, 2);
  EXPECT_EQ(supersonic.sqrt, 4);
  const hc::ArithmeticCount star32 = hllc(0.1, 0.05, hc::Precision::FP32);
  const hc::ArithmeticCount supersonic32 = hllc(3.0, 3.0, hc::Precision::FP32);
  for (const auto& [fp32, fp64] : {std::pair{star32, star}, std::pair{supersonic32, supersonic}}) {
    EXPECT_EQ(fp32.div, fp64.div);
    EXPECT_EQ(fp32.sqrt, fp64.sqrt);
    EXPECT_EQ(fp32.add, fp64.add);
    EXPECT_EQ(fp32.fma, fp64.fma);
    EXPECT_EQ(fp32.compare, fp64.compare);
    EXPECT_EQ(fp32.mul, fp64.mul + 9);
  }
  const hc::ArithmeticCount rusanov =
      hc::count_operations([] { return values(hc::rusanov_flux(prim(1.0, 0.1, 1.0), prim(0.9, 0.05, 0.9), gas())); });
  EXPECT_EQ(rusanov.div, 2);  // the sound speeds' p / rho
  EXPECT_EQ(rusanov.sqrt, 2);
}

// The cell-update of a 3-D step from its pieces, per stage: the split kernels convert 4 cells
// and make the flux of each of 3 faces; the fused tile (both backends) converts each cell
// once (all three frames, into its column's lookahead) and makes 3 faces. Each step adds the signal rate (a conversion
// and a sound speed).
TEST(Arithmetic, CellUpdateFollowsEachKernelStructure) {
  const bool active[3] = {true, true, true};
  using P = hc::ArithmeticPath;
  for (const auto& [solver, precision] : {std::pair{hc::RiemannSolver::HLLC, hc::Precision::FP64},
                                          std::pair{hc::RiemannSolver::HLLC, hc::Precision::FP32},
                                          std::pair{hc::RiemannSolver::Rusanov, hc::Precision::FP64}}) {
    const bool hllc = solver == hc::RiemannSolver::HLLC, fp64 = precision == hc::Precision::FP64;
    const int face_div = hllc ? 3 : 2, face_sqrt = hllc ? 4 : 2;
    const hc::ArithmeticCount split = cell_update_operations(P::Split, solver, hc::Limiter::MC, active, precision);
    const hc::ArithmeticCount tile = cell_update_operations(P::FusedTile, solver, hc::Limiter::MC, active, precision);
    EXPECT_EQ(split.div, 2 * 3 * (4 + face_div) + 2);
    EXPECT_EQ(tile.div, 2 * (1 + 3 * face_div) + 2);
    for (const hc::ArithmeticCount& c : {split, tile}) EXPECT_EQ(c.sqrt, 2 * 3 * face_sqrt + 1);
    // The tile reconstructs each cell once per direction, the split kernels twice (less the
    // face states they do not use): fewer slots.
    EXPECT_LT(tile.fma_slots(), split.fma_slots());
    // Every slope limited but not zero (MC: a sign test, 3 absolute values, 2 minima and a
    // copysign for each of 5 values) and the 4 fallback tests of each muscl_cell; HLLC's 6 comparisons
    // (Rusanov: 2 absolute values and the max); the signal rate's 3 absolute values, 2
    // positivity tests, its NaN test and the max.
    const int face_compares = hllc ? 6 : 3;
    EXPECT_EQ(tile.compare, 2 * 3 * (5 * 7 + 4 + face_compares) + 3 + 2 + 1 + 1);
    for (const auto& [name, c] : {std::pair{"split", split}, std::pair{"fused-tile", tile}})
      std::printf("%s %s %s: add %g mul %g fma %g div %g sqrt %g compare %g (fma slots %g)\n",
                  hllc ? "hllc" : "rusanov", fp64 ? "fp64" : "fp32", name, c.add, c.mul, c.fma, c.div, c.sqrt,
                  c.compare, c.fma_slots());
  }
  // A 1-D run: one face per stage, each cell converted once (into the plane, filled whole).
  const bool x_only[3] = {true, false, false};
  EXPECT_EQ(cell_update_operations(P::FusedTile, hc::RiemannSolver::HLLC, hc::Limiter::MC, x_only).div,
            2 * (1 + 3) + 2);
}

TEST(Arithmetic, LimitAddsTheTimeOfEachKind) {
  hc::ArithmeticCount c;
  c.add = 10;
  c.mul = 20;
  c.fma = 30;
  c.compare = 40;  // 100 slots
  c.div = 5;
  c.sqrt = 2;
  const hc::ArithmeticRates rates{1e11, 1e9, 5e8};
  EXPECT_DOUBLE_EQ(hc::arithmetic_limit(c, rates), 1.0 / (100 / 1e11 + 5 / 1e9 + 2 / 5e8));
  EXPECT_EQ(hc::arithmetic_limit(c, hc::ArithmeticRates{}), 0.0);  // not measured: no limit
  const nlohmann::json j = hc::arithmetic_json(c, hc::ArithmeticPath::FusedTile, hc::RiemannSolver::HLLC);
  EXPECT_EQ(j.at("path"), "fused-tile");
  EXPECT_EQ(j.at("per_cell_update").at("fma_slots"), 100.0);
  const hc::ArithmeticCount back = hc::arithmetic_count_from_json(j.at("per_cell_update"));
  EXPECT_EQ(back.fma_slots(), 100);
  EXPECT_EQ(back.div, 5);
  EXPECT_EQ(back.sqrt, 2);
}
