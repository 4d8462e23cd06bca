// The GPU backends: the native HIP backend, and the Kokkos backend when Kokkos is built for
// a GPU. The test bodies are written once and instantiated per backend (GpuOnEachBackend,
// parameter hip or kokkos); each skips, saying why, when the binary lacks the backend, the
// machine has no GPU, or Kokkos runs on the CPU. tools/gpu/check.sh runs them on a GPU. The
// rest of the suite runs on the GPU too when a GPU backend is the binary's default (hip in a
// build without Kokkos; kokkos in a build with a GPU Kokkos).
#include <gtest/gtest.h>

#include <cmath>
#include <cstdlib>
#include <filesystem>
#include <fstream>

#include "app/driver.hpp"
#include "app/select.hpp"
#include "app/verify.hpp"
#include "io/deck.hpp"
#include "layouts/layouts.hpp"
#include "tests/test_support.hpp"

namespace halocline {
// Test names and messages say the backend's name, not its bytes.
inline void PrintTo(BackendKind b, std::ostream* os) { *os << backend_name(b); }
}  // namespace halocline

namespace hc = halocline;
namespace fs = std::filesystem;
using hc::test::deck_name;
using hc::test::input_decks;
using hc::test::short_run;

namespace {

#define SKIP_WITHOUT(backend)                                 \
  do {                                                        \
    const std::string why = hc::backend_unavailable(backend); \
    if (!why.empty()) GTEST_SKIP() << why;                    \
  } while (0)

hc::RunResult run_on(hc::Config c, hc::BackendKind b, hc::LayoutKind layout = hc::LayoutKind::SoA,
                     hc::Precision prec = hc::Precision::FP64) {
  c.backend = b;
  c.layout = layout;
  c.precision = prec;
  return hc::run_quietly(c);
}

// The CPU reference state of a deck's short run, as written by GpuReference.Write.
fs::path reference_file(const fs::path& dir, const std::string& deck) {
  return dir / (deck_name(deck) + ".fp64.soa.bin");
}

void write_doubles(const fs::path& file, const std::vector<double>& v) {
  std::ofstream out(file, std::ios::binary);
  out.write(reinterpret_cast<const char*>(v.data()), static_cast<std::streamsize>(v.size() * sizeof(double)));
  ASSERT_TRUE(out.good()) << file;
}

std::vector<double> read_doubles(const fs::path& file) {
  std::ifstream in(file, std::ios::binary);
  std::vector<double> v(fs::file_size(file) / sizeof(double));
  in.read(reinterpret_cast<char*>(v.data()), static_cast<std::streamsize>(v.size() * sizeof(double)));
  return v;
}

// GPU and CPU states agree bitwise with strict floating point (HALOCLINE_STRICT_FP: no FMA
// contraction anywhere), else to 1e-12 relative to each variable's largest magnitude.
void expect_states_agree(const std::vector<double>& gpu, const std::vector<double>& cpu, const std::string& what) {
  ASSERT_EQ(gpu.size(), cpu.size()) << what;
#if defined(HALOCLINE_STRICT_FP)
  for (std::size_t i = 0; i < gpu.size(); ++i)
    ASSERT_EQ(gpu[i], cpu[i]) << what << " differs at value " << i << " (strict fp: bitwise)";
#else
  const std::size_t n = gpu.size() / 5;
  for (int v = 0; v < 5; ++v) {
    double scale = 0;
    for (std::size_t i = 0; i < n; ++i) scale = std::max(scale, std::fabs(cpu[v * n + i]));
    for (std::size_t i = 0; i < n; ++i)
      ASSERT_LE(std::fabs(gpu[v * n + i] - cpu[v * n + i]), 1e-12 * scale) << what << " var " << v;
  }
#endif
}

// Whether the Kokkos backend of this binary runs on the CPU (the reference the GPU is held to).
bool cpu_kokkos_here() {
  return hc::backend_unavailable(hc::BackendKind::Kokkos).empty() && !hc::runs_on_gpu(hc::BackendKind::Kokkos);
}

// A test body run on each GPU backend: GetParam() is the backend.
class GpuOnEachBackend : public ::testing::TestWithParam<hc::BackendKind> {
 protected:
  void SetUp() override {
    SKIP_WITHOUT(GetParam());
    if (!hc::runs_on_gpu(GetParam())) GTEST_SKIP() << "the kokkos backend runs on the CPU in this build";
  }
  hc::BackendKind backend() const { return GetParam(); }
};

}  // namespace

