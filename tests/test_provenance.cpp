// The run's provenance (app/provenance.cpp, io/provenance_record.hpp): the machine as its own tools
// describe it (lscpu, uname, /proc/meminfo), the date now in UTC, a command line that a
// shell runs as the same words, one record through JSON and back against its schema, and a
// GPU named only where the backend runs on one. (Every output carrying the record:
// test_cli.cpp; the HDF5 group: test_snapshot.cpp, test_checkpoint.cpp.)
#include <gtest/gtest.h>
#include <hdf5.h>

#include <cstdio>
#include <ctime>
#include <filesystem>
#include <fstream>
#include <regex>
#include <string>
#include <vector>

#include "app/provenance.hpp"
#include "tests/schema_check.hpp"

namespace hc = halocline;

namespace {

// What a shell command prints on its stdout, without the last line end ("" when it fails).
std::string output_of(const std::string& command) {
  std::string out;
  if (FILE* pipe = popen(command.c_str(), "r")) {
    char buffer[4096];
    std::size_t got = 0;
    while ((got = std::fread(buffer, 1, sizeof buffer, pipe)) > 0) out.append(buffer, got);
    if (pclose(pipe) != 0) out.clear();
  }
  while (!out.empty() && out.back() == '\n') out.pop_back();
  return out;
}

// The value of lscpu's line "KEY: VALUE".
std::string lscpu_field(const std::string& lscpu, const std::string& key) {
  std::smatch m;
  const std::regex line("(^|\n)" + std::regex_replace(key, std::regex(R"([()])"), R"(\$&)") + ": *([^\n]*)");
  return std::regex_search(lscpu, m, line) ? m[2].str() : "<no " + key + ">";
}

std::int64_t meminfo_total_bytes() {
  std::ifstream in("/proc/meminfo");
  std::string key;
  std::int64_t kib = 0;
  while (in >> key >> kib)
    if (key == "MemTotal:") return kib * 1024;
  return -1;
}

}  // namespace

TEST(Provenance, DescribesThisMachineAsItsOwnToolsDo) {
  const hc::Provenance p = hc::make_provenance({"halocline", "info"});
  EXPECT_EQ(p.memory_bytes, meminfo_total_bytes());
  EXPECT_EQ(p.os, output_of("uname -srm"));
  EXPECT_EQ(p.host, output_of("uname -n"));
  EXPECT_EQ(p.working_directory, std::filesystem::current_path().string());
  EXPECT_EQ(p.gpu, "none");  // until a GPU backend's device is added
  EXPECT_EQ(p.gpu_driver, "none");
  EXPECT_EQ(p.hdf5.rfind(std::to_string(H5_VERS_MAJOR) + "." + std::to_string(H5_VERS_MINOR) + ".", 0), 0u) << p.hdf5;
#if defined(__GNUC__) && !defined(__clang__)
  EXPECT_EQ(p.cxx_compiler, std::string("GNU ") + __VERSION__);
#endif
#if defined(HALOCLINE_HAVE_MPI)
  EXPECT_TRUE(std::regex_search(p.mpi, std::regex(R"(^.+ \(MPI standard [0-9]+\.[0-9]+\)$)"))) << p.mpi;
#else
  EXPECT_EQ(p.mpi, "none");
#endif
  const std::string lscpu = output_of("LC_ALL=C lscpu 2>/dev/null");
  if (lscpu.empty()) GTEST_SKIP() << "no lscpu (util-linux) to compare the CPU with";
  EXPECT_EQ(p.cpu_model, lscpu_field(lscpu, "Model name"));
  EXPECT_EQ(p.cpu_threads, std::stol(lscpu_field(lscpu, "CPU(s)")));
  EXPECT_EQ(p.cpu_cores,
            std::stol(lscpu_field(lscpu, "Socket(s)")) * std::stol(lscpu_field(lscpu, "Core(s) per socket")));
}

