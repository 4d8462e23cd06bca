// Properties of the whole solver that must hold for every deck: the three layouts give
// bitwise-identical results, periodic and walled problems conserve, fp32 stays close to
// fp64.
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <iterator>
#include <set>
#include <utility>
#include <vector>

#include "app/driver.hpp"
#include "app/problems.hpp"
#include "app/select.hpp"
#include "app/verify.hpp"
#include "io/deck.hpp"
#include "kernels/fused_tile.hpp"
#include "tests/test_support.hpp"

namespace hc = halocline;
namespace fs = std::filesystem;

using halocline::test::input_decks;
using halocline::test::short_run;

TEST(Solver, EveryDeckGivesTheSameChecksumInEveryLayout) {
  const auto decks = input_decks();
  ASSERT_GE(decks.size(), 5u);
  for (const std::string& deck : decks) {
    for (hc::Precision prec : {hc::Precision::FP64, hc::Precision::FP32}) {
      std::string reference;
      for (hc::LayoutKind layout : {hc::LayoutKind::AoS, hc::LayoutKind::SoA, hc::LayoutKind::AoSoA}) {
        hc::Config c = short_run(deck);
        c.layout = layout;
        c.precision = prec;
        const hc::RunResult r = hc::run_quietly(c);
        EXPECT_EQ(r.steps, 4) << deck;
        if (reference.empty()) reference = r.checksum;
        EXPECT_EQ(r.checksum, reference) << deck << " layout " << hc::layout_name(layout) << " precision "
                                         << hc::precision_name(prec);
      }
    }
  }
}

TEST(Solver, ChecksumChangesWhenTheStateChanges) {
  // The checksum must see any change of any value, or the layout test above proves little:
  // every single-bit flip of every value of a small state, and swaps of two values.
  std::vector<double> s(5 * 27);
  for (std::size_t i = 0; i < s.size(); ++i) s[i] = 1.0 + 0.01 * static_cast<double>(i % 7);
  const std::string base = hc::state_checksum(s);
  std::set<std::string> seen{base};
  for (std::size_t i = 0; i < s.size(); ++i)
    for (int bit = 0; bit < 64; ++bit) {
      std::vector<double> t = s;
      std::uint64_t bits;
      std::memcpy(&bits, &t[i], sizeof bits);
      bits ^= std::uint64_t(1) << bit;
      std::memcpy(&t[i], &bits, sizeof bits);
      seen.insert(hc::state_checksum(t));
    }
  EXPECT_EQ(seen.size(), 1 + s.size() * 64);  // each flip changes it, and to its own value
  // Two different values swapped: between cells, between variables of one cell.
  for (const auto& [a, b] : std::vector<std::pair<std::size_t, std::size_t>>{{0, 1}, {3, 3 + 27}, {5, 130}}) {
    ASSERT_NE(s[a], s[b]);
    std::vector<double> t = s;
    std::swap(t[a], t[b]);
    EXPECT_NE(hc::state_checksum(t), base) << a << " " << b;
  }
}

// Periodic problems: mass, momentum and energy to 1e-12 relative after 100 steps (fp64).
TEST(Solver, PeriodicProblemsConserve) {
  const std::vector<std::pair<std::string, std::vector<std::string>>> cases = {
      {"vortex.toml", {"grid.nx=48", "grid.ny=48"}},
      {"kh.toml", {"grid.nx=48", "grid.ny=48"}},
      {"bench.toml", {"grid.n=16"}},
  };
  for (const auto& [deck, sets] : cases) {
    hc::Config c = hc::load_deck(std::string(HALOCLINE_SOURCE_DIR) + "/inputs/" + deck, sets);
    c.max_steps = 100;
    c.t_end = 1e9;
    const hc::RunResult r = hc::run_quietly(c);
    ASSERT_EQ(r.steps, 100) << deck;
    const double drift = hc::max_relative_drift(r.initial, r.final);
    EXPECT_LE(drift, 1e-12) << deck;
    EXPECT_GT(r.initial.sum[0], 0.0);
  }
}

// Totals with a NaN (a broken state) have no drift: NaN, not the 0 that std::max kept.
TEST(Solver, DriftOfNanTotalsIsNan) {
  hc::Totals a, b;
  a.sum = a.abs_sum = {1, 0, 0, 0, 2};
  b = a;
  EXPECT_EQ(hc::max_relative_drift(a, b), 0.0);
  b.sum[4] = 2.5;
  EXPECT_DOUBLE_EQ(hc::max_relative_drift(a, b), 0.25);
  b.sum[0] = std::nan("");
  EXPECT_TRUE(std::isnan(hc::max_relative_drift(a, b)));
}