INSTANTIATE_TEST_SUITE_P(Gpu, GpuOnEachBackend, ::testing::Values(hc::BackendKind::Hip, hc::BackendKind::Kokkos),
                         [](const ::testing::TestParamInfo<hc::BackendKind>& info) {
                           return std::string(hc::backend_name(info.param));
                         });

// Each layout gives bitwise-identical checksums on the GPU, on every deck, both precisions.
TEST_P(GpuOnEachBackend, LayoutsGiveIdenticalChecksums) {
  for (const std::string& deck : input_decks())
    for (hc::Precision prec : {hc::Precision::FP64, hc::Precision::FP32}) {
      const std::string soa = run_on(short_run(deck), backend(), hc::LayoutKind::SoA, prec).checksum;
      for (hc::LayoutKind l : {hc::LayoutKind::AoS, hc::LayoutKind::AoSoA})
        EXPECT_EQ(run_on(short_run(deck), backend(), l, prec).checksum, soa)
            << deck << " " << hc::layout_name(l) << " " << hc::precision_name(prec);
    }
}

// Portability at no cost in the answer: the Kokkos GPU backend and the native HIP backend,
// built with the same floating-point rules, give the same checksum on every deck, layout
// and precision.
TEST(Gpu, KokkosMatchesHip) {
  SKIP_WITHOUT(hc::BackendKind::Hip);
  SKIP_WITHOUT(hc::BackendKind::Kokkos);
  if (!hc::runs_on_gpu(hc::BackendKind::Kokkos)) GTEST_SKIP() << "the kokkos backend runs on the CPU in this build";
  for (const std::string& deck : input_decks())
    for (hc::Precision prec : {hc::Precision::FP64, hc::Precision::FP32})
      for (hc::LayoutKind l : {hc::LayoutKind::AoS, hc::LayoutKind::SoA, hc::LayoutKind::AoSoA})
        EXPECT_EQ(run_on(short_run(deck), hc::BackendKind::Kokkos, l, prec).checksum,
                  run_on(short_run(deck), hc::BackendKind::Hip, l, prec).checksum)
            << deck << " " << hc::layout_name(l) << " " << hc::precision_name(prec);
}

// Writes the CPU (Kokkos) reference states for GpuMatchesCpu on another machine:
// HALOCLINE_WRITE_REFERENCE=DIR (tools/gpu/prepare.sh does this).
TEST(GpuReference, Write) {
  const char* dir = std::getenv("HALOCLINE_WRITE_REFERENCE");
  if (!dir) GTEST_SKIP() << "set HALOCLINE_WRITE_REFERENCE=DIR to write CPU reference states";
  if (!cpu_kokkos_here()) GTEST_SKIP() << "no CPU Kokkos backend in this binary";
  fs::create_directories(dir);
  for (const std::string& deck : input_decks())
    write_doubles(reference_file(dir, deck), run_on(short_run(deck), hc::BackendKind::Kokkos).final_state);
}

// GPU fp64 against the CPU Kokkos backend on every deck: in-process when this binary has
// a CPU Kokkos, else against the reference states in HALOCLINE_CPU_REFERENCE.
TEST_P(GpuOnEachBackend, MatchesCpuKokkos) {
  const bool kokkos_here = cpu_kokkos_here();
  const char* dir = std::getenv("HALOCLINE_CPU_REFERENCE");
  if (!kokkos_here && !dir) GTEST_SKIP() << "no CPU Kokkos backend in this binary and HALOCLINE_CPU_REFERENCE not set";
  for (const std::string& deck : input_decks()) {
    const std::vector<double> gpu = run_on(short_run(deck), backend()).final_state;
    const std::vector<double> cpu = kokkos_here ? run_on(short_run(deck), hc::BackendKind::Kokkos).final_state
                                                : read_doubles(reference_file(dir, deck));
    expect_states_agree(gpu, cpu, deck);
  }
}