TEST(Provenance, DateIsNowInUtcAndTheVersionIsTheBuilds) {
  const std::time_t before = std::time(nullptr);
  const hc::Provenance p = hc::make_provenance({"halocline", "info"});
  const std::time_t after = std::time(nullptr);
  std::tm utc{};
  ASSERT_NE(strptime(p.date.c_str(), "%Y-%m-%dT%H:%M:%SZ", &utc), nullptr) << p.date;
  EXPECT_EQ(p.date.size(), 20u) << p.date;
  const std::time_t at = timegm(&utc);
  EXPECT_GE(at, before) << p.date;
  EXPECT_LE(at, after) << p.date;
  EXPECT_EQ(p.version, HALOCLINE_VERSION);
  EXPECT_TRUE(std::regex_match(p.commit, std::regex("[0-9a-f]{12}|unknown"))) << p.commit;
}

// Plain words stay as they are; any other is single-quoted so that /bin/sh hands the
// program the same words again.
TEST(Provenance, ShellCommandRunsAsTheSameWords) {
  EXPECT_EQ(hc::shell_command(
                {"build/bin/halocline", "run", "inputs/sod.toml", "--set", "grid.nx=64", "--out", "out/sod-1,2:3+@%^"}),
            "build/bin/halocline run inputs/sod.toml --set grid.nx=64 --out out/sod-1,2:3+@%^");
  const std::vector<std::string> words = {
      "run", "my deck.toml", "problem.type='sod'", "", "$HOME", "a\"b", "*", "tab\there", "x;y", "~", "back\\slash"};
  EXPECT_EQ(hc::shell_command({"a b", "it's"}), "'a b' 'it'\\''s'");
  std::string expected;
  for (const std::string& w : words) expected += "[" + w + "]\n";
  expected.pop_back();
  EXPECT_EQ(output_of("printf '[%s]\\n' " + hc::shell_command(words)), expected);
}

TEST(Provenance, JsonCarriesEveryFieldAndReadsBack) {
  const hc::Provenance p = hc::make_provenance({"halocline", "bench", "inputs/bench.toml"});
  const nlohmann::json j = hc::provenance_json(p);
  EXPECT_EQ(hc::test::schema_violation(j, hc::test::load_schema("provenance")), "");
  EXPECT_EQ(j.size(), 18u);
  EXPECT_EQ(j.at("command_line"), "halocline bench inputs/bench.toml");
  EXPECT_EQ(j.at("tree_clean").type(), nlohmann::json::value_t::boolean);
  EXPECT_EQ(hc::provenance_json(hc::provenance_from_json(j)), j);
  // The schema does catch a date that is not UTC ISO 8601, a short commit, a missing field.
  nlohmann::json bad = j;
  bad["date"] = "2026-12-02 03:09:32";
  EXPECT_NE(hc::test::schema_violation(bad, hc::test::load_schema("provenance")), "");
  bad = j;
  bad["commit"] = "9d0b3b6";
  EXPECT_NE(hc::test::schema_violation(bad, hc::test::load_schema("provenance")), "");
  bad = j;
  bad.erase("cpu_model");
  EXPECT_EQ(hc::test::schema_violation(bad, hc::test::load_schema("provenance")), "$: missing 'cpu_model'");
}

TEST(Provenance, NamesAGpuOnlyWhereTheBackendRunsOnOne) {
  hc::Provenance p = hc::make_provenance({"halocline"});
  hc::DeviceInfo cpu;
  cpu.kind = "cpu";
  cpu.name = "Serial";
  hc::add_device(p, cpu);
  EXPECT_EQ(p.gpu, "none");
  EXPECT_EQ(p.gpu_driver, "none");
  hc::DeviceInfo gpu;
  gpu.kind = "gpu";
  gpu.name = "NVIDIA H200";
  gpu.pci_bus_id = "0000:18:00.0";
  gpu.driver_version = "CUDA driver API 13.0";
  hc::add_device(p, gpu);
  EXPECT_EQ(p.gpu, "NVIDIA H200 (PCI 0000:18:00.0)");
  std::ifstream module("/sys/module/nvidia/version");
  std::string version;
  if (std::getline(module, version))  // a machine with NVIDIA's kernel driver names it too
    EXPECT_EQ(p.gpu_driver, "CUDA driver API 13.0, NVIDIA kernel driver " + version);
  else if (!std::filesystem::exists("/sys/module/amdgpu/version"))
    EXPECT_EQ(p.gpu_driver, "CUDA driver API 13.0");
}
