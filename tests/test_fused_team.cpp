// The fused stage's march (kernels/fused_tile.hpp: march_tile) with the teams of every GPU
// shape, run on the host by TeamInTurn: each phase's items handed out over 128 or 256 threads
// as a GPU hands them out (the halo spread, the columns' z states and lookaheads), the threads
// of a phase run in rank order and reversed. Both give the split kernels' bits (face_flux, then
// update_cell), in stage 1 and 2, on grids that cut the tiles and the z chunks unevenly, in 3-D
// and 2-D and with y inactive. (Kokkos on a GPU runs the phases in loops of its own,
// march_on_gpu in kernels/kokkos/fused.hpp: its tiles' item distribution is checked here, its
// loops by the Kokkos GPU suite.) A phase that read what another thread of the same phase wrote
// would give different bits in the two orders; a slot no thread wrote reads the NaN the scratch
// starts with; a stray store shows in the cells the stage must not write. So CI checks, without
// a GPU, the work that the GPU suite alone checked before.
#include <gtest/gtest.h>

#include <cmath>
#include <cstdint>
#include <cstring>
#include <memory>
#include <string>
#include <vector>

#include "kernels/fused_tile.hpp"

namespace hc = halocline;

namespace {

constexpr int kChunkZ = 32;  // planes per team along z, as both backends march

// A state over the grid's cells, ghosts included: smooth waves with a jump across a slanted
// plane and a cell in 17 pushed off, so that every limiter case (flat, extremum, sloped) shows.
template <class Real>
std::vector<Real> test_state(const hc::Grid& g, int seed) {
  std::vector<Real> u(hc::kNumVars * g.ncells);
  const hc::StateRef<Real, hc::SoA> ref{u.data(), g.ncells};
  const hc::IdealGas<Real> gas(Real(1.4));
  for (int k = 0; k < g.np[2]; ++k)
    for (int j = 0; j < g.np[1]; ++j)
      for (int i = 0; i < g.np[0]; ++i) {
        const double x = 0.21 * i + 0.05 * seed, y = 0.17 * j, z = 0.13 * k;
        const bool high = i + 2 * j - k > 10 + seed;
        const std::size_t c = g.index(i, j, k);
        const bool kicked = (c * 2654435761u + seed) % 17 == 0;
        hc::Prim<Real> q;
        q.rho = Real((high ? 1.6 : 0.8) + 0.2 * std::sin(x + y) + (kicked ? 0.3 : 0.0));
        q.u[0] = Real(0.4 * std::cos(y + z));
        q.u[1] = Real(-0.3 * std::sin(x - z));
        q.u[2] = Real(0.25 * std::cos(x + 2 * y));
        q.p = Real((high ? 2.0 : 1.0) + 0.3 * std::cos(z - x) + (kicked ? -0.4 : 0.0));
        const hc::Cons<Real> w = hc::to_cons(q, gas);
        for (int v = 0; v < hc::kNumVars; ++v) ref(v, c) = w.q[v];
      }
  return u;
}

// What every stage of a case reads: the grid, the stage's inputs, the physics.
template <class Real>
struct StageCase {
  hc::Grid g;
  std::vector<Real> in, u0;
  hc::StageUpdate st;
  hc::Limiter lim;
  hc::RiemannSolver solver;

  hc::IdealGas<Real> gas{Real(1.4)};