// A grid whose arrays cannot fit the device is refused before any allocation, in one line
// that gives the device's bytes needed and free, the host's side, and the largest grid of
// the same shape that fits the device.
TEST_P(GpuOnEachBackend, RefusesAGridTooBigForTheDevice) {
  hc::Config c = hc::load_deck(std::string(HALOCLINE_SOURCE_DIR) + "/inputs/bench.toml", {"grid.n=4096"});
  c.backend = backend();
  try {
    hc::run_quietly(c);
    FAIL() << "a 4096^3 grid ran";
  } catch (const hc::ResourceError& e) {
    const std::string what = e.what();
    EXPECT_NE(what.find("of device memory; the device has "), std::string::npos) << what;
    EXPECT_NE(what.find("; the host needs "), std::string::npos) << what;
    const std::string advice = "; the largest grid of this shape that fits the device: ";
    const std::size_t at = what.find(advice);
    ASSERT_NE(at, std::string::npos) << what;
    EXPECT_EQ(what.find('\n'), std::string::npos) << what;
    // The grid it names is one the backend accepts: the advice and the backend's check count
    // one footprint (kernels/contract/footprint.hpp; the slab buffers were the backend's alone).
    const int n = std::stoi(what.substr(at + advice.size()));
    hc::Config fits =
        hc::load_deck(std::string(HALOCLINE_SOURCE_DIR) + "/inputs/bench.toml", {"grid.n=" + std::to_string(n)});
    fits.backend = backend();
    fits.max_steps = 1;
    EXPECT_NO_THROW(hc::run_quietly(fits)) << "the advised " << n << "^3";
  }
}

// What crosses the bus per owner model: device, nothing at set-up (the initial state is made
// on the device) nor between snapshots, and the final state once (the test keeps it); host,
// the initial state once to the host, then two whole states per step (there and back);
// managed, no prefetch in the steps (the host touches the state only at the end). All give
// the same answer.
TEST_P(GpuOnEachBackend, TransferCountsMatchOwnerModels) {
  hc::Config c = hc::load_deck(std::string(HALOCLINE_SOURCE_DIR) + "/inputs/bench.toml", {"grid.n=32"});
  c.backend = backend();
  c.max_steps = 10;
  const std::size_t state_bytes = hc::SoA::storage_size(36u * 36u * 36u) * sizeof(double);
  using hc::Direction;
  using hc::Purpose;

  c.memory.owner = hc::Owner::Device;
  const hc::RunResult device = hc::run_quietly(c);
  EXPECT_EQ(device.transfers.get(Direction::HostToDevice, Purpose::Step).bytes, 0u);
  EXPECT_EQ(device.transfers.get(Direction::DeviceToHost, Purpose::Step).bytes, 0u);
  EXPECT_EQ(device.transfers.get(Direction::HostToDevice, Purpose::Setup).bytes, 0u);
  EXPECT_EQ(device.transfers.get(Direction::DeviceToHost, Purpose::Setup).bytes, 0u);
  // The final state the caller keeps crosses once, its interior cells only (packed on the
  // device slab by slab: Backend::read_state).
  const std::size_t interior_bytes = 32u * 32u * 32u * hc::kNumVars * sizeof(double);
  EXPECT_EQ(device.transfers.get(Direction::DeviceToHost, hc::HostKind::Pinned, Purpose::Output).bytes, interior_bytes);

  for (hc::HostMemory mem : {hc::HostMemory::Pinned, hc::HostMemory::Pageable}) {
    c.memory.owner = hc::Owner::Host;
    c.memory.host_memory = mem;
    const hc::RunResult host = hc::run_quietly(c);
    const hc::HostKind kind = mem == hc::HostMemory::Pinned ? hc::HostKind::Pinned : hc::HostKind::Pageable;
    EXPECT_EQ(host.transfers.get(Direction::HostToDevice, kind, Purpose::Step).bytes, 10 * state_bytes);
    EXPECT_EQ(host.transfers.get(Direction::DeviceToHost, kind, Purpose::Step).bytes, 10 * state_bytes);
    EXPECT_EQ(host.transfers.get(Direction::HostToDevice, kind, Purpose::Step).calls, 10);
    EXPECT_EQ(host.transfers.get(Direction::DeviceToHost, kind, Purpose::Setup).bytes, state_bytes);
    EXPECT_EQ(host.checksum, device.checksum) << hc::host_memory_name(mem);
  }

  for (bool prefetch : {true, false}) {
    c.memory.owner = hc::Owner::Managed;
    c.memory.prefetch = prefetch;
    const hc::RunResult managed = hc::run_quietly(c);
    EXPECT_EQ(managed.transfers.get(Direction::HostToDevice, hc::HostKind::Managed, Purpose::Step).calls, 0);
    EXPECT_EQ(managed.transfers.get(Direction::DeviceToHost, Purpose::Step).bytes, 0u);
    EXPECT_EQ(managed.checksum, device.checksum) << "prefetch " << prefetch;
  }
}

