// The memory plan's refusal names the largest grid that fits (app/resources.hpp).
#include <gtest/gtest.h>

#include <array>
#include <string>

#include "app/resources.hpp"
#include "app/select.hpp"
#include "io/deck.hpp"
#include "kernels/contract/errors.hpp"

namespace hc = halocline;

namespace {

hc::Config bench(const std::string& sizes) {
  return hc::load_deck(std::string(HALOCLINE_SOURCE_DIR) + "/inputs/bench.toml", {sizes});
}

unsigned __int128 host_bytes(const hc::Config& c) { return hc::plan_memory(c, {1, 1, 1}, true).host_bytes(); }

}  // namespace

// With room for a 150^3 grid and a little more, the largest cube that fits is one whose plan
// fits while the next size up does not; a box keeps its proportions.
// On the HIP backend `--kernels auto` takes fused from 128^3 cells (app/select.cpp), whose plan
// has no flux arrays: the plan drops there, and the search still finds the largest grid, also
// where a grid just under the switch does not fit and the ones above it do.
TEST(Resources, LargestFittingGridFitsAndOneMoreDoesNot) {
  for (const hc::BackendKind backend : {hc::BackendKind::Kokkos, hc::BackendKind::Hip}) {
    SCOPED_TRACE(hc::backend_name(backend));
    auto on = [&](const std::string& sizes) {
      hc::Config c = bench(sizes);
      c.backend = backend;
      return c;
    };
    const auto side = [&](int n) { return host_bytes(on("grid.n=" + std::to_string(n))); };
    // HIP: 127^3 is split, 128^3 fused; the last budget fits no fused grid.
    for (const auto available :
         {static_cast<std::uint64_t>(side(150) + 12345), static_cast<std::uint64_t>(side(127) - 1),
          static_cast<std::uint64_t>(side(128) - 1)}) {
      const std::array<int, 3> n =
          hc::largest_fitting_grid(on("grid.n=400"), {1, 1, 1}, true, 1, true, {available, available});
      EXPECT_EQ(n[0], n[1]);
      EXPECT_EQ(n[1], n[2]);
      EXPECT_LE(side(n[0]), available);
      for (int m = n[0] + 1; m <= 400; m += (m < 200 ? 1 : 50)) EXPECT_GT(side(m), available) << m;
    }
    const std::uint64_t roomy = static_cast<std::uint64_t>(side(150) + 12345);
    EXPECT_GE(hc::largest_fitting_grid(on("grid.n=400"), {1, 1, 1}, true, 1, true, {roomy, 0})[0], 150);

    const auto available = static_cast<std::uint64_t>(side(150) + 12345);
    const std::array<int, 3> m = hc::largest_fitting_grid(on("grid.nx=400"), {1, 1, 1}, true, 1, true, {0, available});
    EXPECT_GT(m[0], m[1]);  // 400 x 128 x 128 keeps its proportions
    EXPECT_EQ(m[1], m[2]);
    EXPECT_NEAR(static_cast<double>(m[0]) / m[1], 400.0 / 128.0, 0.05);
  }
}

// Nothing fits in a few bytes; no limit but the address space lets the grid be.
TEST(Resources, LargestFittingGridAtTheExtremes) {
  const hc::Config c = bench("grid.n=64");
  EXPECT_EQ(hc::largest_fitting_grid(c, {1, 1, 1}, true, 1, true, {100, 0}), (std::array<int, 3>{0, 0, 0}));
  EXPECT_EQ(hc::largest_fitting_grid(c, {1, 1, 1}, true, 1, true, {0, 100}), (std::array<int, 3>{0, 0, 0}));
  EXPECT_EQ(hc::largest_fitting_grid(c, {1, 1, 1}, true, 1, true, {}), (std::array<int, 3>{64, 64, 64}));
}