// Reflecting walls on every face: mass and energy stay (momentum does not: the walls push).
TEST(Solver, ClosedBoxConservesMassAndEnergy) {
  hc::Config c = hc::sedov_config(16);
  c.boundary = {{{hc::Boundary::Reflecting, hc::Boundary::Reflecting},
                 {hc::Boundary::Reflecting, hc::Boundary::Reflecting},
                 {hc::Boundary::Reflecting, hc::Boundary::Reflecting}}};
  c.max_steps = 60;
  const hc::RunResult r = hc::run_quietly(c);
  EXPECT_NEAR(r.final.sum[0], r.initial.sum[0], 1e-12 * r.initial.abs_sum[0]);
  EXPECT_NEAR(r.final.sum[4], r.initial.sum[4], 1e-12 * r.initial.abs_sum[4]);
}

// fp32 against fp64 on Sod: the documented tolerance (docs/verification.md) is an L1
// density difference below 1e-4 and a max difference below 1e-3.
TEST(Solver, Fp32StaysWithinToleranceOfFp64) {
  hc::Config c = hc::sod_config(128);
  const hc::RunResult r64 = hc::run_quietly(c);
  c.precision = hc::Precision::FP32;
  const hc::RunResult r32 = hc::run_quietly(c);
  double l1 = 0, worst = 0;
  for (int i = 0; i < 128; ++i) {
    const double d = std::fabs(r64.final_state[i] - r32.final_state[i]);
    l1 += d / 128;
    worst = std::max(worst, d);
  }
  EXPECT_LT(l1, 1e-4);
  EXPECT_LT(worst, 1e-3);
  EXPECT_GT(l1, 0.0);  // it really ran in single precision
}

// Snapshots land exactly on the output times, and the run on t_end, with none repeated.
TEST(Solver, SnapshotsLandOnOutputTimes) {
  const hc::test::TempDir tmp("snap");
  const fs::path& dir = tmp.path();
  hc::Config c = hc::sod_config(64);
  c.output_interval = 0.05;
  c.out_dir = dir.string();
  const hc::RunResult r = hc::run_simulation(c);
  ASSERT_EQ(r.snapshots.size(), 5u);  // t = 0, 0.05, 0.1, 0.15, 0.2
  EXPECT_EQ(r.sim_time, 0.2);
  std::ifstream series(dir / "snapshot.xmf");
  const std::string text((std::istreambuf_iterator<char>(series)), std::istreambuf_iterator<char>());
  for (const char* time : {"\"0\"", "\"0.05\"", "\"0.1\"", "\"0.15\"", "\"0.2\""})
    EXPECT_NE(text.find(std::string("Time Value=") + time), std::string::npos) << time;
}

// A snapshot holds the state at its own time: the t = 0.1 snapshot of a run to 0.2 equals
// the final state of the same run stopped at 0.1 (same steps: the same output interval).
TEST(Solver, SnapshotHoldsTheStateAtItsTime) {
  const hc::test::TempDir tmp("snapstate");
  const fs::path& dir = tmp.path();
  hc::Config c = hc::sod_config(64);
  c.output_interval = 0.1;
  c.out_dir = dir.string();
  const hc::RunResult full = hc::run_simulation(c);
  ASSERT_EQ(full.snapshots.size(), 3u);
  c.t_end = 0.1;
  c.output_final = false;
  const hc::RunResult half = hc::run_quietly(c);
  const std::vector<double> rho = hc::test::read_dataset(dir / "snapshot_0001.h5", "rho");
  const std::vector<double> expected(half.final_state.begin(), half.final_state.begin() + 64);
  EXPECT_EQ(rho, expected);
}

// The Kokkos backend's thread-block tiles (--kokkos-tile) change how the cells are walked,
// never a bit of the answer: auto, Kokkos' own, one flat range, the native 64 x 4 x 1, and an
// odd shape that does not divide the grid, in every layout.
TEST(SolverKokkos, TilesChangeNoBit) {
  if (!hc::backend_unavailable(hc::BackendKind::Kokkos).empty()) GTEST_SKIP() << "no kokkos backend";
  for (hc::LayoutKind layout : {hc::LayoutKind::AoS, hc::LayoutKind::SoA, hc::LayoutKind::AoSoA}) {
    hc::Config c = hc::load_deck(std::string(HALOCLINE_SOURCE_DIR) + "/inputs/kh.toml", {"grid.n=24"});
    c.backend = hc::BackendKind::Kokkos;
    c.layout = layout;
    c.max_steps = 6;
    c.kokkos_tile = hc::parse_kokkos_tile("auto", "--kokkos-tile");
    const std::string expected = hc::run_quietly(c).checksum;
    for (const char* tile : {"kokkos", "flat", "64x4x1", "7x3x2"}) {
      c.kokkos_tile = hc::parse_kokkos_tile(tile, "--kokkos-tile");
      EXPECT_EQ(hc::run_quietly(c).checksum, expected) << tile << " " << hc::layout_name(layout);
    }
  }
  for (const char* bad : {"0x4x1", "64x4", "64x4x1x1", "64*4*1", "64x32x1", "auto2"})
    EXPECT_THROW(hc::parse_kokkos_tile(bad, "--kokkos-tile"), hc::DeckError) << bad;
}

