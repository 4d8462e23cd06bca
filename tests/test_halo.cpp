// Halo pack/unpack (kernels/halo.hpp) for every layout: with one rank and periodic
// boundaries, exchanging x, then y, then z with itself must fill every ghost cell (faces,
// edges and corners) with the periodic image of the interior: what the ghost fill does.
// Then the halo strategies through the whole solver, and the overlap strategy's regions.
#include <gtest/gtest.h>

#include <array>
#include <cstdint>
#include <string>
#include <vector>

#include "app/driver.hpp"
#include "app/verify.hpp"
#include "io/deck.hpp"
#include "kernels/boundary.hpp"
#include "kernels/halo.hpp"
#include "layouts/layouts.hpp"

namespace hc = halocline;

namespace {

// A distinct value for every (variable, global interior cell): tells any two apart.
double tag(int var, int i, int j, int k) { return var * 1e6 + i * 1e4 + j * 1e2 + k + 0.5; }

template <class L>
void self_exchange(const hc::Grid& g, const hc::StateRef<double, L>& u, int d) {
  int a, b;
  hc::other_directions(d, a, b);
  std::vector<double> low(hc::halo_message_size(g, d)), high(hc::halo_message_size(g, d));
  for (int var = 0; var < hc::kNumVars; ++var)
    for (int layer = 0; layer < g.ng[d]; ++layer)
      for (int ib = 0; ib < g.np[b]; ++ib)
        for (int ia = 0; ia < g.np[a]; ++ia) {
          hc::pack_halo_value(g, u, d, 0, var, layer, ia, ib, low.data());
          hc::pack_halo_value(g, u, d, 1, var, layer, ia, ib, high.data());
        }
  // One rank, periodic: my high face's message fills my low ghosts, and the other way.
  for (int var = 0; var < hc::kNumVars; ++var)
    for (int layer = 0; layer < g.ng[d]; ++layer)
      for (int ib = 0; ib < g.np[b]; ++ib)
        for (int ia = 0; ia < g.np[a]; ++ia) {
          hc::unpack_halo_value(g, u, d, 0, var, layer, ia, ib, high.data());
          hc::unpack_halo_value(g, u, d, 1, var, layer, ia, ib, low.data());
        }
}

template <class L>
void check_layout() {
  const int n[3] = {5, 4, 3};  // uneven, all active
  const double lo[3] = {0, 0, 0}, hi[3] = {1, 1, 1};
  const hc::Grid g = hc::make_grid(n, lo, hi);
  std::vector<double> storage(L::storage_size(g.ncells), -1.0);
  const hc::StateRef<double, L> u{storage.data(), g.ncells};
  for (int k = 0; k < n[2]; ++k)
    for (int j = 0; j < n[1]; ++j)
      for (int i = 0; i < n[0]; ++i)
        for (int v = 0; v < hc::kNumVars; ++v) u(v, g.index(i + 2, j + 2, k + 2)) = tag(v, i, j, k);
  for (int d = 0; d < 3; ++d) self_exchange(g, u, d);

  // Every padded cell now holds the periodic image of an interior cell; count the ghost
  // cells by how many directions they lie outside the interior (1: face, 2: edge, 3: corner).
  int checked[4] = {0, 0, 0, 0};
  for (int k = 0; k < g.np[2]; ++k)
    for (int j = 0; j < g.np[1]; ++j)
      for (int i = 0; i < g.np[0]; ++i) {
        const int c[3] = {i, j, k};
        int image[3], outside = 0;
        for (int d = 0; d < 3; ++d) {
          image[d] = ((c[d] - 2) % n[d] + n[d]) % n[d];
          outside += c[d] < 2 || c[d] >= n[d] + 2;
        }
        for (int v = 0; v < hc::kNumVars; ++v)
          ASSERT_EQ(u(v, g.index(i, j, k)), tag(v, image[0], image[1], image[2]))
              << L::name << " cell " << i << "," << j << "," << k << " var " << v;
        ++checked[outside];
      }
  // 5x4x3 interior in a 9x8x7 box: 6 face slabs, 12 edge bars, 8 corner blocks of ghosts.
  EXPECT_EQ(checked[0], 5 * 4 * 3);
  EXPECT_EQ(checked[1], 2 * 2 * (4 * 3 + 5 * 3 + 5 * 4));
  EXPECT_EQ(checked[2], 4 * 4 * (5 + 4 + 3));
  EXPECT_EQ(checked[3], 8 * 8);
}

}  // namespace

