// `halocline probe` and `halocline info` (app/probe.cpp, app/info.cpp): plausible figures
// on the backend this binary runs, reports that match docs/schemas/, and the per-device
// cache a run reads. On the H200 (tools/gpu/check.sh) the HIP probe's copies are checked
// too: pinned memory is not slower than pageable.
#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>
#include <iterator>
#include <map>
#include <set>
#include <string>
#include <vector>

#include "app/driver.hpp"
#include "app/info.hpp"
#include "app/probe.hpp"
#include "app/provenance.hpp"
#include "app/references.hpp"
#include "app/report.hpp"
#include "app/select.hpp"
#include "app/verify.hpp"
#include "io/deck.hpp"
#include "tests/schema_check.hpp"
#include "tests/test_support.hpp"
#if defined(HALOCLINE_HAVE_HIP)
#include "kernels/hip/hip_backend.hpp"
#endif

namespace hc = halocline;

namespace {

// The backend a probe of this build measures: the GPU's where there is one.
std::string probed_backend() {
#if defined(HALOCLINE_HAVE_HIP)
  if (hc::hip_device_count() > 0) return "hip";
#endif
  return "kokkos";
}

TEST(Probe, FiguresArePlausibleAndMatchTheSchema) {
  hc::ProbeOptions options;
  options.repetitions = 5;
  const hc::ProbeResult r = hc::run_probe(probed_backend(), options);
  EXPECT_GE(r.array_bytes, std::size_t(64) << 20);  // far past any cache of the CI machine
  EXPECT_GT(r.copy_Bps, 1e8);
  EXPECT_GT(r.triad_Bps, 1e8);
  EXPECT_LE(r.copy_Bps, 1e14);               // 100 TB/s: no memory is that fast; a timing error would be
  EXPECT_GE(r.copy_Bps, r.copy_median_Bps);  // best of the repetitions
  EXPECT_GT(r.launch_s, 0);
  EXPECT_GT(r.launch_sync_s, 0);
  EXPECT_GT(r.timer_resolution_s, 0);
  EXPECT_LT(r.timer_resolution_s, 1e-4);
  // Arithmetic rates of both precisions: positive and finite. Not ordered: where something else
  // than the arithmetic bounds the chains, they come out alike (the sanitizer build, whose
  // instrumented loads and stores run with every step, measured fp64 5.04e8 fma/s against
  // 5.17e8 div/s in CI).
  for (const hc::ArithmeticRates& a : {r.fp64, r.fp32}) {
    for (double rate : {a.fma_per_s, a.div_per_s, a.sqrt_per_s}) {
      EXPECT_GT(rate, 1e6);
      EXPECT_LT(rate, 1e15);
    }
  }
  const nlohmann::json j = hc::probe_json(r, hc::make_provenance({"halocline", "probe"}));
  EXPECT_EQ(hc::test::schema_violation(j, hc::test::load_schema("probe")), "");
  if (r.backend == "kokkos") {
    EXPECT_TRUE(r.transfers.empty());
    EXPECT_NE(r.transfers_note.find("host memory"), std::string::npos) << r.transfers_note;
    return;
  }
  // A GPU: every kind and direction at every size from 4 KiB to 1 GiB, and page-locked
  // copies at least as fast as pageable ones once the size hides the latency (within 10%).
  ASSERT_EQ(r.transfers.size(), 6u * 10u);
  for (const hc::TransferPoint& pinned : r.transfers) {
    if (pinned.memory != "pinned" || pinned.bytes < (std::size_t(64) << 20)) continue;
    for (const hc::TransferPoint& pageable : r.transfers)
      if (pageable.memory == "pageable" && pageable.bytes == pinned.bytes && pageable.direction == pinned.direction)
        EXPECT_GE(pinned.Bps(), 0.9 * pageable.Bps()) << pinned.direction << " " << pinned.bytes;
  }
}

TEST(Probe, JsonReadsBackTheSame) {
  hc::ProbeResult r;
  r.backend = "hip";
  r.device_name = "Test GPU";
  r.array_bytes = 1 << 29;
  r.repetitions = 3;
  r.copy_Bps = 4.1e12;
  r.triad_Bps = 4.2e12;
  r.copy_median_Bps = 4.0e12;
  r.triad_median_Bps = 4.1e12;
  r.transfers.push_back({"pinned", "h2d", 4096, 1.5e-6});
  r.launch_s = 2e-6;
  r.timer = "events";
  r.fp64 = {3.3e13, 2e12, 1.5e12};
  r.fp32 = {6.6e13, 8e12, 7e12};
  const hc::Provenance provenance = hc::make_provenance({"halocline", "probe"});
  const nlohmann::json j = hc::probe_json(r, provenance);
  EXPECT_EQ(hc::probe_json(hc::probe_from_json(j), provenance), j);
  EXPECT_EQ(hc::test::schema_violation(j, hc::test::load_schema("probe")), "");
  // The checker does fail: a negative bandwidth and a missing field are caught.
  nlohmann::json bad = j;
  bad["copy_Bps"] = -1.0;
  EXPECT_NE(hc::test::schema_violation(bad, hc::test::load_schema("probe")), "");
  bad = j;
  bad.erase("transfers");
  EXPECT_EQ(hc::test::schema_violation(bad, hc::test::load_schema("probe")), "$: missing 'transfers'");
}

TEST(Probe, RunsReadTheCacheOfTheirDevice) {
  hc::test::TempDir dir("probe_cache");
  std::string first, second;
  const hc::Provenance provenance = hc::make_provenance({"halocline", "run"});
  const hc::ProbeResult a = hc::cached_probe(dir.path().string(), probed_backend(), 0, first, provenance);
  const hc::ProbeResult b = hc::cached_probe(dir.path().string(), probed_backend(), 0, second, provenance);
  EXPECT_EQ(first, "measured");
  EXPECT_EQ(second, (dir.path() / hc::probe_cache_name(a.backend, a.device_name)).string());
  EXPECT_EQ(b.copy_Bps, a.copy_Bps);
  EXPECT_TRUE(a.quick);
  // The cache a run measured says which run it was.
  std::ifstream in(second);
  const nlohmann::json cache = nlohmann::json::parse(in);
  EXPECT_EQ(cache.at("provenance").at("command_line"), "halocline run");
  EXPECT_EQ(cache.at("provenance").at("date"), provenance.date);
}

// A cached probe without the arithmetic rates (made before them) is measured again, not read
// as zeros.
TEST(Probe, CacheWithoutArithmeticRatesIsMeasuredAgain) {
  hc::test::TempDir dir("probe_cache_rates");
  const hc::Provenance provenance = hc::make_provenance({"halocline", "run"});
  std::string source;
  const hc::ProbeResult first = hc::cached_probe(dir.path().string(), probed_backend(), 0, source, provenance);
  const std::string path = (dir.path() / hc::probe_cache_name(first.backend, first.device_name)).string();
  nlohmann::json old = hc::probe_json(first, provenance);
  old.erase("arithmetic");
  std::ofstream(path) << old.dump(2);
  const hc::ProbeResult again = hc::cached_probe(dir.path().string(), probed_backend(), 0, source, provenance);
  EXPECT_EQ(source, "measured");
  EXPECT_GT(again.fp64.sqrt_per_s, 0);
  EXPECT_GT(again.fp32.div_per_s, 0);
}

// Another host's cache in the output directory (a shared file system; a CPU's device is
// "Serial" on every node) is measured again, not read as this machine's ceilings.
TEST(Probe, CacheOfAnotherHostIsMeasuredAgain) {
  hc::test::TempDir dir("probe_cache_host");
  const hc::Provenance provenance = hc::make_provenance({"halocline", "run"});
  std::string source;
  const hc::ProbeResult first = hc::cached_probe(dir.path().string(), probed_backend(), 0, source, provenance);
  const std::string path = (dir.path() / hc::probe_cache_name(first.backend, first.device_name)).string();
  hc::Provenance elsewhere = provenance;
  elsewhere.host = provenance.host + "-other-node";
  hc::ProbeResult faster = first;
  faster.copy_Bps = 1e15;
  std::ofstream(path) << hc::probe_json(faster, elsewhere).dump(2);
  const hc::ProbeResult again = hc::cached_probe(dir.path().string(), probed_backend(), 0, source, provenance);
  EXPECT_EQ(source, "measured");
  EXPECT_LT(again.copy_Bps, 1e15);
  std::ifstream in(path);
  EXPECT_EQ(nlohmann::json::parse(in).at("provenance").at("host"), provenance.host) << "replaced";
}

// A run of several ranks holds its whole traffic and FOM against the devices it drives, not
// against the one device the probe measured (with 2 ranks, bench and run gave twice the
// fractions benchmark did): distinct GPUs count once each, a shared GPU once, CPU ranks each.
TEST(Probe, FractionsCountTheDevicesTheRunDrives) {
  hc::ProbeResult probe;
  probe.copy_Bps = 1e12;
  probe.fp64 = {1e12, 1e11, 1e11};
  const auto report = [](const std::vector<std::string>& devices) {
    nlohmann::json j;
    j["config"]["precision"] = "fp64";
    j["traffic"]["effective_bandwidth_Bps"] = 4e11;
    j["fom"]["cell_updates_per_s"] = 1e9;
    j["arithmetic"]["per_cell_update"] = {{"add", 100}, {"mul", 100}, {"fma", 0},
                                          {"div", 0},   {"sqrt", 0},  {"compare", 0}};
    j["devices_over_ranks"] = devices;
    return j;
  };
  const std::vector<std::pair<std::vector<std::string>, int>> cases = {
      {{}, 1},
      {{"node0 0000:19:00.0"}, 1},
      {{"node0 0000:19:00.0", "node0 0000:3b:00.0"}, 2},
      {{"node0 0000:19:00.0", "node0 0000:19:00.0"}, 1},  // two ranks on one GPU
      {{"node0 0000:19:00.0", "node1 0000:19:00.0"}, 2},  // the same bus id on two nodes
      {{"vm cpu Serial", "vm cpu Serial", "vm cpu Serial"}, 3},
  };
  for (const auto& [devices, driven] : cases) {
    nlohmann::json j = report(devices);
    EXPECT_EQ(hc::devices_driven(j), driven) << j["devices_over_ranks"].dump();
    hc::add_probe_to_report(j, probe, "measured");
    EXPECT_EQ(j["probe"]["devices_counted"], driven);
    EXPECT_DOUBLE_EQ(j["probe"]["copy_Bps"].get<double>(), 1e12) << "as measured";
    EXPECT_DOUBLE_EQ(j["fom"]["fraction_of_copy_bandwidth"].get<double>(), 0.4 / driven);
    EXPECT_DOUBLE_EQ(j["arithmetic"]["limit_cell_updates_per_s"].get<double>(), driven * 1e12 / 200);
    EXPECT_DOUBLE_EQ(j["fom"]["fraction_of_arithmetic_limit"].get<double>(), 1e9 / (driven * 1e12 / 200));
  }
  // benchmark's rates are every rank's, summed: counted once.
  nlohmann::json j = report({"vm cpu Serial", "vm cpu Serial"});
  hc::add_probe_to_report(j, probe, "benchmark: every rank's probe, summed", 1);
  EXPECT_DOUBLE_EQ(j["fom"]["fraction_of_copy_bandwidth"].get<double>(), 0.4);
}

// What `devices_over_ranks` lists per rank: a GPU by its host and PCI address; a GPU the
// runtime gives no address by its name and index, so that two such GPUs of a node count as two
// (they shared one identity, and the fractions counted them once); a CPU by its name.
TEST(Probe, DeviceIdentityTellsANodesGpusApart) {
  hc::DeviceInfo gpu;
  gpu.kind = "gpu", gpu.name = "NVIDIA H200", gpu.pci_bus_id = "0000:19:00.0", gpu.device_index = 3;
  EXPECT_EQ(hc::device_identity(gpu, "node0"), "node0 0000:19:00.0");
  gpu.pci_bus_id.clear();
  EXPECT_EQ(hc::device_identity(gpu, "node0"), "node0 gpu NVIDIA H200 #3");
  hc::DeviceInfo other = gpu;
  other.device_index = 1;
  hc::DeviceInfo cpu;
  cpu.kind = "cpu", cpu.name = "Serial";
  EXPECT_EQ(hc::device_identity(cpu, "vm"), "vm cpu Serial");
  nlohmann::json j;
  j["devices_over_ranks"] = {hc::device_identity(gpu, "node0"), hc::device_identity(other, "node0"),
                             hc::device_identity(gpu, "node0")};
  EXPECT_EQ(hc::devices_driven(j), 2);  // ranks 0 and 2 share GPU 3
  j["devices_over_ranks"] = {hc::device_identity(cpu, "vm"), hc::device_identity(cpu, "vm")};
  EXPECT_EQ(hc::devices_driven(j), 2);  // a CPU backend's ranks, each
}

// The real outputs of the H200 (tests/data/h200/) match the schemas the tests hold the
// CPU's outputs to.
TEST(Probe, RecordedH200OutputsMatchTheSchemas) {
  auto read = [](const std::string& name) {
    std::ifstream in(std::string(HALOCLINE_SOURCE_DIR) + "/tests/data/h200/" + name);
    return nlohmann::json::parse(in);
  };
  const nlohmann::json probe = read("probe.json");
  EXPECT_EQ(hc::test::schema_violation(probe, hc::test::load_schema("probe")), "");
  EXPECT_EQ(probe["transfers"].size(), 60u);
  EXPECT_EQ(hc::test::schema_violation(read("bench.json"), hc::test::load_schema("bench")), "");
  EXPECT_EQ(hc::test::schema_violation(read("report_soa_fp64.json"), hc::test::load_schema("run")), "");
  // The strategy lab's full sweep (tests/data/h200/lab/README.md): every configuration of
  // the matrix listed, the ones that ran with three repetitions.
  const nlohmann::json lab = read("lab/bench.json");
  EXPECT_EQ(hc::test::schema_violation(lab, hc::test::load_schema("bench")), "");
  ASSERT_EQ(lab["rows"].size(), 108u);
  int ran = 0;
  for (const auto& row : lab["rows"])
    if (!row.contains("skipped")) {
      ++ran;
      EXPECT_EQ(row["step_s"]["repetitions"].size(), 3u) << row["name"];
    }
  EXPECT_EQ(ran, 96);
  EXPECT_EQ(hc::test::schema_violation(read("lab/probe.json"), hc::test::load_schema("probe")), "");
  for (const char* name : {"lab/report_aos_fp64_device_sync.json", "lab/report_aos_fp64_device_overlap.json"})
    EXPECT_EQ(hc::test::schema_violation(read(name), hc::test::load_schema("run")), "") << name;
}

// The 2-GPU scaling runs (tests/data/h200/scale/README.md): every report matches the run
// schema, and a grid gives one checksum whatever the rank count and halo strategy.
TEST(Probe, RecordedH200ScalingRunsAgreeAcrossRanks) {
  const std::string dir = std::string(HALOCLINE_SOURCE_DIR) + "/tests/data/h200/scale/";
  const nlohmann::json schema = hc::test::load_schema("run");
  auto checksum = [&](const std::string& name) {
    std::ifstream in(dir + name + ".json");
    const nlohmann::json report = nlohmann::json::parse(in);
    EXPECT_EQ(hc::test::schema_violation(report, schema), "") << name;
    EXPECT_EQ(report["timed_steps"]["count"], 29) << name;
    return report["checksum"].get<std::string>();
  };
  for (const char* halo : {"overlap", "sync"}) {
    SCOPED_TRACE(halo);
    const std::string h = halo;
    EXPECT_EQ(checksum("strong_n512_p1_" + h), checksum("strong_n512_p2_" + h));
    EXPECT_EQ(checksum("strong_n512_p1_" + h), checksum("strong_n512_p1_overlap"));
    EXPECT_EQ(checksum("strong_n1024_p2_" + h), checksum("strong_n1024_p2_overlap"));
    EXPECT_EQ(checksum("weak_n256_p1_" + h), checksum("weak_n256_p1_overlap"));
    EXPECT_EQ(checksum("weak_n256_p2_" + h), checksum("weak_n256_p2_overlap"));
  }
  // Weak scaling doubles the grid: the 2-rank run is another problem.
  EXPECT_NE(checksum("weak_n256_p1_overlap"), checksum("weak_n256_p2_overlap"));
}

// The Kokkos GPU backend beside the native one (tests/data/h200/kokkos/README.md): in both
// runs, for every size, layout and precision both backends ran and gave the same checksum.
TEST(Probe, RecordedH200KokkosRunsMatchTheNativeBackend) {
  std::map<std::string, std::map<std::string, std::string>> checksums;  // config -> backend -> checksum
  for (const char* name : {"bench_256_512_flat.json", "bench_256_512_flat_bounds.json"}) {
    std::ifstream in(std::string(HALOCLINE_SOURCE_DIR) + "/tests/data/h200/kokkos/" + name);
    const nlohmann::json bench = nlohmann::json::parse(in);
    EXPECT_EQ(hc::test::schema_violation(bench, hc::test::load_schema("bench")), "") << name;
    ASSERT_EQ(bench["rows"].size(), 24u) << name;
    for (const auto& row : bench["rows"]) {
      ASSERT_FALSE(row.contains("skipped")) << row["name"];
      const auto& v = row["values"];
      const std::string config = v["grid.n"].get<std::string>() + " " + v["layout"].get<std::string>() + " " +
                                 v["precision"].get<std::string>();
      const std::string checksum = row["checksum"].get<std::string>();
      std::string& seen = checksums[config][v["backend"].get<std::string>()];
      if (!seen.empty()) EXPECT_EQ(checksum, seen) << name << " " << row["name"];  // the run before
      seen = checksum;
    }
  }
  EXPECT_EQ(checksums.size(), 12u);  // 2 sizes x 3 layouts x 2 precisions
  for (const auto& [config, by_backend] : checksums) {
    ASSERT_EQ(by_backend.size(), 2u) << config;
    EXPECT_EQ(by_backend.at("hip"), by_backend.at("kokkos")) << config;
  }
}

// A recorded bench output of tests/data/h200/fused/, checked against the bench schema.
nlohmann::json recorded_fused_bench(const std::string& name) {
  std::ifstream in(std::string(HALOCLINE_SOURCE_DIR) + "/tests/data/h200/fused/" + name);
  const nlohmann::json bench = nlohmann::json::parse(in);
  EXPECT_EQ(hc::test::schema_violation(bench, hc::test::load_schema("bench")), "") << name;
  return bench;
}

// The fused kernels beside the split ones on the H200 (tests/data/h200/fused/README.md):
// every configuration ran, and one grid and precision give one checksum whatever the
// kernels, backend, layout and where the time step's max is taken. `files` were made by one
// version of the physics' arithmetic; the grid and precision -> the checksums seen.
// add_fused_checksums adds one recorded bench's rows (every one ran: none skipped).
void add_fused_checksums(const nlohmann::json& bench, std::map<std::string, std::set<std::string>>& checksums,
                         std::size_t& rows) {
  for (const auto& row : bench["rows"]) {
    EXPECT_FALSE(row.contains("skipped")) << row["name"];
    const auto& v = row["values"];
    const std::string grid = v.contains("grid.n") ? v["grid.n"].get<std::string>() : "512";
    checksums[grid + " " + v["precision"].get<std::string>()].insert(row.value("checksum", ""));
    ++rows;
  }
}

std::map<std::string, std::set<std::string>> recorded_fused_checksums(const std::vector<std::string>& files,
                                                                      std::size_t& rows) {
  std::map<std::string, std::set<std::string>> checksums;
  for (const std::string& name : files) add_fused_checksums(recorded_fused_bench(name), checksums, rows);
  return checksums;
}

// A recorded file of `rows` rows whose checksums per grid and precision are `expected`'s: a
// change that kept the arithmetic, recorded again. With `shapes` ("backend precision" -> the
// report's config.fused_shape), each row also names the shape it ran on.
void expect_same_bits(const std::string& file, std::size_t rows,
                      const std::map<std::string, std::set<std::string>>& expected,
                      const std::map<std::string, std::string>& shapes = {}) {
  const nlohmann::json bench = recorded_fused_bench(file);
  std::map<std::string, std::set<std::string>> checksums;
  std::size_t seen = 0;
  add_fused_checksums(bench, checksums, seen);
  EXPECT_EQ(checksums, expected) << file;
  EXPECT_EQ(seen, rows) << file;
  if (shapes.empty()) return;
  for (const auto& row : bench["rows"]) {
    const auto& v = row["values"];
    // A split row names no shape.
    const std::string shape =
        v.value("kernels", std::string("fused")) == "split"
            ? std::string()
            : shapes.at(v["backend"].get<std::string>() + " " + v["precision"].get<std::string>());
    EXPECT_EQ(row.value("fused_shape", std::string()), shape) << file << ": " << row["name"];
  }
}

// A record over the layouts on HIP (no backend in its rows' values): each of its 6 fused rows
// names the shape its precision ran on.
void expect_fused_shapes(const std::string& file, const std::string& fp32_shape, const std::string& fp64_shape) {
  const nlohmann::json layouts = recorded_fused_bench(file);
  int fused_rows = 0;
  for (const auto& row : layouts["rows"]) {
    const auto& v = row["values"];
    if (v["kernels"] != "fused") continue;
    ++fused_rows;
    EXPECT_EQ(row.value("fused_shape", std::string()), v["precision"] == "fp32" ? fp32_shape : fp64_shape)
        << file << ": " << row["name"];
  }
  EXPECT_EQ(fused_rows, 6) << file;
}

// Records made after a change of the arithmetic: one checksum per grid and precision, none of
// them one that `before` had for the same grid and precision.
void expect_new_bits(const std::map<std::string, std::set<std::string>>& now,
                     const std::map<std::string, std::set<std::string>>& before, const std::string& change) {
  for (const auto& [config, seen] : now) {
    EXPECT_EQ(seen.size(), 1u) << config;
    EXPECT_EQ(before.at(config).count(*seen.begin()), 0u) << config << ": " << change << " changed no bit?";
  }
}

// The checksums of `file`, a record of `rows` rows made after a change of the arithmetic
// (expect_new_bits against `before`).
std::map<std::string, std::set<std::string>> new_bits_record(const std::string& file, std::size_t rows,
                                                             const std::map<std::string, std::set<std::string>>& before,
                                                             const std::string& change) {
  std::size_t seen = 0;
  const auto now = recorded_fused_checksums({file}, seen);
  EXPECT_EQ(seen, rows) << file;
  expect_new_bits(now, before, change);
  return now;
}

TEST(Probe, RecordedH200FusedRunsMatchSplit) {
  std::size_t rows = 0;
  const auto before = recorded_fused_checksums(
      {"bench_soa_hip_kokkos.json", "bench_512_aos_aosoa.json", "bench_soa_rate_epilogue.json"}, rows);
  // 16 SoA rows (2 sizes x 2 backends x 2 precisions x 2 kernels), 8 AoS/AoSoA, 8 SoA after the
  // time step moved into the fused stage 2 (HIP, 2 sizes x 2 precisions x 2 kernels).
  EXPECT_EQ(rows, 32u);
  EXPECT_EQ(before.size(), 4u);  // 256 and 512, fp64 and fp32
  for (const auto& [config, seen] : before) EXPECT_EQ(seen.size(), 1u) << config;
  // After the physics took fused multiply-adds and fewer divisions (mul_add, IdealGas): 16
  // SoA rows as the first file above, and 12 at 512^3 (3 layouts x 2 precisions x 2 kernels).
  rows = 0;
  const auto after = recorded_fused_checksums({"bench_fma_soa_hip_kokkos.json", "bench_fma_512_layouts.json"}, rows);
  EXPECT_EQ(rows, 28u);
  EXPECT_EQ(after.size(), 4u);
  expect_new_bits(after, before, "the new arithmetic");
  // The same arithmetic, the fused kernels changed: the HIP one reconstructs each cell once
  // (8 SoA rows at 256^3 and 512^3, 12 at 512^3 over the layouts), and one run of both
  // backends (16 SoA rows) before that change. Every checksum is the one above.
  rows = 0;
  const auto recon = recorded_fused_checksums(
      {"bench_recon_soa.json", "bench_recon_512_layouts.json", "bench_fma_final_soa_hip_kokkos.json"}, rows);
  EXPECT_EQ(rows, 36u);
  EXPECT_EQ(recon, after);
  // The fourth form's work moved into kernels/fused_tile.hpp, run beside a Kokkos fused stage
  // on that tile: HIP's rows have the same checksums; Kokkos refused the tile's scratch (a CUDA
  // team gets 40,936 bytes), so the Kokkos fused stage kept its third form.
  const nlohmann::json tile = recorded_fused_bench("bench_tile_soa_hip_kokkos.json");
  std::size_t refused = 0;
  for (const auto& row : tile["rows"]) {
    const auto& v = row["values"];
    const std::string config = v["grid.n"].get<std::string>() + " " + v["precision"].get<std::string>();
    if (row.contains("skipped")) {
      EXPECT_EQ(v["backend"], "kokkos");
      EXPECT_EQ(v["kernels"], "fused");
      EXPECT_NE(row["skipped"].get<std::string>().find("Cuda gives 40936"), std::string::npos);
      ++refused;
    } else {
      EXPECT_EQ(after.at(config).count(row["checksum"].get<std::string>()), 1u) << row["name"];
    }
  }
  EXPECT_EQ(refused, 4u);
  // The Kokkos fused stage on the tile that fits its scratch (28 x 4 fp32, 16 x 4 fp64), run
  // beside HIP's (16 SoA rows): every checksum is the one above.
  rows = 0;
  const auto kokkos_tile = recorded_fused_checksums({"bench_kokkos_tile_soa_hip_kokkos.json"}, rows);
  EXPECT_EQ(rows, 16u);
  EXPECT_EQ(kokkos_tile, after);
  // 1024^3 fp64 with the fused kernel ran on one H200 (the memory bar of issue 17).
  rows = 0;
  const auto big = recorded_fused_checksums({"bench_recon_1024_fp64.json"}, rows);
  EXPECT_EQ(rows, 1u);
  EXPECT_EQ(big.begin()->second.size(), 1u);
  EXPECT_NE(*big.begin()->second.begin(), "");
  // HLLC's contact speed and the sound speed as products with a reciprocal (new bits): 12 rows
  // at 512^3 over the layouts, one checksum per precision and none of the ones before; and
  // 1024^3 fp64 again, with a checksum of its own.
  const auto recip = new_bits_record("bench_recip_512_layouts.json", 12, after, "the reciprocals");
  EXPECT_EQ(recip.size(), 2u);
  rows = 0;
  const auto recip_big = recorded_fused_checksums({"bench_recip_1024_fp64.json"}, rows);
  EXPECT_EQ(rows, 1u);
  EXPECT_NE(*recip_big.begin()->second.begin(), "");
  EXPECT_NE(recip_big, big);
  // Slopes instead of face states, fp64 on 24 x 8 tiles with 3 blocks per SM, fp32 with 5 (the
  // sixth session): the same bits as the reciprocals' records, over the layouts and at 1024^3.
  expect_same_bits("bench_slopes_512_layouts.json", 12, recip);
  expect_same_bits("bench_slopes_1024_fp64.json", 1, recip_big);
  // Each column's z state in shared memory, fp64 on 20 x 8 tiles (the eighth session): the same
  // bits over the layouts and at 1024^3; and beside the Kokkos fused stage (8 SoA rows: 2 sizes
  // x 2 backends x 2 precisions), where 512^3 has the same bits and 256^3 after its 40 steps the
  // benchmark's references.
  expect_same_bits("bench_zshared_512_layouts.json", 12, recip);
  expect_same_bits("bench_zshared_1024_fp64.json", 1, recip_big);
  rows = 0;
  const auto beside_kokkos = recorded_fused_checksums({"bench_zshared_soa_hip_kokkos.json"}, rows);
  EXPECT_EQ(rows, 8u);
  for (const std::string precision : {"fp64", "fp32"}) {
    EXPECT_EQ(beside_kokkos.at("512 " + precision), recip.at("512 " + precision));
    EXPECT_EQ(beside_kokkos.at("256 " + precision).size(), 1u) << precision;
  }
  // The Kokkos columns' states in team scratch (4 rows at 512^3: 2 backends x 2 precisions).
  expect_same_bits("bench_kokkos_scratch_512_hip_kokkos.json", 4, recip);
  // The lookahead's cell read with the stage's old values (HIP fp32, Kokkos fp64; the ninth
  // session): 4 rows at 512^3, the same bits.
  expect_same_bits("bench_lookahead_512_hip_kokkos.json", 4, recip);
  // Kokkos fp32 on 24 x 8 tiles, and fp64 with the z face above in registers (the tenth
  // session), beside HIP: 8 SoA rows with the same bits at 512^3 and at 256^3.
  std::map<std::string, std::set<std::string>> wide = recip;
  for (const std::string precision : {"fp64", "fp32"}) wide["256 " + precision] = beside_kokkos.at("256 " + precision);
  // Each row names the shape it ran on (config.fused_shape): Kokkos fp32 the wide tile, read first.
  const std::string first = ", lookahead read with the old values";
  std::map<std::string, std::string> shapes = {
      {"hip fp64", "20 x 8 columns, 256 threads a block, 3 blocks per multiprocessor, column states in shared memory"},
      {"hip fp32",
       "28 x 8 columns, 256 threads a block, 4 blocks per multiprocessor, column states in registers" + first},
      {"kokkos fp64",
       "16 x 4 columns, 128 threads a team, 5 teams per multiprocessor, column states in the team's scratch" + first},
      {"kokkos fp32",
       "24 x 8 columns, 256 threads a team, 4 teams per multiprocessor, column states in registers" + first}};
  expect_same_bits("bench_kokkos_wide_soa_hip_kokkos.json", 8, wide, shapes);
  // Kokkos fp64 on 16 x 6 tiles with the z states in registers and the lookahead read after the
  // stores (the eleventh session), beside HIP: the same bits, and the rows name that shape.
  shapes["kokkos fp64"] = "16 x 6 columns, 128 threads a team, 5 teams per multiprocessor, column states in registers";
  expect_same_bits("bench_kokkos_16x6_soa_hip_kokkos.json", 8, wide, shapes);
  // HLLC with three divisions and four square roots a face (the products form), and
  // bench.toml's gas moving (the twelfth session; hllc_divisions_trial.md): new bits. 12 rows at
  // 512^3 over the layouts with one checksum per precision; HIP beside Kokkos (8 SoA rows) with
  // the same bits at 512^3, and at 256^3 in fp64 after its 40 steps the benchmark's reference;
  // 1024^3 fp64 with a checksum of its own. The fp32 rows ran the products form too, which fp32
  // no longer takes (kernels/hydro.hpp: float's range), so no fp32 reference is theirs: they only
  // agree with each other.
  const auto hllc3 = new_bits_record("bench_hllc3_512_layouts.json", 12, recip, "three divisions a face");
  EXPECT_EQ(hllc3.size(), 2u);
  rows = 0;
  const auto beside = recorded_fused_checksums({"bench_hllc3_soa_hip_kokkos.json"}, rows);
  EXPECT_EQ(beside.at("256 fp32").size(), 1u);
  EXPECT_NE(*beside.at("256 fp32").begin(), hc::reference_checksum(256, "fp32", 40));
  std::map<std::string, std::set<std::string>> hllc3_both = hllc3;
  hllc3_both["256 fp64"] = {hc::reference_checksum(256, "fp64", 40)};
  hllc3_both["256 fp32"] = beside.at("256 fp32");
  expect_same_bits("bench_hllc3_soa_hip_kokkos.json", 8, hllc3_both, shapes);
  const auto hllc3_big = new_bits_record("bench_hllc3_1024_fp64.json", 1, recip_big, "three divisions a face");
  // fp32 back on the quotients form (the same session): 6 rows at 512^3 over the layouts, one
  // checksum, not the products form's.
  const auto quotients = new_bits_record("bench_hllc3_fp32_512_layouts.json", 6, hllc3, "fp32's quotients form");
  // The deck before, at rest (u = v = w = 0): split and fused agree, and its bits are not the
  // moving deck's.
  new_bits_record("bench_hllc3_at_rest_512.json", 4, hllc3, "the moving gas");
  // fp32 on the products form with its states scaled by a power of two, the products regrouped
  // in both precisions (the thirteenth session; fp32_rescaled_and_tile_trial.md): fp64's bits on
  // bench.toml unchanged, fp32's new, neither the quotients form's nor the unscaled products
  // form's. 12 rows at 512^3 over the layouts, HIP fp32 on its 27 x 8 tile; HIP beside Kokkos (8
  // SoA rows, HIP fp32 still on 28 x 8) with the same bits, at 256^3 the benchmark's references.
  rows = 0;
  const auto rescaled = recorded_fused_checksums({"bench_rescaled_512_layouts.json"}, rows);
  EXPECT_EQ(rows, 12u);
  EXPECT_EQ(rescaled.at("512 fp64"), hllc3.at("512 fp64"));
  const std::map<std::string, std::set<std::string>> rescaled_fp32 = {{"512 fp32", rescaled.at("512 fp32")}};
  expect_new_bits(rescaled_fp32, quotients, "fp32 on scaled states");
  expect_new_bits(rescaled_fp32, hllc3, "the regrouped products");
  const std::string tile27 =
      "27 x 8 columns, 256 threads a block, 4 blocks per multiprocessor, column states in registers" + first;
  expect_fused_shapes("bench_rescaled_512_layouts.json", tile27, shapes.at("hip fp64"));
  std::map<std::string, std::set<std::string>> rescaled_both = rescaled;
  for (const std::string precision : {"fp64", "fp32"})
    rescaled_both["256 " + precision] = {hc::reference_checksum(256, precision, 40)};
  expect_same_bits("bench_rescaled_soa_hip_kokkos.json", 8, rescaled_both, shapes);
  // A cell's five slopes skipped with one branch where all are flat, minmod and MC as selects,
  // and HIP fp32's x and y faces in bodies of their own (the fourteenth session;
  // cellslopes_and_prefetch_trial.md): the same bits. 12 rows at 512^3 over the layouts, HIP
  // fp32's rows naming the new shape; HIP beside Kokkos (8 SoA rows), at 256^3 the references.
  expect_same_bits("bench_cellslopes_512_layouts.json", 12, rescaled);
  const std::string fixed_frames = tile27 + ", x and y faces in bodies of their own";
  expect_fused_shapes("bench_cellslopes_512_layouts.json", fixed_frames, shapes.at("hip fp64"));
  shapes["hip fp32"] = fixed_frames;
  expect_same_bits("bench_cellslopes_soa_hip_kokkos.json", 8, rescaled_both, shapes);
  // 1024^3 fused in both precisions on the same code: fp64's bits the twelfth session's record's
  // (their rows carry no grid.n, so both files key them as 512), fp32 one checksum of its own.
  rows = 0;
  const auto rescaled_big = recorded_fused_checksums({"bench_rescaled_1024.json"}, rows);
  EXPECT_EQ(rows, 2u);
  EXPECT_EQ(rescaled_big.at("512 fp64"), hllc3_big.at("512 fp64"));
  ASSERT_EQ(rescaled_big.at("512 fp32").size(), 1u);
  EXPECT_EQ(rescaled.at("512 fp32").count(*rescaled_big.at("512 fp32").begin()), 0u) << "1024^3 gave 512^3's bits?";
  // The twenty-eighth session's records at 555263a (docs/benchmarks.md): every change since the
  // fourteenth kept the bits (fp32's lists in chunks and fast roots, fp64's 32-bit indices and
  // more). 12 rows at 512^3 over the layouts, HIP fp32's rows naming its chunked lists; HIP beside
  // Kokkos at 256^3 and 512^3, split and fused (16 SoA rows), at 256^3 the references; 1024^3
  // fused in both precisions with the bits of the 1024^3 record above.
  expect_same_bits("bench_555263a_512_layouts.json", 12, rescaled);
  const std::string chunked = fixed_frames + ", lists in 16-byte chunks";
  expect_fused_shapes("bench_555263a_512_layouts.json", chunked, shapes.at("hip fp64"));
  shapes["hip fp32"] = chunked;
  shapes["kokkos fp32"] = "24 x 8 columns, 256 threads a team, 4 teams per multiprocessor, column states in registers" +
                          first + ", x and y faces in bodies of their own";
  expect_same_bits("bench_555263a_soa_hip_kokkos.json", 16, rescaled_both, shapes);
  expect_same_bits("bench_555263a_1024.json", 2, rescaled_big);
}

// Split against fused on small grids on the H200 (tests/data/h200/fused/small_grids_split_fused.*,
// the sixth session's kept tile shapes): fused slower at 32^3 and 64^3 and faster at 128^3 in
// both precisions, which is where `--kernels auto` switches on HIP (app/select.cpp); and each
// grid and precision one checksum.
TEST(Probe, RecordedH200SmallGridsPlaceTheAutoKernelsThreshold) {
  std::size_t rows = 0;
  const auto sums = recorded_fused_checksums({"small_grids_split_fused.json"}, rows);
  EXPECT_EQ(rows, 12u);
  for (const auto& [config, seen] : sums) EXPECT_EQ(seen.size(), 1u) << config;
  const nlohmann::json bench = recorded_fused_bench("small_grids_split_fused.json");
  std::map<std::string, double> ms;  // "N precision kernels" -> median ms
  for (const auto& row : bench["rows"]) {
    const auto& v = row["values"];
    ms[v["grid.n"].get<std::string>() + " " + v["precision"].get<std::string>() + " " +
       v["kernels"].get<std::string>()] = row["step_s"]["median"].get<double>() * 1e3;
  }
  for (const std::string precision : {"fp64", "fp32"}) {
    for (const std::string n : {"32", "64"})
      EXPECT_GT(ms.at(n + " " + precision + " fused"), 2 * ms.at(n + " " + precision + " split")) << n << precision;
    EXPECT_LT(ms.at("128 " + precision + " fused"), ms.at("128 " + precision + " split")) << precision;
  }
  hc::Config c = hc::load_deck(std::string(HALOCLINE_SOURCE_DIR) + "/inputs/bench.toml", {"grid.n=128"});
  c.backend = hc::BackendKind::Hip;
  EXPECT_EQ(hc::choose_kernels(c, {1, 1, 1}), hc::KernelStrategy::Fused);
  c.n = {64, 64, 64};
  EXPECT_EQ(hc::choose_kernels(c, {1, 1, 1}), hc::KernelStrategy::Split);
}

// What runs cost outside their step loop on the H200 (tests/data/h200/outside_loop/,
// tools/gpu/outside_loop.sh): at 512^3 fp64 at most 1 s outside the loop and 4 s in all for
// 30 steps; 1024^3 runs in fp32 (split and fused) and fp64 (fused); the kernels give one
// checksum per grid and precision; one size too big for the device is refused in one line
// that names the largest grid that fits.
// A recorded run's report, checked against the run schema.
nlohmann::json recorded_report(const std::string& path) {
  std::ifstream in(path);
  const nlohmann::json j = nlohmann::json::parse(in);
  EXPECT_EQ(hc::test::schema_violation(j, hc::test::load_schema("run")), "") << path;
  return j;
}

TEST(Probe, RecordedH200OutsideTheLoop) {
  const std::string dir = std::string(HALOCLINE_SOURCE_DIR) + "/tests/data/h200/outside_loop/";
  auto report = [&](const std::string& name) { return recorded_report(dir + name + ".json"); };
  auto outside = [](const nlohmann::json& j) {
    double sum = 0;
    for (const auto& [part, seconds] : j["outside_loop_s"].items()) sum += seconds.get<double>();
    return sum;
  };
  for (const char* kernels : {"split", "fused"}) {
    const nlohmann::json j = report(std::string("n512_fp64_") + kernels);
    EXPECT_EQ(j["steps"], 30) << kernels;
    EXPECT_LE(outside(j), 1.0) << kernels;
    EXPECT_LE(j["wall_s"].get<double>(), 4.0) << kernels;
    EXPECT_LE(j["host_bytes_peak"]["max_rss"].get<double>(), 1e9) << kernels;  // no host copy of the state
  }
  EXPECT_EQ(report("n512_fp64_split")["checksum"], report("n512_fp64_fused")["checksum"]);
  EXPECT_EQ(report("n1024_fp32_split")["checksum"], report("n1024_fp32_fused")["checksum"]);
  EXPECT_EQ(report("n1024_fp64_fused")["steps"], 4);
  // The fused fp64 path's arrays: at most 130 bytes per cell (issue 17), so 1024^3 fits.
  EXPECT_LE(report("n1024_fp64_fused")["bytes_allocated"].get<double>(), 130.0 * 1024 * 1024 * 1024);
  std::ifstream refused(dir + "n1100_fp64_fused.log");
  const std::string text((std::istreambuf_iterator<char>(refused)), std::istreambuf_iterator<char>());
  EXPECT_NE(text.find("exit code 2"), std::string::npos) << text;
  EXPECT_NE(text.find("the largest grid of this shape that fits the device: "), std::string::npos) << text;
}

// The same machine writing files (tools/gpu/outside_loop.sh ... files): the host holds the
// file's bytes and small buffers (at most 0.5 GB besides, the process's own 0.22 GB among
// them), never another copy of the state, so 1024^3 fp64 with a final snapshot runs (it was
// refused: 160 GiB of host copies); a restart reads its state slab by slab and ends, bit for
// bit, where the same 40 steps in one run end; files change no checksum.
TEST(Probe, RecordedH200Files) {
  const std::string dir = std::string(HALOCLINE_SOURCE_DIR) + "/tests/data/h200/outside_loop/";
  auto report = [&](const std::string& name) { return recorded_report(dir + name + ".json"); };
  auto rss = [](const nlohmann::json& j) { return j["host_bytes_peak"]["max_rss"].get<double>(); };
  for (int n : {512, 1024})
    for (const char* precision : {"fp64", "fp32"}) {
      const std::string name = "f" + std::to_string(n) + "_" + precision + "_final";
      const nlohmann::json j = report(name);
      ASSERT_EQ(j["snapshots"].size(), 1u) << name;
      const double file = 5.0 * n * n * n * (std::string(precision) == "fp64" ? 8 : 4);
      EXPECT_GE(rss(j), file) << name;
      EXPECT_LE(rss(j), file + 0.5e9) << name;
    }
  const nlohmann::json checkpoint = report("f512_fp64_checkpoint");
  EXPECT_LE(rss(checkpoint), 5.0 * 512 * 512 * 512 * 8 + 0.5e9);
  EXPECT_EQ(checkpoint["checksum"], report("f512_fp64_final")["checksum"]);
  EXPECT_EQ(checkpoint["checksum"], report("n512_fp64_fused")["checksum"]);  // the run without files
  const nlohmann::json restart = report("f512_fp64_restart"), straight = report("f512_fp64_straight");
  EXPECT_EQ(restart["steps"], 40);
  EXPECT_EQ(restart["checksum"], straight["checksum"]);
  EXPECT_LE(rss(restart), 0.5e9);
}

// The traced step's timeline: every call of one step, each on the stream it ran in, all
// within the step and in submission order on each stream; with overlap the exchange is on
// the halo stream, otherwise everything device-side is on the compute stream.
TEST(ProbeTimeline, EveryCallOfTheTracedStepIsOnItsStream) {
  for (const char* halo : {"none", "sync", "overlap"}) {
    SCOPED_TRACE(halo);
    hc::Config c = hc::load_deck(std::string(HALOCLINE_SOURCE_DIR) + "/inputs/bench.toml",
                                 {"grid.n=12", std::string("run.halo=") + halo});
    c.max_steps = 5;
    const hc::RunResult r = hc::run_quietly(c);
    EXPECT_EQ(r.traced_step, 2);
    ASSERT_FALSE(r.timeline.empty());
    double step_end = 0;
    std::map<std::string, double> last_end;
    int exchange = 0, on_halo = 0;
    for (const hc::TraceEvent& e : r.timeline) {
      EXPECT_GE(e.start_s, -1e-6) << e.phase;
      EXPECT_GE(e.end_s, e.start_s) << e.phase;
      EXPECT_LT(e.end_s, 10.0) << e.phase;  // seconds since the step began, not since boot
      EXPECT_TRUE(e.stream == "compute" || e.stream == "halo" || e.stream == "host") << e.stream;
      EXPECT_GE(e.start_s, last_end[e.stream] - 1e-6) << e.phase << " starts before the call before it ends";
      last_end[e.stream] = e.end_s;
      step_end = std::max(step_end, e.end_s);
      const bool is_exchange =
          e.phase.find(".pack") != std::string::npos || e.phase.find(".unpack") != std::string::npos;
      exchange += is_exchange;
      on_halo += is_exchange && e.stream == "halo";
    }
    EXPECT_EQ(r.timeline.front().phase, "dt_reduction");
    EXPECT_EQ(exchange > 0, std::string(halo) != "none");
    EXPECT_EQ(on_halo, std::string(halo) == "overlap" ? exchange : 0);
  }
}

TEST(ProbeInfo, DescribesTheDeviceAndTheBuild) {
  const nlohmann::json info = hc::info_json(hc::describe_device(probed_backend(), 0, "info"));
  EXPECT_EQ(hc::test::schema_violation(info, hc::test::load_schema("run")["properties"]["info"]), "");
  EXPECT_NE(info["build"]["backends"].get<std::string>().find(probed_backend()), std::string::npos);
  EXPECT_FALSE(info["build"]["cxx_compiler"].get<std::string>().empty());
  if (probed_backend() == "hip") {
    EXPECT_EQ(info["device"]["kind"], "gpu");
    EXPECT_GT(info["device"]["memory_bytes"].get<double>(), 0);
    EXPECT_GT(info["device"]["clock_khz"].get<double>(), 0);
    EXPECT_FALSE(info["device"]["pci_bus_id"].get<std::string>().empty());
  } else {  // a host backend's runtime tells no clocks: null, not a clock of 0
    EXPECT_EQ(info["device"]["kind"], "cpu");
    for (const char* key : {"clock_khz", "memory_clock_khz", "memory_bus_bits"})
      EXPECT_TRUE(info["device"][key].is_null()) << key << ": " << info["device"].dump();
  }
}

}  // namespace