namespace {

// A test body run on each backend built in (Cabana's pattern): GetParam() is the backend;
// one that cannot run here is skipped, saying why.
class SolverOnEachBackend : public ::testing::TestWithParam<hc::BackendKind> {
 protected:
  void SetUp() override {
    const std::string why = hc::backend_unavailable(GetParam());
    if (!why.empty()) GTEST_SKIP() << why;
  }
};

// The short runs of every deck, and one whose grid crosses the fused kernels' tiles and z
// chunks unevenly (40 x 19 x 70 cells: a whole and a partial tile along x, 3 chunks of z).
std::vector<hc::Config> fused_cases() {
  std::vector<hc::Config> cases;
  for (const std::string& deck : input_decks()) cases.push_back(short_run(deck));
  hc::Config uneven = hc::load_deck(std::string(HALOCLINE_SOURCE_DIR) + "/inputs/bench.toml",
                                    {"grid.nx=40", "grid.ny=19", "grid.nz=70"});
  uneven.max_steps = 3;
  cases.push_back(uneven);
  return cases;
}

}  // namespace

// The fused stage kernels give the split kernels' checksum bit for bit, on every deck,
// layout and precision, and with the halo strategies that cut a stage into an interior and a
// shell of boxes (one rank: its periodic faces are exchanged with itself).
TEST_P(SolverOnEachBackend, FusedMatchesSplit) {
  for (hc::Config c : fused_cases())
    for (hc::Precision prec : {hc::Precision::FP64, hc::Precision::FP32})
      for (hc::LayoutKind l : {hc::LayoutKind::AoS, hc::LayoutKind::SoA, hc::LayoutKind::AoSoA})
        for (hc::HaloStrategy halo : {hc::HaloStrategy::None, hc::HaloStrategy::Sync, hc::HaloStrategy::Overlap}) {
          c.backend = GetParam();
          c.precision = prec;
          c.layout = l;
          c.halo = halo;
          c.kernels = hc::KernelStrategy::Split;
          const hc::RunResult split = hc::run_quietly(c);
          c.kernels = hc::KernelStrategy::Fused;
          const hc::RunResult fused = hc::run_quietly(c);
          const std::string what =
              c.deck_path + " " + hc::layout_name(l) + " " + hc::precision_name(prec) + " halo " + hc::halo_name(halo);
          ASSERT_EQ(split.kernels, hc::KernelStrategy::Split) << what;
          ASSERT_EQ(fused.kernels, hc::KernelStrategy::Fused) << what;
          EXPECT_GT(split.steps, 0) << what;
          EXPECT_EQ(fused.checksum, split.checksum) << what;
          // No flux arrays: the fused run holds 3 state arrays where the split one holds 3 + nd.
          EXPECT_LT(fused.device_bytes, split.device_bytes) << what;
        }
}

// The checksum a backend computes where the state lives (Backend::checksum_part) is the
// host's definition (kernels/checksum.hpp) of the state it hands back, in every deck, layout
// and precision, with both kernel strategies.
TEST_P(SolverOnEachBackend, ChecksumMatchesTheHostDefinition) {
  for (hc::Config c : fused_cases())
    for (hc::Precision prec : {hc::Precision::FP64, hc::Precision::FP32})
      for (hc::LayoutKind l : {hc::LayoutKind::AoS, hc::LayoutKind::SoA, hc::LayoutKind::AoSoA})
        for (hc::KernelStrategy k : {hc::KernelStrategy::Split, hc::KernelStrategy::Fused}) {
          c.backend = GetParam();
          c.precision = prec;
          c.layout = l;
          c.kernels = k;
          const hc::RunResult r = hc::run_quietly(c);
          ASSERT_FALSE(r.final_state.empty());
          const std::string what = c.deck_path + " " + hc::layout_name(l) + " " + hc::precision_name(prec);
          EXPECT_EQ(r.checksum, hc::state_checksum(r.final_state)) << what;
          // The totals too (kernels/totals.hpp), bit for bit.
          const hc::Totals host = hc::conserved_totals(r.final_state, r.grid);
          for (int v = 0; v < 5; ++v) {
            EXPECT_EQ(r.final.sum[v], host.sum[v]) << what << " variable " << v;
            EXPECT_EQ(r.final.abs_sum[v], host.abs_sum[v]) << what << " variable " << v;
          }
        }
}