TEST(Halo, SelfExchangeFillsFacesEdgesAndCornersAoS) { check_layout<hc::AoS>(); }
TEST(Halo, SelfExchangeFillsFacesEdgesAndCornersSoA) { check_layout<hc::SoA>(); }
TEST(Halo, SelfExchangeFillsFacesEdgesAndCornersAoSoA) { check_layout<hc::AoSoA>(); }

// The message is layout-independent: the same state in two layouts packs the same bytes.
TEST(Halo, MessagesDoNotDependOnTheLayout) {
  const int n[3] = {6, 5, 4};
  const double lo[3] = {0, 0, 0}, hi[3] = {1, 1, 1};
  const hc::Grid g = hc::make_grid(n, lo, hi);
  std::vector<double> aos(hc::AoS::storage_size(g.ncells)), soa(hc::SoA::storage_size(g.ncells));
  const hc::StateRef<double, hc::AoS> ua{aos.data(), g.ncells};
  const hc::StateRef<double, hc::SoA> us{soa.data(), g.ncells};
  for (std::size_t c = 0; c < g.ncells; ++c)
    for (int v = 0; v < hc::kNumVars; ++v) ua(v, c) = us(v, c) = v * 1000.0 + static_cast<double>(c);
  for (int d = 0; d < 3; ++d)
    for (int side = 0; side < 2; ++side) {
      int a, b;
      hc::other_directions(d, a, b);
      std::vector<double> ma(hc::halo_message_size(g, d), -1), ms(hc::halo_message_size(g, d), -2);
      for (int v = 0; v < hc::kNumVars; ++v)
        for (int layer = 0; layer < 2; ++layer)
          for (int ib = 0; ib < g.np[b]; ++ib)
            for (int ia = 0; ia < g.np[a]; ++ia) {
              hc::pack_halo_value(g, ua, d, side, v, layer, ia, ib, ma.data());
              hc::pack_halo_value(g, us, d, side, v, layer, ia, ib, ms.data());
            }
      EXPECT_EQ(ma, ms) << "direction " << d << " side " << side;
      EXPECT_EQ(ma.size(), 5u * 2u * g.np[a] * g.np[b]);
    }
}

// ---- The halo strategies through the whole solver, on this binary's default backend
// (Kokkos on the CPU; HIP on the GPU machine, where tools/gpu/check.sh runs the suite).