// The host holds copies of the state only for files: a GPU run of the bench deck, which
// writes nothing, plans none. A final snapshot or checkpoints plan rank 0's file image (one
// state: the state went to the file slab by slab) and four slab buffers of whole planes; the
// host owner model holds the backend's staging buffer (padded, in its precision) in any
// case; a restart reads its state slab by slab. Before slabs,
// the H200 showed 27.2 GB resident for a 5.4 GB state at 512^3 fp64 with a final snapshot.
TEST(Resources, HostCopiesOnlyForFiles) {
  hc::Config c = bench("grid.n=100");
  const unsigned __int128 state = 5u * 8u * 100u * 100u * 100u;
  const unsigned __int128 plane = 5u * 8u * 100u * 100u;
  const unsigned __int128 slabs = 4 * plane * ((16u << 20) / plane);  // 41 planes a slab
  EXPECT_EQ(hc::plan_memory(c, {1, 1, 1}, false).copies_bytes, 0u);
  EXPECT_EQ(hc::plan_memory(c, {1, 1, 1}, false).host_bytes(), 0u);
  const unsigned __int128 staging = 5u * 8u * 104u * 104u * 104u;  // SoA fp64, 2 ghost layers a side
  c.output_final = true;
  EXPECT_EQ(hc::plan_memory(c, {1, 1, 1}, false).copies_bytes, state + slabs);
  EXPECT_EQ(hc::plan_memory(c, {1, 1, 1}, true).copies_bytes, state + slabs);  // a CPU backend alike
  c.precision = hc::Precision::FP32;                                           // an fp32 snapshot stores floats
  EXPECT_EQ(hc::plan_memory(c, {1, 1, 1}, false).copies_bytes, state / 2 + slabs);
  c.checkpoint.every_steps = 10;  // a checkpoint stores doubles
  EXPECT_EQ(hc::plan_memory(c, {1, 1, 1}, false).copies_bytes, state + slabs);
  c.precision = hc::Precision::FP64;
  c.output_final = false;
  EXPECT_EQ(hc::plan_memory(c, {1, 1, 1}, false).copies_bytes, state + slabs);
  // Two ranks on this node, rank 0 elsewhere: their slab buffers (each rank's block is
  // 100 x 100 x 50, a slab still 41 whole planes) and the host copies of their halo buffers
  // (auto on two ranks is overlap, staged: a send and a receive buffer on each face of each
  // direction with a neighbour, two layers deep: z's, 104 x 104 padded cells, between the
  // ranks; x's and y's, 104 x 54, each rank's own across the deck's periodic faces).
  const unsigned __int128 halo_copies = 4u * 5u * 2u * 8u * (104u * 104u + 2u * 104u * 54u);
  EXPECT_EQ(hc::plan_memory(c, {1, 1, 2}, false, 2, false).copies_bytes, 2 * (slabs + halo_copies));
  c.checkpoint.every_steps = 0;
  c.restart_path = "checkpoint_00000010.h5";
  EXPECT_EQ(hc::plan_memory(c, {1, 1, 1}, false).copies_bytes, slabs);
  c.restart_path.clear();
  c.memory.owner = hc::Owner::Host;
  EXPECT_EQ(hc::plan_memory(c, {1, 1, 1}, false).copies_bytes, staging);
}

// A device refusal: the largest grid whose solver arrays fit the device's free bytes, and
// the one line that names both sides.
TEST(Resources, LargestGridForTheDevice) {
  hc::Config c = bench("grid.n=1100");
  c.backend = hc::BackendKind::Hip;
  auto device_bytes = [&](int n) {
    hc::Config t = c;
    t.n = {n, n, n};
    return hc::plan_memory(t, {1, 1, 1}, false).solver_bytes();
  };
  const auto free_bytes = static_cast<std::uint64_t>(device_bytes(1000) + 1000);
  const std::array<int, 3> n = hc::largest_fitting_device_grid(c, {1, 1, 1}, 1, true, free_bytes);
  EXPECT_EQ(n, (std::array<int, 3>{1000, 1000, 1000}));
  const std::string line = hc::device_refusal("this grid needs 9 bytes", c, {1, 1, 1}, 1, true, free_bytes);
  EXPECT_NE(line.find("this grid needs 9 bytes; the host needs "), std::string::npos) << line;
  EXPECT_NE(line.find("the largest grid of this shape that fits the device: 1000 x 1000 x 1000 cells"),
            std::string::npos)
      << line;
  EXPECT_EQ(line.find('\n'), std::string::npos);
}

