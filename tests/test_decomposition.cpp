// Domain decomposition groundwork (issue 4): uneven splits, and initial states that do not
// depend on how the domain is cut (every subdomain computes its cells from global indices).
#include <gtest/gtest.h>

#include <stdexcept>
#include <vector>

#include "app/comm.hpp"
#include "app/problems.hpp"
#include "tests/test_support.hpp"

namespace hc = halocline;

TEST(Decomposition, SplitAxisCoversEveryCellOnce) {
  for (int n : {1, 7, 64, 101})
    for (int parts = 1; parts <= std::min(n, 9); ++parts) {
      int next = 0, smallest = n, largest = 0;
      for (int p = 0; p < parts; ++p) {
        int count, offset;
        hc::split_axis(n, parts, p, count, offset);
        EXPECT_EQ(offset, next) << n << " / " << parts;
        next += count;
        smallest = std::min(smallest, count);
        largest = std::max(largest, count);
      }
      EXPECT_EQ(next, n);
      EXPECT_LE(largest - smallest, 1);  // as even as it can be
    }
}

// For every deck: the initial states of the subdomains of a 3 x 2 x 2 cut (uneven where the
// sizes do not divide) are, cell for cell and bit for bit, the global initial state.
TEST(Decomposition, SubdomainInitialStatesTileTheGlobalOne) {
  for (const std::string& deck : hc::test::input_decks()) {
    const hc::Config c = hc::test::short_run(deck);
    const hc::Grid global = hc::grid_of(c);
    const std::vector<double> whole = hc::initial_state(c, global);
    int dims[3];
    for (int d = 0; d < 3; ++d) dims[d] = std::min(c.n[d], d == 0 ? 3 : 2);
    std::size_t covered = 0;
    for (int pz = 0; pz < dims[2]; ++pz)
      for (int py = 0; py < dims[1]; ++py)
        for (int px = 0; px < dims[0]; ++px) {
          const int coords[3] = {px, py, pz};
          const hc::Grid sub = hc::grid_of(c, dims, coords);
          const std::vector<double> part = hc::initial_state(c, sub);
          std::size_t cell = 0;
          for (int k = 0; k < sub.n[2]; ++k)
            for (int j = 0; j < sub.n[1]; ++j)
              for (int i = 0; i < sub.n[0]; ++i, ++cell) {
                const std::size_t g =
                    (sub.offset[0] + i) +
                    static_cast<std::size_t>(c.n[0]) *
                        ((sub.offset[1] + j) + static_cast<std::size_t>(c.n[1]) * (sub.offset[2] + k));
                for (int v = 0; v < 5; ++v)
                  ASSERT_EQ(part[v * sub.ninterior + cell], whole[v * global.ninterior + g])
                      << deck << " subdomain " << px << py << pz << " var " << v;
              }
          covered += sub.ninterior;
        }
    EXPECT_EQ(covered, global.ninterior) << deck;
  }
}

// Comm::funnel on one rank: every block reaches `take` in order; when `take` throws, the
// producer still runs to its end (on several ranks rank 0 then still receives every block,
// so that none waits for ever) and the first exception comes out afterwards; an exception of
// the producer comes out too.
TEST(DecompositionFunnel, EveryBlockReachesRankZeroAndFailuresComeOutAfterwards) {
  const hc::Comm comm({4, 4, 4}, {0, 0, 0}, {false, false, false});
  ASSERT_EQ(comm.size(), 1);
  const std::vector<double> values(hc::kNumVars * 16, 1.0);
  int made = 0, taken = 0;
  auto produce = [&](const hc::Comm::BlockSink& give) {
    for (int z = 0; z < 4; ++z, ++made) give(hc::CellBlock{{0, 0, z}, {4, 4, 1}}, values.data());
  };
  comm.funnel(produce, [&](const hc::CellBlock& b, const double*) { EXPECT_EQ(b.offset[2], taken++); });
  EXPECT_EQ(taken, 4);
  made = taken = 0;
  EXPECT_THROW(comm.funnel(produce,
                           [&](const hc::CellBlock&, const double*) {
                             if (++taken == 2) throw std::runtime_error("a full disk");
                           }),
               std::runtime_error);
  EXPECT_EQ(made, 4);
  EXPECT_EQ(taken, 2);  // the file is lost: the blocks after the failure are dropped
  EXPECT_THROW(comm.funnel([](const hc::Comm::BlockSink&) { throw std::runtime_error("no device memory"); },
                           [](const hc::CellBlock&, const double*) {}),
               std::runtime_error);
}