  hc::StateRef<Real, hc::SoA> ref(std::vector<Real>& u) const { return {u.data(), g.ncells}; }
  std::vector<Real> untouched() const { return std::vector<Real>(in.size(), Real(-7)); }
  // f(c) for each interior cell c of the grid.
  template <class F>
  void for_interior(const F& f) const {
    for (int k = 0; k < g.n[2]; ++k)
      for (int j = 0; j < g.n[1]; ++j)
        for (int i = 0; i < g.n[0]; ++i) f(g.index(i + g.ng[0], j + g.ng[1], k + g.ng[2]));
  }
};

// The stage by the split kernels' functions: each face flux into an array per direction, then
// each cell's update.
template <class Real>
std::vector<Real> split_stage(StageCase<Real> c) {
  const hc::IdealGas<Real>& gas = c.gas;
  const hc::Grid& g = c.g;
  std::vector<Real> flux[3], out = c.untouched();
  hc::StateRef<Real, hc::SoA> f[3];
  for (int d = 0; d < 3; ++d) {
    flux[d].assign(c.in.size(), Real(0));
    f[d] = c.ref(flux[d]);
  }
  const auto in = c.ref(c.in);
  for (int k = 0; k < g.n[2] + 1; ++k)
    for (int j = 0; j < g.n[1] + 1; ++j)
      for (int i = 0; i < g.n[0] + 1; ++i) {
        const std::size_t cell = g.index(i + g.ng[0], j + g.ng[1], k + g.ng[2]);
        const bool inside[3] = {j < g.n[1] && k < g.n[2], i < g.n[0] && k < g.n[2], i < g.n[0] && j < g.n[1]};
        if (c.st.active[0] && inside[0]) hc::face_flux<0>(in, f[0], cell, g.stride[0], gas, c.lim, c.solver);
        if (c.st.active[1] && inside[1]) hc::face_flux<1>(in, f[1], cell, g.stride[1], gas, c.lim, c.solver);
        if (c.st.active[2] && inside[2]) hc::face_flux<2>(in, f[2], cell, g.stride[2], gas, c.lim, c.solver);
      }
  c.for_interior([&](std::size_t cell) { hc::update_cell(c.ref(c.u0), in, c.ref(out), f, g.stride, c.st, cell); });
  return out;
}

// What a fused stage gave: the state it wrote, the largest signal rate, and how many phases
// ran with no barrier before them.
template <class Real>
struct FusedResult {
  std::vector<Real> out;
  Real most = 0;
  int unguarded = 0;
};

// The stage by march_tile, each tile's team of Threads run by TeamInTurn (`reversed`: each
// phase's threads from the last), the scratch starting as NaN.
template <class Real, class Tile, int Threads, bool LookaheadLoadsFirst, bool FixedFrames, bool Chunked>
FusedResult<Real> fused_stage(StageCase<Real> c, bool halo_one_cell_each, bool reversed) {
  using Stage = hc::FusedTileStage<Real, hc::SoA, Tile, LookaheadLoadsFirst, FixedFrames, Chunked>;
  const hc::Grid& g = c.g;
  FusedResult<Real> r;
  r.out = c.untouched();
  Stage w{g, c.ref(c.in), c.ref(c.u0), c.ref(r.out), c.st, c.gas, c.lim, c.solver, hc::rate_scale<Real>(g), 0, 0, 0, 0};
  auto scratch = std::make_unique<typename Stage::Scratch>();
  for (int z0 = 0; z0 < g.n[2]; z0 += kChunkZ)
    for (int y = 0; y < g.n[1]; y += Tile::kNy)
      for (int x = 0; x < g.n[0]; x += Tile::kNx) {
        std::memset(static_cast<void*>(scratch.get()), 0xff, sizeof(typename Stage::Scratch));  // NaN
        w.x0 = x + g.ng[0];
        w.y0 = y + g.ng[1];
        w.nx = std::min(Tile::kNx, g.n[0] - x);
        w.ny = std::min(Tile::kNy, g.n[1] - y);
        hc::TeamInTurn<Real, Threads> team([&](int rank) { return w.owns(rank); }, reversed);
        const int k0 = z0 + g.ng[2];
        hc::march_tile(w, *scratch, team, k0, k0 + std::min(kChunkZ, g.n[2] - z0), halo_one_cell_each);
        r.most = std::max(r.most, team.most());
        r.unguarded += team.unguarded;
      }
  return r;
}

// The largest signal rate of the interior cells of `out`, as stage 2 folds it.
template <class Real>
Real largest_rate(const StageCase<Real>& c, std::vector<Real>& out) {
  const auto ref = c.ref(out);
  const hc::RateScale<Real> scale = hc::rate_scale<Real>(c.g);
  Real most = 0;
  c.for_interior([&](std::size_t cell) { most = std::max(most, hc::cell_signal_rate(ref, cell, c.gas, scale)); });
  return most;
}

// Equal bit for bit (a NaN equals only a NaN of the same bits): the first value that is not.
template <class Real>
std::string first_difference(const std::vector<Real>& a, const std::vector<Real>& b) {
  if (a.size() != b.size()) return "sizes differ";
  for (std::size_t i = 0; i < a.size(); ++i)
    if (std::memcmp(&a[i], &b[i], sizeof(Real)) != 0)
      return "value " + std::to_string(i) + ": " + std::to_string(a[i]) + " against " + std::to_string(b[i]);
  return "";
}

// The cases: a 3-D grid that cuts every tile and z chunk unevenly (45 x 19 x 33 cells: whole and
// partial tiles along x and y, a whole chunk of z and one of a single plane), a 2-D one (z
// inactive: its one plane filled whole) and one with y inactive (29 x 1 x 34: a last chunk of
// two planes); stage 1 and stage 2 (whose u1 differs from u0), with MC and HLLC, and minmod and
// Rusanov.
template <class Real>
std::vector<StageCase<Real>> stage_cases() {
  const int sizes[][3] = {{45, 19, 33}, {45, 19, 1}, {29, 1, 34}};
  const double lo[3] = {0, 0, 0}, hi[3] = {1, 1, 1};
  std::vector<StageCase<Real>> cases;
  for (const auto& n : sizes) {
    const hc::Grid g = hc::make_grid(n, lo, hi);
    for (int stage = 1; stage <= 2; ++stage) {
      const bool textbook = stage == 2;
      cases.push_back(StageCase<Real>{g, test_state<Real>(g, stage == 1 ? 0 : 3), test_state<Real>(g, 0),
                                      hc::stage_update(stage, 2e-3, g),
                                      textbook ? hc::Limiter::Minmod : hc::Limiter::MC,
                                      textbook ? hc::RiemannSolver::Rusanov : hc::RiemannSolver::HLLC});
    }
  }
  return cases;
}

// Every case of stage_cases in one team shape, both orders.
template <class Real, class Tile, int Threads, bool LookaheadLoadsFirst, bool FixedFrames, bool Chunked = false>
void expect_split_bits(const std::string& shape, bool halo_one_cell_each) {
  for (StageCase<Real> c : stage_cases<Real>()) {
    std::vector<Real> split = split_stage(c);
    const std::string what = shape + (sizeof(Real) == 8 ? " fp64" : " fp32") + ", stage " + std::to_string(c.st.stage) +
                             ", " + std::to_string(c.g.n[0]) + " x " + std::to_string(c.g.n[1]) + " x " +
                             std::to_string(c.g.n[2]);
    for (const bool reversed : {false, true}) {
      const FusedResult<Real> fused =
          fused_stage<Real, Tile, Threads, LookaheadLoadsFirst, FixedFrames, Chunked>(c, halo_one_cell_each, reversed);
      const std::string order = reversed ? ", threads reversed" : ", threads in order";
      EXPECT_EQ(first_difference(fused.out, split), "") << what << order;
      EXPECT_EQ(fused.unguarded, 0) << what << order;
      if (c.st.stage == 2) EXPECT_EQ(fused.most, largest_rate(c, split)) << what << order;
    }
  }
}

}  // namespace