// `--kernels auto`: fused on the HIP backend when the largest rank's subdomain has at least
// 128^3 cells (measured faster there on the H200, slower below: app/select.cpp), split on
// smaller subdomains; every rank decides from the same largest part, and the memory plan
// counts the flux arrays only where split is chosen.
TEST(Resources, AutoKernelsAreFusedOnHipForLargeSubdomains) {
  hc::Config c = bench("grid.n=128");
  c.backend = hc::BackendKind::Hip;
  EXPECT_EQ(hc::choose_kernels(c, {1, 1, 1}), hc::KernelStrategy::Fused);
  EXPECT_EQ(hc::choose_kernels(c, {2, 1, 1}), hc::KernelStrategy::Split);  // 64 x 128 x 128 a rank
  c.n = {257, 128, 128};  // split over 2 along x: the larger part is 129 x 128 x 128
  EXPECT_EQ(hc::choose_kernels(c, {2, 1, 1}), hc::KernelStrategy::Fused);
  c.n = {127, 128, 128};
  EXPECT_EQ(hc::choose_kernels(c, {1, 1, 1}), hc::KernelStrategy::Split);
  c.n = {2048, 2048, 1};  // 2-D: split, however many cells
  EXPECT_EQ(hc::choose_kernels(c, {1, 1, 1}), hc::KernelStrategy::Split);
  c.kernels = hc::KernelStrategy::Fused;  // what the user names stands
  EXPECT_EQ(hc::choose_kernels(c, {1, 1, 1}), hc::KernelStrategy::Fused);

  // Fused allocates no flux arrays: u0, u1 and unew against those and three flux arrays.
  hc::Config h = bench("grid.n=128");
  h.backend = hc::BackendKind::Hip;
  const auto fused = hc::plan_memory(h, {1, 1, 1}, false).solver.arrays;
  h.kernels = hc::KernelStrategy::Split;
  EXPECT_EQ(2 * fused, hc::plan_memory(h, {1, 1, 1}, false).solver.arrays);
}

// `--kernels auto` on Kokkos: where Kokkos runs on the host, fused on 2-D and 3-D grids
// (measured faster there in both precisions; slower on 1-D grids: app/select.cpp); on a GPU the
// HIP backend's rule (fused in 3-D from 128^3 cells a rank).
TEST(Resources, AutoKernelsOnKokkosAreFusedWhereMeasuredFaster) {
  if (!hc::backend_unavailable(hc::BackendKind::Kokkos).empty()) GTEST_SKIP() << "no Kokkos backend in this build";
  const bool gpu = hc::runs_on_gpu(hc::BackendKind::Kokkos);
  const auto fused_if = [](bool fused) { return fused ? hc::KernelStrategy::Fused : hc::KernelStrategy::Split; };

  hc::Config k = bench("grid.n=32");
  k.backend = hc::BackendKind::Kokkos;
  EXPECT_EQ(hc::choose_kernels(k, {1, 1, 1}), fused_if(!gpu));  // 3-D, small
  EXPECT_EQ(hc::choose_kernels(k, {2, 2, 2}), fused_if(!gpu));
  k.n = {128, 128, 128};
  EXPECT_EQ(hc::choose_kernels(k, {1, 1, 1}), hc::KernelStrategy::Fused);
  EXPECT_EQ(hc::choose_kernels(k, {2, 1, 1}), fused_if(!gpu));  // 64 x 128 x 128 a rank
  k.precision = hc::Precision::FP32;
  EXPECT_EQ(hc::choose_kernels(k, {1, 1, 1}), hc::KernelStrategy::Fused);
  k.n = {512, 512, 1};
  EXPECT_EQ(hc::choose_kernels(k, {1, 1, 1}), fused_if(!gpu));
  k.n = {65536, 1, 1};  // 1-D: split
  EXPECT_EQ(hc::choose_kernels(k, {1, 1, 1}), hc::KernelStrategy::Split);
  k.n = {128, 128, 128};
  k.kernels = hc::KernelStrategy::Split;  // what the user names stands
  EXPECT_EQ(hc::choose_kernels(k, {1, 1, 1}), hc::KernelStrategy::Split);
}