// The initial state a backend makes where the state lives (Backend::make_initial_state) is
// the host's (app/problems.cpp) bit for bit: for every problem, in every layout and
// precision (tests/mpi/ranks_agree.sh covers subdomains). A run that ends at t = 0 hands the
// initial state back.
TEST_P(SolverOnEachBackend, InitialStateMatchesTheHost) {
  const std::vector<std::pair<std::string, std::vector<std::string>>> decks = {
      {"sod.toml", {"grid.nx=40"}},
      {"sod.toml", {"grid.nx=1", "grid.ny=40", "riemann.direction=y", "riemann.preset=toro1"}},
      {"sod.toml", {"grid.nx=6", "grid.ny=5", "grid.nz=30", "riemann.direction=z", "riemann.preset=toro3"}},
      {"sedov.toml", {"grid.n=14"}},
      {"bench.toml", {"grid.n=12"}},
      {"vortex.toml", {"grid.nx=24", "grid.ny=20"}},
      {"kh.toml", {"grid.nx=16", "grid.ny=32"}},
  };
  for (const auto& [deck, sets] : decks)
    for (hc::Precision prec : {hc::Precision::FP64, hc::Precision::FP32})
      for (hc::LayoutKind l : {hc::LayoutKind::AoS, hc::LayoutKind::SoA, hc::LayoutKind::AoSoA}) {
        hc::Config c = hc::load_deck(std::string(HALOCLINE_SOURCE_DIR) + "/inputs/" + deck, sets);
        c.backend = GetParam();
        c.precision = prec;
        c.layout = l;
        c.t_end = 0;
        const hc::RunResult r = hc::run_quietly(c);
        std::vector<double> host = hc::initial_state(c, hc::grid_of(c));
        if (prec == hc::Precision::FP32)
          for (double& x : host) x = static_cast<float>(x);
        EXPECT_EQ(r.final_state, host) << deck << " " << hc::layout_name(l) << " " << hc::precision_name(prec);
        EXPECT_EQ(r.initial.sum, r.final.sum) << deck;
      }
}

INSTANTIATE_TEST_SUITE_P(EachBackend, SolverOnEachBackend,
                         ::testing::Values(hc::BackendKind::Kokkos, hc::BackendKind::Hip),
                         [](const ::testing::TestParamInfo<hc::BackendKind>& info) {
                           return std::string(hc::backend_name(info.param));
                         });

// Who fills a plane's halo in the fused stage (kernels/fused_tile.hpp): the threads with no
// column, two cells each at most; or, asked for (one_cell_each) where those are too few for
// that, one cell a thread, so that no thread with a column makes two. Each cell once: the items
// of every thread, counted over the team, are the halo's cells.
TEST(Solver, FusedHaloGoesToThreadsWithoutAColumnFirst) {
  using Wide = hc::FusedTile<27, 8>;    // HIP fp32: 216 columns, 140 halo cells
  using Narrow = hc::FusedTile<20, 8>;  // HIP fp64: 160 columns, 112 halo cells
  EXPECT_EQ(Wide::halo_threads(256), 70);
  EXPECT_EQ(Wide::halo_threads(256, true), 140);
  EXPECT_EQ(Narrow::halo_threads(256), 96);
  EXPECT_EQ(Narrow::halo_threads(256, true), 96);
  EXPECT_EQ(Wide::halo_threads(1, true), 1);  // a team of one thread makes them all
  for (const bool one_cell_each : {false, true}) {
    const int spread = Wide::halo_threads(256, one_cell_each);
    std::vector<int> made(Wide::kHaloCells, 0);
    int most = 0, columns_making_two = 0;
    for (int rank = 0; rank < 256; ++rank) {
      int mine = 0;
      hc::for_last_items(rank, 256, spread, Wide::kHaloCells, [&](int i) {
        ++made[i];
        ++mine;
      });
      most = std::max(most, mine);
      if (rank < Wide::kColumns && mine > 1) ++columns_making_two;
    }
    for (int i = 0; i < Wide::kHaloCells; ++i) EXPECT_EQ(made[i], 1) << i;
    EXPECT_EQ(most, one_cell_each ? 1 : 2);
    EXPECT_EQ(columns_making_two, one_cell_each ? 0 : 30);
  }
}