namespace {

// One rank, periodic in x, y and z: the staged self-exchange of sync and overlap (with
// pinned or pageable staging) fills the ghosts the ghost-fill kernel fills with none, so
// every strategy gives the same state, bit for bit, in every layout.
TEST(HaloStrategies, AgreeWithInPlaceGhostsOnOneRank) {
  const hc::Config base = hc::load_deck(std::string(HALOCLINE_SOURCE_DIR) + "/inputs/bench.toml",
                                        {"grid.nx=13", "grid.ny=10", "grid.nz=7"});
  for (hc::LayoutKind layout : {hc::LayoutKind::AoS, hc::LayoutKind::SoA, hc::LayoutKind::AoSoA}) {
    hc::Config c = base;
    c.layout = layout;
    c.max_steps = 5;
    c.halo = hc::HaloStrategy::None;
    const hc::RunResult none = hc::run_quietly(c);
    EXPECT_EQ(none.halo, hc::HaloStrategy::None);
    for (hc::HaloStrategy h : {hc::HaloStrategy::Sync, hc::HaloStrategy::Overlap})
      for (hc::HostMemory mem : {hc::HostMemory::Pinned, hc::HostMemory::Pageable}) {
        c.halo = h;
        c.memory.host_memory = mem;
        const hc::RunResult r = hc::run_quietly(c);
        EXPECT_EQ(r.halo, h);
        EXPECT_EQ(r.checksum, none.checksum)
            << hc::layout_name(layout) << " " << hc::halo_name(h) << " " << hc::host_memory_name(mem);
        // Every stage packs, stages and unpacks both faces of all three directions, in each
        // step asked of the backend (on a GPU one more than were made: the one asked past
        // the stop before the host knew of it).
        const long asked = r.steps_submitted;
        EXPECT_GE(asked, r.steps);
        EXPECT_LE(asked, r.steps + 1);
        bool timed[5] = {};
        const char* phases[5] = {"stage1.pack", "stage1.d2h", "stage1.mpi", "stage2.h2d", "stage2.unpack"};
        for (const hc::PhaseStats& p : r.timers)
          for (int i = 0; i < 5; ++i)
            if (p.name == phases[i]) timed[i] = p.calls == 3 * r.timed_steps;
        for (int i = 0; i < 5; ++i) EXPECT_TRUE(timed[i]) << phases[i] << " timed once per direction and step";
        if (r.device.kind != "gpu") continue;
        // On a GPU each message crosses the bus once each way: per stage, 3 directions x 2
        // faces, of 5 variables x 2 layers x the padded face; 2 stages per step, and one
        // stage's worth before the loop (the untimed warm-up exchange).
        const std::size_t face_cells = 2u * (14 * 11 + 17 * 11 + 17 * 14) * 2;  // padded 17x14x11
        const std::size_t stages = 2 * asked + 1;
        const std::size_t bytes = face_cells * 5 * sizeof(double) * stages;
        const hc::HostKind kind = mem == hc::HostMemory::Pinned ? hc::HostKind::Pinned : hc::HostKind::Pageable;
        EXPECT_EQ(r.transfers.get(hc::Direction::DeviceToHost, kind, hc::Purpose::Halo).bytes, bytes);
        EXPECT_EQ(r.transfers.get(hc::Direction::HostToDevice, kind, hc::Purpose::Halo).bytes, bytes);
        EXPECT_EQ(r.transfers.get(hc::Direction::HostToDevice, kind, hc::Purpose::Halo).calls,
                  6 * static_cast<long>(stages));
      }
  }
}

// Overlap splits the interior into the cells that read no ghost and a shell of six slabs:
// together they cover every interior cell once, also when a subdomain is thinner than
// two ghost widths.
TEST(HaloStrategies, OverlapRegionsTileTheInterior) {
  const double lo[3] = {0, 0, 0}, hi[3] = {1, 1, 1};
  for (const auto& n : std::vector<std::array<int, 3>>{{9, 7, 5}, {3, 8, 1}, {1, 1, 6}, {4, 4, 4}, {2, 5, 3}}) {
    const hc::Grid g = hc::make_grid(n.data(), lo, hi);
    hc::CellBox inner, shell[6];
    hc::split_for_overlap(g, inner, shell);
    std::vector<int> covered(g.ncells, 0);
    auto mark = [&](const hc::CellBox& b) {
      for (int k = b.lo[2]; k < b.hi[2]; ++k)
        for (int j = b.lo[1]; j < b.hi[1]; ++j)
          for (int i = b.lo[0]; i < b.hi[0]; ++i) ++covered[g.index(i, j, k)];
    };
    if (!inner.empty()) mark(inner);
    for (const hc::CellBox& s : shell)
      if (!s.empty()) mark(s);
    const hc::CellBox all = hc::interior_cells(g);
    long interior = 0;
    for (int k = 0; k < g.np[2]; ++k)
      for (int j = 0; j < g.np[1]; ++j)
        for (int i = 0; i < g.np[0]; ++i) {
          const bool in =
              i >= all.lo[0] && i < all.hi[0] && j >= all.lo[1] && j < all.hi[1] && k >= all.lo[2] && k < all.hi[2];
          EXPECT_EQ(covered[g.index(i, j, k)], in ? 1 : 0) << n[0] << "x" << n[1] << "x" << n[2];
          interior += in;
        }
    EXPECT_EQ(interior, static_cast<long>(g.ninterior));
    // The inner cells are ng away from every edge of an active direction.
    for (int d = 0; d < 3; ++d)
      if (!inner.empty() && g.active(d)) {
        EXPECT_GE(inner.lo[d], 2 * g.ng[d]);
        EXPECT_LE(inner.hi[d], g.n[d]);
      }
  }
}

}  // namespace