// Sizes in messages: the largest unit that gives at least 1 (a ulimit -v of 300 MB said
// "0 GiB"), to three figures (1295263328 bytes needed and 1293561856 left both read "1 GiB").
TEST(Resources, BinarySizeTakesTheUnitThatGivesAtLeastOne) {
  EXPECT_EQ(hc::binary_size(std::uint64_t(300000) * 1024), "293 MiB");
  EXPECT_EQ(hc::binary_size(std::uint64_t(3) << 30), "3 GiB");
  EXPECT_EQ(hc::binary_size((std::uint64_t(1) << 30) - 1), "1024 MiB");  // under 1 GiB: MiB
  EXPECT_EQ(hc::binary_size(1536), "1.5 KiB");
  EXPECT_EQ(hc::binary_size(0), "0 KiB");
  EXPECT_EQ(hc::binary_size(1295263328), "1.21 GiB");
  EXPECT_EQ(hc::binary_size(1293561856), "1.2 GiB");
  EXPECT_EQ(hc::binary_size(std::uint64_t(15) << 29), "7.5 GiB");
  EXPECT_EQ(hc::binary_size(std::uint64_t(25) << 30), "25 GiB");
}

// ulimit -v limits each process, not the node's ranks together: a run of two ranks whose
// node total exceeds one process's limit, each rank within it, fits (it was refused, and the
// advice named a smaller grid); the node's own limit still bounds the total.
TEST(Resources, EachRankWithinItsAddressSpaceFits) {
  hc::Config c = bench("grid.n=64");
  const hc::MemoryPlan two = hc::plan_memory(c, {2, 1, 1}, true, 2, true);
  ASSERT_GT(two.host_bytes(), two.largest_process_bytes);
  const auto per_process = static_cast<std::uint64_t>(two.largest_process_bytes);
  EXPECT_NO_THROW(hc::check_memory_plan(two, {0, per_process}));
  EXPECT_THROW(hc::check_memory_plan(two, {0, per_process - 1}), hc::ResourceError);
  EXPECT_THROW(hc::check_memory_plan(two, {static_cast<std::uint64_t>(two.host_bytes()) - 1, 0}), hc::ResourceError);
  EXPECT_EQ(hc::largest_fitting_grid(c, {2, 1, 1}, true, 2, true, {0, per_process}), (std::array<int, 3>{64, 64, 64}));
  try {
    hc::check_memory_plan(two, {0, per_process - 1});
  } catch (const hc::ResourceError& e) {
    EXPECT_NE(std::string(e.what()).find(") of host memory in its largest process (of the node's " +
                                         hc::bytes_text(two.host_bytes()) + " bytes: "),
              std::string::npos)
        << e.what();
  }
  // The staged halo's host copies are each rank's too (two ranks along x: a message each way).
  EXPECT_GT(two.solver.host_halo_buffers, 0u);
  // One rank: its process is the node's whole plan.
  const hc::MemoryPlan one = hc::plan_memory(c, {1, 1, 1}, true, 1, true);
  EXPECT_EQ(one.largest_process_bytes, one.host_bytes());
}