// A run whose last step breaks the state ends in the numerical failure in every owner model:
// the stop plans the next time step on the device, and the backend must publish that plan
// (with the host owner no later step runs to publish it: before planned_status it ended with
// exit 0 and a checksum of NaNs). Kelvin-Helmholtz at a CFL number far past stability.
TEST_P(GpuOnEachBackend, ABrokenLastStepFailsInEveryOwnerModel) {
  const fs::path dir = fs::temp_directory_path() / ("halocline_gpu_last_" + std::string(hc::backend_name(backend())));
  auto unstable = [&](hc::Owner owner, long steps) {
    hc::Config c = hc::load_deck(std::string(HALOCLINE_SOURCE_DIR) + "/inputs/kh.toml", {"grid.nx=32", "grid.ny=32"});
    c.backend = backend();
    c.memory.owner = owner;
    c.physics.cfl = 3.0;
    c.max_steps = steps;
    c.output_final = false;
    c.out_dir = dir.string();
    return c;
  };
  auto failing_step = [&](const hc::Config& c) -> long {
    fs::remove_all(dir);
    try {
      hc::run_quietly(c);
    } catch (const hc::NumericalError& e) {
      const std::string what = e.what();
      return std::strtol(what.c_str() + what.find("step ") + 5, nullptr, 10);
    }
    return -1;
  };
  const long step = failing_step(unstable(hc::Owner::Device, 400));
  ASSERT_GT(step, 1);
  for (hc::Owner owner : {hc::Owner::Device, hc::Owner::Host, hc::Owner::Managed})
    EXPECT_EQ(failing_step(unstable(owner, step)), step) << hc::owner_name(owner);
  fs::remove_all(dir);
}

// Snapshots of the device owner (packed on the device and copied slab by slab) hold the same
// states as the host owner's, and the runs end alike.
TEST_P(GpuOnEachBackend, SnapshotsAreTheRightState) {
  // One folder per backend: ctest runs the backends' cases side by side.
  const fs::path dir = fs::temp_directory_path() / ("halocline_gpu_snap_" + std::string(hc::backend_name(backend())));
  std::vector<std::vector<double>> rho[2];
  std::string checksum[2];
  for (int run = 0; run < 2; ++run) {
    fs::remove_all(dir);
    hc::Config c = hc::sod_config(256);
    c.backend = backend();
    c.memory.owner = run == 0 ? hc::Owner::Device : hc::Owner::Host;
    c.out_dir = dir.string();
    c.output_interval = 0.05;
    const hc::RunResult r = hc::run_simulation(c);
    ASSERT_EQ(r.snapshots.size(), 5u);
    checksum[run] = r.checksum;
    for (int s = 0; s < 5; ++s)
      rho[run].push_back(hc::test::read_dataset(dir / ("snapshot_000" + std::to_string(s) + ".h5"), "rho"));
  }
  EXPECT_EQ(checksum[0], checksum[1]);
  for (int s = 0; s < 5; ++s) EXPECT_EQ(rho[0][s], rho[1][s]) << "snapshot " << s;
  fs::remove_all(dir);
}