// The native HIP kernel's shapes (kernels/hip/fused.hpp: FusedShape): on NVIDIA 20 x 8 on 256
// threads in fp64, 27 x 8 with the lookahead read first, the x and y faces apart and the lists
// in 16-byte chunks in fp32, the halo one cell a thread in both; on AMD 28 x 4 on 128. And
// fp64's lists in chunks of two (measured slower; QuadList's other width).
TEST(FusedTeam, HipShapesGiveSplitBitsInEitherOrder) {
  expect_split_bits<double, hc::FusedTile<20, 8>, 256, false, false>("HIP NVIDIA 20 x 8", true);
  expect_split_bits<float, hc::FusedTile<27, 8>, 256, true, true, true>("HIP NVIDIA 27 x 8", true);
  expect_split_bits<double, hc::FusedTile<20, 8>, 256, false, false, true>("20 x 8, chunks of two", true);
  expect_split_bits<double, hc::FusedTile<28, 4>, 128, false, false>("HIP AMD 28 x 4", false);
  expect_split_bits<float, hc::FusedTile<28, 4>, 128, false, false>("HIP AMD 28 x 4", false);
}

// The Kokkos backend's GPU shapes (kernels/kokkos/fused.hpp: kFusedTiles, FusedStage) through
// march_tile (on a GPU Kokkos runs the same phases in march_on_gpu's loops): under
// CUDA 16 x 6 on 128 threads in fp64 and 24 x 8 on 256 with the lookahead read first in fp32;
// 16 x 4 with the lookahead read first (the z states in the scratch); and the host's 28 x 8 in
// the forms the host runs (fp64 reads the lookahead first, fp32 has the faces apart and the
// lists in chunks).
TEST(FusedTeam, KokkosShapesGiveSplitBitsInEitherOrder) {
  expect_split_bits<double, hc::FusedTile<16, 6>, 128, false, false>("Kokkos 16 x 6", false);
  expect_split_bits<float, hc::FusedTile<24, 8>, 256, true, false>("Kokkos 24 x 8", false);
  expect_split_bits<double, hc::FusedTile<16, 4>, 128, true, false>("Kokkos 16 x 4", false);
  expect_split_bits<double, hc::FusedTile<28, 8>, 256, true, false>("Kokkos host 28 x 8", false);
  expect_split_bits<float, hc::FusedTile<28, 8>, 256, false, true, true>("Kokkos host 28 x 8", false);
}

// TeamInTurn counts a phase that runs with no barrier since the last (march_tile has none), and
// runs each phase's threads in the order asked.
TEST(FusedTeam, TeamInTurnCountsPhasesWithoutABarrier) {
  hc::TeamInTurn<double, 4> team([](int rank) { return rank < 3; }, true);
  std::vector<int> ranks;
  team.each([&](hc::TeamThread<double>& t, int here) {
    ranks.push_back(t.rank);
    EXPECT_EQ(here, t.rank);
    EXPECT_EQ(t.mine, t.rank < 3);
  });
  EXPECT_EQ(ranks, (std::vector<int>{3, 2, 1, 0}));
  EXPECT_EQ(team.unguarded, 0);
  team.each([](hc::TeamThread<double>&, int) {});
  EXPECT_EQ(team.unguarded, 1);
  team.barrier();
  team.each([](hc::TeamThread<double>& t, int) { t.most = t.rank == 2 ? 5.0 : 1.0; });
  EXPECT_EQ(team.unguarded, 1);
  EXPECT_EQ(team.most(), 5.0);
}
