// `halocline benchmark` (app/benchmark.cpp): the run rules it checks, the reference table it
// carries, the size it chooses, and the command itself as a vendor runs it: on every core,
// compliant, matching the references; refused in one line when a rule is broken; marked
// non-compliant everywhere when asked to run anyway.
#include <gtest/gtest.h>
#include <sys/stat.h>

#include <algorithm>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <nlohmann/json.hpp>
#include <set>
#include <sstream>
#include <string>

#include "app/benchmark.hpp"
#include "app/benchmark_output.hpp"
#include "app/provenance.hpp"
#include "app/references.hpp"
#include "app/select.hpp"
#include "io/deck.hpp"
#include "schema_check.hpp"
#include "test_support.hpp"

namespace hc = halocline;
namespace fs = std::filesystem;

namespace {

std::string read_text(const fs::path& p) {
  std::ifstream in(p);
  std::ostringstream ss;
  ss << in.rdbuf();
  return ss.str();
}

// A setting that keeps every rule: 2 ranks of 1 thread on 2 cores, a defined size.
hc::BenchmarkSetting good_setting() {
  hc::BenchmarkSetting s;
  s.ranks = 2, s.threads_per_rank = 1, s.cpu_cores = 2, s.with_mpi = true;
  s.cxx_flags = "-O3 -ffp-contract=off";
  s.size = 32;
  s.reference_sizes = s.defined_sizes = {32, 64};
  return s;
}

std::string joined(const std::vector<std::string>& lines) {
  std::string text;
  for (const std::string& l : lines) text += l + "\n";
  return text;
}

TEST(Benchmark, KeepsEveryRuleWithDefaults) {
  EXPECT_EQ(joined(hc::broken_run_rules(hc::BenchmarkOptions{}, good_setting(), "halocline benchmark")), "");
}

TEST(Benchmark, NamesEachBrokenRule) {
  hc::BenchmarkOptions o;
  o.repeat = 1, o.steps = 1, o.min_time_s = 0.5;
  hc::BenchmarkSetting s = good_setting();
  s.ranks = 1, s.cxx_flags = "-O3", s.size = 48, s.reference_sizes = {};
  // The suggested line leaves out the options that broke rules 4 and 2, in either form CLI11
  // reads: 48^3 has no reference at any length, so the benchmark is to choose the size.
  const std::vector<std::string> broken =
      hc::broken_run_rules(o, s, "halocline benchmark --repeat 1 --size 48 --steps=1 --min-time 0.5 --non-compliant");
  ASSERT_EQ(broken.size(), 6u) << joined(broken);
  EXPECT_EQ(broken[0], "run rule 4: --repeat 1 is below the 3 repetitions the rule asks");
  EXPECT_EQ(broken[1], "run rule 4: --steps 1 is below the 12 steps per repetition the rule asks");
  EXPECT_EQ(broken[2], "run rule 4: --min-time 0.5 is below the 5 s of timed steps per configuration the rule asks");
  EXPECT_EQ(broken[3],
            "run rule 5: 1 rank(s) x 1 thread(s) on 2 cores; run one rank per core: mpirun -n 2 halocline "
            "benchmark");
  EXPECT_EQ(broken[4].rfind("run rule 1: this binary was built without strict floating point", 0), 0u);
  EXPECT_EQ(broken[5],
            "run rule 2: no reference checksum for 48^3 after 5 steps (--size, --repeat, --steps); the "
            "references have sizes 32, 64 for --repeat 3 --steps 12");
}

// The line rule 5 suggests keeps rule 2 too: a length with no reference at a size that has one
// loses --repeat and --steps (the references are of their product) and keeps the size;
// --min-time is said as given.
TEST(Benchmark, RuleFivesLineKeepsRuleTwo) {
  hc::BenchmarkOptions o;
  o.repeat = 5, o.min_time_s = 4.9999999;
  hc::BenchmarkSetting s = good_setting();
  s.ranks = 1, s.reference_sizes = {};
  EXPECT_EQ(joined(hc::broken_run_rules(o, s, "x --size 32 --repeat 5 --steps 12 --min-time 4.9999999")),
            "run rule 4: --min-time 4.9999999 is below the 5 s of timed steps per configuration the rule asks\n"
            "run rule 5: 1 rank(s) x 1 thread(s) on 2 cores; run one rank per core: mpirun -n 2 x --size 32\n"
            "run rule 2: no reference checksum for 32^3 after 64 steps (--size, --repeat, --steps); the references "
            "have sizes 32, 64 for --repeat 3 --steps 12\n");
  // 6 x 6 steps are the references' 3 x 12 (rule 2 kept), but --steps 6 breaks rule 4: both
  // lengths go, as --repeat 6 alone would run 6 x 12, which has none.
  o = {};
  o.repeat = 6, o.steps = 6;
  s.reference_sizes = {32, 64};
  EXPECT_EQ(hc::broken_run_rules(o, s, "x --repeat 6 --size 32 --steps 6").at(1),
            "run rule 5: 1 rank(s) x 1 thread(s) on 2 cores; run one rank per core: mpirun -n 2 x --size 32");
}

TEST(Benchmark, RuleFiveWantsEveryCoreOnceOnACpuAndOneRankPerGpu) {
  hc::BenchmarkSetting s = good_setting();
  s.ranks = 4;  // oversubscribed
  // The line to run, without the --non-compliant that let this one run.
  EXPECT_EQ(joined(hc::broken_run_rules({}, s, "x --non-compliant --size 32")),
            "run rule 5: 4 rank(s) x 1 thread(s) on 2 cores; run one rank per core: mpirun -n 2 x --size 32\n");
  s.ranks = 1, s.threads_per_rank = 4;  // an OpenMP Kokkos, oversubscribed
  EXPECT_EQ(joined(hc::broken_run_rules({}, s, "x")),
            "run rule 5: 1 rank(s) x 4 thread(s) on 2 cores; run one thread per core, once (OMP_NUM_THREADS)\n");
  s.ranks = 1, s.threads_per_rank = 2;  // an OpenMP Kokkos: threads on every core
  EXPECT_EQ(joined(hc::broken_run_rules({}, s, "x")), "");
  s.on_gpu = true, s.threads_per_rank = 1;  // one rank per GPU: the cores are not the rule
  EXPECT_EQ(joined(hc::broken_run_rules({}, s, "x")), "");
  s.node_ranks = s.ranks = 2;  // two ranks share the node's one GPU
  EXPECT_EQ(joined(hc::broken_run_rules({}, s, "x")),
            "run rule 5: 2 rank(s) on a node with 1 GPU(s); run one rank per GPU: mpirun -n 1 x\n");
  s.node_gpus = 4, s.ranks = 4;  // two nodes of 4 GPUs, 2 ranks on each: half the GPUs idle
  EXPECT_EQ(joined(hc::broken_run_rules({}, s, "x")),
            "run rule 5: 2 rank(s) on a node with 4 GPU(s); run one rank per GPU: 4 ranks on each node\n");
  s.node_ranks = s.ranks = 1, s.with_mpi = false;
  EXPECT_EQ(joined(hc::broken_run_rules({}, s, "x")),
            "run rule 5: 1 rank(s) on a node with 4 GPU(s); run one rank per GPU: this build has no MPI (configure it "
            "with MPI)\n");
  s.node_ranks = s.ranks = 4, s.with_mpi = true;
  EXPECT_EQ(joined(hc::broken_run_rules({}, s, "x")), "");
}

// A configuration that the cap on runs stopped before the rule's 5 s (32^3 on a GPU: 1000 runs
// timed 4.6 s on the H200) breaks rule 4 and says so; one that timed enough, or a --min-time
// the user lowered (already a broken rule), adds nothing.
TEST(Benchmark, RunsStoppedShortOfTheMinimumTimeBreakRuleFour) {
  hc::BenchmarkConfiguration bc;
  bc.name = "soa fp64", bc.runs = hc::kMaxRunsPerConfiguration, bc.timed_s = 4.5;
  EXPECT_EQ(hc::timed_short_of_rule_4(hc::BenchmarkOptions{}, bc),
            "run rule 4: soa fp64 timed 4.5 s in 1000 runs (the most a configuration makes), below the 5 s the "
            "rule asks; a larger --size reaches it");
  hc::BenchmarkOptions lowered;
  lowered.min_time_s = 1;
  EXPECT_EQ(hc::timed_short_of_rule_4(lowered, bc), "");
  bc.timed_s = 5.01;
  EXPECT_EQ(hc::timed_short_of_rule_4(hc::BenchmarkOptions{}, bc), "");
}

// `halocline benchmark --backend hip` as recorded on the H200 (tests/data/h200/benchmark): a
// valid, compliant result whose GPU checksums are the references made on the CPU.
TEST(Benchmark, RecordedH200ResultIsCompliantWithTheCpuReferences) {
  const nlohmann::json j =
      nlohmann::json::parse(read_text(fs::path(HALOCLINE_SOURCE_DIR) / "tests/data/h200/benchmark/benchmark.json"));
  EXPECT_EQ(hc::test::schema_violation(j, hc::test::load_schema("benchmark")), "");
  EXPECT_TRUE(j.at("compliant").get<bool>());
  for (const nlohmann::json& c : j.at("configurations")) {
    EXPECT_EQ(c.at("checksum"), hc::reference_checksum(256, c.at("precision").get<std::string>(), 40)) << c["name"];
    EXPECT_GE(c.at("timed_s").get<double>(), hc::kRuleMinTimeS);
    // Recorded after `--kernels auto` took fused on HIP from 128^3 (the sixth session).
    EXPECT_EQ(c.at("config").at("kernels"), "fused") << c["name"];
  }
}

TEST(Benchmark, ReferenceTableHasTheDefinedSizesInBothPrecisions) {
  const std::vector<int> sizes = hc::reference_sizes(40);
  ASSERT_GE(sizes.size(), 3u);
  EXPECT_EQ(sizes[0], 32);
  EXPECT_EQ(sizes[1], 64);
  EXPECT_EQ(sizes[2], 128);
  EXPECT_EQ(hc::reference_checksum(32, "fp64", 40), "5a2062605b55a89a");
  EXPECT_EQ(hc::reference_checksum(32, "fp32", 40), "4e3b6b8b306a97ab");
  EXPECT_EQ(hc::reference_checksum(32, "fp64", 41), "");
  EXPECT_TRUE(hc::reference_sizes(41).empty());
}

TEST(Benchmark, ReferenceTableRefusesAMalformedLine) {
  EXPECT_EQ(hc::parse_reference_checksums("# comment\n\nbench.toml 8 fp64 40 0123456789abcdef\n").size(), 1u);
  try {
    hc::parse_reference_checksums("bench.toml 8 fp64 40 0123456789abcdef\nbench.toml 8 fp64 40\n");
    FAIL() << "a line without its checksum was accepted";
  } catch (const hc::DeckError& e) {
    EXPECT_EQ(std::string(e.what()),
              "reference checksums, line 2: expected 'deck size precision steps checksum', got 'bench.toml 8 fp64 40'");
  }
}

TEST(Benchmark, ChoosesTheLargestSizeInAQuarterOfTheMemory) {
  hc::DeviceInfo cpu;
  cpu.kind = "cpu";
  std::string why;
  // bench.toml's fp64 state at 64^3 with its copies is some tens of MB; 128^3 several
  // hundred: 1 GiB of memory (a quarter: 256 MiB) holds the first only.
  EXPECT_EQ(hc::choose_size({32, 64, 128}, "kokkos", cpu, std::int64_t(1) << 30, 1, why), 64);
  EXPECT_EQ(why, "the largest reference size whose fp64 run fits in a quarter of the node's memory (268435456 bytes)");
  EXPECT_EQ(hc::choose_size({32, 64, 128}, "kokkos", cpu, std::int64_t(64) << 30, 1, why), 128);
  EXPECT_EQ(hc::choose_size({32, 64, 128}, "kokkos", cpu, 1000, 1, why), 32);  // none fits: the smallest
}

// The collectives benchmark counts a job's GPUs with (each rank's GPU by its identity, the
// distinct ones counted: app/report.hpp's devices_driven), in one process: itself.
TEST(Benchmark, GathersEachRanksDeviceInRankOrder) {
  EXPECT_EQ(hc::gather_over_ranks("node0 0000:19:00.0"), std::vector<std::string>{"node0 0000:19:00.0"});
  EXPECT_EQ(hc::rank_on_this_node(), 0);
  EXPECT_EQ(hc::ranks_on_this_node(), 1);
}

// The Open MPI and PMIx variables of this process's environment, as name=value lines.
std::set<std::string> mpi_variables() {
  std::set<std::string> found;
  for (char** e = environ; *e; ++e) {
    const std::string entry = *e;
    if (entry.rfind("OMPI_", 0) == 0 || entry.rfind("PMIX_", 0) == 0) found.insert(entry);
  }
  return found;
}

// Those the user's environment had, taken before main() starts MPI (test_main.cpp): the
// machine's own settings (e.g. OMPI_MCA_plm_rsh_agent where there is no ssh) stay set for
// the commands the tests run.
const std::set<std::string> kMpiVariablesBeforeInit = mpi_variables();

// `unset` for each variable that MPI's initialisation of this process added: an mpirun or
// a singleton started from here must not see this job's variables, or it takes itself for
// a part of that job.
std::string unset_this_jobs_mpi_variables() {
  std::string command;
  for (const std::string& entry : mpi_variables())
    if (!kMpiVariablesBeforeInit.count(entry)) command += "unset " + entry.substr(0, entry.find('=')) + "; ";
  return command;
}

// The ranks run rule 5 asks of the default backend here: one per core on a CPU, one per GPU.
long rule_five_ranks() {
  const hc::DeviceInfo d = hc::describe_device(hc::backend_name(hc::default_backend()), 0, "benchmark");
  return d.kind == "gpu" ? d.devices_visible : hc::make_provenance({"halocline"}).cpu_cores;
}

// The command as a user runs it: the binary, in a fresh directory, stdout and stderr kept.
class BenchmarkCommand : public ::testing::Test {
 protected:
  void SetUp() override { fs::create_directories(dir_); }
  // Exit status of `[LAUNCHER] halocline benchmark ARGS` run from dir_.
  int run(const std::string& args, const std::string& launcher = "") {
    const std::string command = unset_this_jobs_mpi_variables() + "cd '" + dir_.string() + "' && " + launcher + " '" +
                                HALOCLINE_BINARY + "' benchmark " + args + " > stdout.txt 2> stderr.txt";
    const int status = std::system(command.c_str());
    out_ = read_text(dir_ / "stdout.txt"), err_ = read_text(dir_ / "stderr.txt");
    return WIFEXITED(status) ? WEXITSTATUS(status) : -1;
  }
  hc::test::TempDir temp_{"benchmark_command"};  // removed with the test
  const fs::path dir_ = temp_.path();
  std::string out_, err_;
};

long cores() { return hc::make_provenance({"halocline"}).cpu_cores; }

// `mpirun -n N` as this build's tests launch it; empty without MPI.
std::string mpirun(long ranks) {
  const std::string mpiexec = HALOCLINE_MPIEXEC;
  if (mpiexec.empty()) return "";
  return "OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1 '" + mpiexec + "' --oversubscribe -n " +
         std::to_string(ranks);
}

// One rank per core of the CPU, or per GPU with a GPU backend: what the vendor launches. A
// GPU runs 32^3 too fast to time the rule's 5 s within the cap on runs: there the size a GPU
// node chooses, 256^3.
TEST_F(BenchmarkCommand, RunsCompliantlyOnTheWholeNodeAndMatchesTheReferences) {
  const long ranks = rule_five_ranks();
  const std::string launcher = mpirun(ranks);
  if (launcher.empty()) GTEST_SKIP() << "built without MPI: one rank per core needs mpirun";
  const bool gpu = hc::describe_device(hc::backend_name(hc::default_backend()), 0, "benchmark").kind == "gpu";
  const int size = gpu ? 256 : 32;
  ASSERT_EQ(run("--size " + std::to_string(size) + " --out result", launcher), 0) << out_ << err_;
  const nlohmann::json j = nlohmann::json::parse(read_text(dir_ / "result/benchmark.json"));
  EXPECT_EQ(hc::test::schema_violation(j, hc::test::load_schema("benchmark")), "");
  EXPECT_TRUE(j.at("compliant").get<bool>()) << j.at("non_compliant_reasons").dump();
  EXPECT_EQ(j.at("execution").at("ranks").get<long>(), ranks);
  const std::string checksums[2] = {hc::reference_checksum(size, "fp64", 40), hc::reference_checksum(size, "fp32", 40)};
  ASSERT_NE(checksums[0], "");
  for (int i = 0; i < 2; ++i) {
    const nlohmann::json& c = j.at("configurations").at(i);
    EXPECT_EQ(c.at("checksum"), checksums[i]);
    EXPECT_EQ(c.at("checksum_matches"), true);
    EXPECT_GE(c.at("timed_s").get<double>(), hc::kRuleMinTimeS);
    EXPECT_EQ(c.at("repetitions_s").size(), 3u * c.at("runs").get<std::size_t>());
    // The FOM's one definition: interior cells / median step time.
    EXPECT_DOUBLE_EQ(c.at("fom_cell_updates_per_s").get<double>(),
                     double(size) * size * size / c.at("step_s").at("median").get<double>());
  }
  EXPECT_EQ(j.at("fom").at("cell_updates_per_s"), j.at("configurations").at(0).at("fom_cell_updates_per_s"));
  const std::string md = read_text(dir_ / "result/benchmark.md");
  EXPECT_NE(md.find("**Compliant**"), std::string::npos) << md;
  EXPECT_NE(md.find("| checksum fp64 | " + checksums[0] + " = reference |"), std::string::npos) << md;
  EXPECT_NE(md.find(j.at("provenance").at("command_line").get<std::string>()), std::string::npos) << md;
  EXPECT_NE(out_.find("benchmark: FOM "), std::string::npos) << out_;
  EXPECT_NE(out_.find("(soa fp64): compliant"), std::string::npos) << out_;
}

TEST_F(BenchmarkCommand, RefusesABrokenRuleInOneLineBeforeAnyWork) {
  for (const auto& [args, says] : std::vector<std::pair<std::string, std::string>>{
           {"--repeat 1", "run rule 4: --repeat 1 is below the 3 repetitions the rule asks"},
           {"--steps 1", "run rule 4: --steps 1 is below the 12 steps per repetition the rule asks"},
           // Every rule broken in the one line, rule 5 first (its command to run instead), then
           // in the rules' order (the first alone sent the user through a refusal per rule).
           {"--size 16 --repeat 1 --steps 1",
            "the references have sizes 32, 64, 128, 256 for --repeat 3 --steps 12; run rule 4: --repeat 1 is below "
            "the 3 repetitions the rule asks; run rule 4: --steps 1 is below the 12 steps"}}) {
    EXPECT_EQ(run(args + " --out refused"), 2) << args;
    EXPECT_EQ(
        err_.rfind("halocline: error: --non-compliant runs it anyway, marked so (docs/procurement.md); run rule ", 0),
        0u)
        << err_;
    EXPECT_NE(err_.find(says), std::string::npos) << err_;
    EXPECT_EQ(std::count(err_.begin(), err_.end(), '\n'), 1) << err_;
    EXPECT_NE(err_.find("--non-compliant runs it anyway"), std::string::npos) << err_;
    EXPECT_FALSE(fs::exists(dir_ / "refused")) << args;
  }
  const hc::DeviceInfo device = hc::describe_device(hc::backend_name(hc::default_backend()), 0, "benchmark");
  if (device.kind == "gpu" && !mpirun(2).empty()) {  // one rank more than the node has GPUs
    const int gpus = device.devices_visible;
    EXPECT_EQ(run("--size 32 --out refused", mpirun(gpus + 1)), 2);
    EXPECT_NE(err_.find("run rule 5: " + std::to_string(gpus + 1) + " rank(s) on a node with " + std::to_string(gpus) +
                        " GPU(s); run one rank per GPU: mpirun -n " + std::to_string(gpus)),
              std::string::npos)
        << err_;
  } else if (device.kind != "gpu" && cores() > 1) {  // one rank of a Serial Kokkos on several cores
    EXPECT_EQ(run("--size 32 --out refused"), 2);
    EXPECT_NE(err_.find("run rule 5: 1 rank(s) x 1 thread(s) on " + std::to_string(cores()) +
                        " cores; run one rank per core: mpirun -n " + std::to_string(cores())),
              std::string::npos)
        << err_;
    // Every rule broken: rule 5's command to run instead comes whole, before the others (the
    // line is cut at its end, and it was cut inside the command).
    EXPECT_EQ(run("--repeat=1 --steps 1 --min-time 0 --size 48 --out refused"), 2);
    const std::string command = "run one rank per core: mpirun -n " + std::to_string(cores()) + " ";
    const std::size_t at = err_.find(command);
    ASSERT_NE(at, std::string::npos) << err_;
    EXPECT_NE(err_.find(" benchmark --out refused; run rule 2: ", at), std::string::npos) << err_;
  }
}

// A bound that is not a finite number is refused before any work: a NaN minimum time let a
// benchmark of one run a configuration through as "non-compliant", and a NaN spread bound
// called a 37% spread compliant (every comparison with NaN is false).
TEST_F(BenchmarkCommand, RefusesABoundThatIsNotAFiniteNumber) {
  for (const std::string args : {"--min-time nan", "--min-time inf", "--spread-warning nan", "--spread-warning -inf",
                                 "--spread-warning 1e4", "--min-time 5s"}) {
    EXPECT_EQ(run(args + " --size 32 --non-compliant --out refused"), 2) << args;
    EXPECT_NE(err_.find(args.substr(0, args.find(' '))), std::string::npos) << err_;
    EXPECT_NE(err_.find("must be"), std::string::npos) << err_;
    EXPECT_EQ(std::count(err_.begin(), err_.end(), '\n'), 1) << err_;
    EXPECT_FALSE(fs::exists(dir_ / "refused")) << args;
  }
}

// A size that cannot run is refused before any work, in one line that names --size: the
// ranks' split of a 3^3 grid was refused by each rank's first run, after verify and the probe,
// with MPI's abort; 1^3 named the deck's override (--set grid.n=1), which the user never gave.
TEST_F(BenchmarkCommand, RefusesASizeThatCannotRunBeforeAnyWork) {
  const std::string launcher = mpirun(2);
  const std::string quick = " --repeat 1 --steps 1 --min-time 0 --non-compliant --out refused";
  if (!launcher.empty()) {
    EXPECT_EQ(run("--size 3" + quick, launcher), 2);
    EXPECT_EQ(err_.rfind("halocline: error: --size 3: cannot split the domain of 3,3,3 cells among 2 ranks", 0), 0u)
        << err_;
    EXPECT_EQ(err_.find("halocline: rank"), std::string::npos) << err_;  // said once, by the agreement
    EXPECT_EQ(out_.find("verify"), std::string::npos) << out_;
    EXPECT_FALSE(fs::exists(dir_ / "refused"));
  }
  EXPECT_EQ(run("--size 1048576" + quick), 2);
  EXPECT_EQ(err_.rfind("halocline: error: --size 1048576: this grid needs ", 0), 0u) << err_;
  EXPECT_EQ(std::count(err_.begin(), err_.end(), '\n'), 1) << err_;
  EXPECT_EQ(out_.find("verify"), std::string::npos) << out_;
  EXPECT_EQ(run("--size 1" + quick), 2);
  EXPECT_NE(err_.find("--size"), std::string::npos) << err_;
  EXPECT_EQ(err_.find("grid.n"), std::string::npos) << err_;
}

// A backend this binary lacks: one line that names the command asked (it named `info`).
TEST_F(BenchmarkCommand, RefusesABackendNotBuiltInNamingItself) {
  for (const hc::BackendKind kind : {hc::BackendKind::Kokkos, hc::BackendKind::Hip}) {
    if (hc::backend_unavailable(kind).empty()) continue;
    const std::string name = hc::backend_name(kind);
    EXPECT_EQ(run("--backend " + name + " --size 32 --out refused"), 2) << name;
    EXPECT_EQ(err_.rfind("halocline: error: benchmark: ", 0), 0u) << err_;
    EXPECT_EQ(std::count(err_.begin(), err_.end(), '\n'), 1) << err_;
    EXPECT_FALSE(fs::exists(dir_ / "refused")) << name;
  }
}

TEST_F(BenchmarkCommand, NonCompliantRunSaysSoEverywhere) {
  ASSERT_EQ(run("--size 32 --repeat 1 --min-time 0 --non-compliant --quiet --out result"), 0) << err_;
  const nlohmann::json j = nlohmann::json::parse(read_text(dir_ / "result/benchmark.json"));
  EXPECT_EQ(hc::test::schema_violation(j, hc::test::load_schema("benchmark")), "");
  EXPECT_FALSE(j.at("compliant").get<bool>());
  EXPECT_EQ(j.at("non_compliant_reasons").at(0), "run rule 4: --repeat 1 is below the 3 repetitions the rule asks");
  // 4 + 1 x 12 steps: no reference, so the checksum is not compared.
  EXPECT_EQ(j.at("configurations").at(0).at("reference_checksum"), nullptr);
  EXPECT_EQ(j.at("configurations").at(0).at("runs"), 1);
  EXPECT_NE(read_text(dir_ / "result/benchmark.md").find("**NON-COMPLIANT**"), std::string::npos);
  // One repetition has no spread: not "0.0%", which reads as a measured agreement.
  EXPECT_NE(read_text(dir_ / "result/benchmark.md").find("| FOM spread, fp64 | none (one repetition) |"),
            std::string::npos);
  EXPECT_NE(out_.find("(soa fp64): NON-COMPLIANT; run rule 4: --repeat 1"), std::string::npos) << out_;
}

}  // namespace

namespace {

// A result as benchmark_json makes it, without running anything: fp64 at 2 ms, fp32 at 1 ms.
nlohmann::json made_result(const std::string& host, bool compliant) {
  hc::BenchmarkResult r;
  r.provenance = hc::make_provenance({"halocline", "benchmark"});
  r.provenance.host = host;
  r.size = 32, r.size_reason = "given by --size";
  r.copy_Bps = 1e10, r.triad_Bps = 1e10, r.probe.copy_Bps = 5e9, r.probe.array_bytes = 1 << 20;
  r.device.kind = "cpu", r.device.name = "Serial", r.verify_checks = 19;
  if (!compliant) r.broken_rules = {"run rule 4: --repeat 1 is below the 3 repetitions the rule asks"};
  for (const char* precision : {"fp64", "fp32"}) {
    hc::BenchmarkConfiguration c;
    c.precision = precision, c.name = std::string("soa ") + precision, c.runs = 1;
    const double step = precision == std::string("fp64") ? 2e-3 : 1e-3;
    c.step_s = {step, step, step}, c.min_s = c.median_s = c.max_s = step;
    c.timed_s = 36 * step, c.cells = 32768, c.bytes_per_step = 1e6;
    c.checksum = c.reference = "0123456789abcdef";
    c.config = {{"backend", "kokkos"},  {"layout", "soa"}, {"precision", precision},
                {"grid", {32, 32, 32}}, {"ranks", 2},      {"kernels", "split"}};
    r.configurations.push_back(c);
  }
  return hc::benchmark_json(r);
}

TEST(Benchmark, ResultJsonFollowsItsSchema) {
  const nlohmann::json j = made_result("a", true);
  EXPECT_EQ(hc::test::schema_violation(j, hc::test::load_schema("benchmark")), "");
  EXPECT_DOUBLE_EQ(j.at("fom").at("cell_updates_per_s").get<double>(), 32768 / 2e-3);
  EXPECT_DOUBLE_EQ(j.at("configurations").at(1).at("fraction_of_copy_bandwidth").get<double>(), 1e6 / 1e-3 / 1e10);
  nlohmann::json broken = j;
  broken["non_compliant_reasons"] = {"no rule named"};
  EXPECT_NE(hc::test::schema_violation(broken, hc::test::load_schema("benchmark")), "");
}

TEST_F(BenchmarkCommand, CompareSetsResultsSideBySide) {
  std::ofstream(dir_ / "a.json") << made_result("alpha", true).dump(2);
  std::ofstream(dir_ / "b.json") << made_result("beta", false).dump(2);
  auto run_compare = [&](const std::string& args) {
    const int status = std::system(
        ("cd '" + dir_.string() + "' && '" + HALOCLINE_BINARY + "' compare " + args + " > stdout.txt 2> stderr.txt")
            .c_str());
    out_ = read_text(dir_ / "stdout.txt"), err_ = read_text(dir_ / "stderr.txt");
    return WIFEXITED(status) ? WEXITSTATUS(status) : -1;
  };
  ASSERT_EQ(run_compare("a.json b.json"), 0) << err_;
  EXPECT_EQ(out_.rfind("| figure | a.json | b.json |\n| --- | --- | --- |\n", 0), 0u) << out_;
  EXPECT_NE(out_.find("| FOM, fp64 (cell updates/s) | 16.4 Mcell/s | 16.4 Mcell/s |"), std::string::npos) << out_;
  EXPECT_NE(out_.find("| compliance | compliant | NON-COMPLIANT; run rule 4: --repeat 1"), std::string::npos) << out_;
  EXPECT_NE(out_.find("| OS, host | "), std::string::npos) << out_;
  // b broke a rule: said under the table; both are 32^3, so no note on sizes.
  EXPECT_NE(out_.find("\nNote: b.json broke a run rule"), std::string::npos) << out_;
  EXPECT_EQ(out_.find("Note: a.json"), std::string::npos) << out_;
  EXPECT_EQ(out_.find("different sizes"), std::string::npos) << out_;
  nlohmann::json bigger = made_result("delta", true);
  bigger["size"]["n"] = 64;
  std::ofstream(dir_ / "d.json") << bigger.dump(2);
  ASSERT_EQ(run_compare("a.json d.json"), 0) << err_;
  EXPECT_NE(out_.find("\nNote: these results are of different sizes (32^3, 64^3)"), std::string::npos) << out_;
  // A benchmark's output directory stands for its benchmark.json.
  fs::create_directories(dir_ / "c");
  fs::copy_file(dir_ / "b.json", dir_ / "c/benchmark.json");
  ASSERT_EQ(run_compare("a.json c"), 0) << err_;
  EXPECT_EQ(out_.rfind("| figure | a.json | c |\n", 0), 0u) << out_;
  fs::create_directories(dir_ / "empty");
  ASSERT_EQ(::mkfifo((dir_ / "fifo").c_str(), 0644), 0);  // with no writer: read, it would hang
  // Anything else: exit 2, one line naming the file, nothing on stdout.
  std::ofstream(dir_ / "report.json") << R"({"checksum": "0123456789abcdef"})";
  std::ofstream(dir_ / "text.json") << "not json";
  nlohmann::json future = made_result("gamma", true);
  future["format_version"] = 999;
  std::ofstream(dir_ / "future.json") << future.dump(2);
  nlohmann::json partial = made_result("delta", true);
  partial.erase("configurations");
  std::ofstream(dir_ / "partial.json") << partial.dump(2);
  // Figures that cannot be, as compare would have printed them: 2^40 as 0^3, a count of runs
  // beyond an int as a negative one, a compliant result beside a checksum that differs.
  nlohmann::json huge = made_result("eps", true), runs = huge, differs = huge;
  huge["size"]["n"] = 1LL << 40;
  std::ofstream(dir_ / "huge.json") << huge.dump(2);
  runs["configurations"][0]["runs"] = 1e30;
  std::ofstream(dir_ / "runs.json") << runs.dump(2);
  differs["configurations"][1]["checksum_matches"] = false;
  std::ofstream(dir_ / "differs.json") << differs.dump(2);
  for (const auto& [file, says] : std::vector<std::pair<std::string, std::string>>{
           {"report.json", "halocline: error: compare: 'report.json' is not a halocline benchmark result"},
           {"text.json", "halocline: error: compare: 'text.json' is not JSON"},
           {"future.json",
            "halocline: error: compare: 'future.json' is a benchmark result of format_version 999; "
            "this halocline reads format_version 1"},
           {"partial.json",
            "halocline: error: compare: 'partial.json' is an incomplete benchmark result (key 'configurations' not "
            "found)"},
           {"huge.json",
            "halocline: error: compare: 'huge.json' is not a consistent benchmark result (size.n 1099511627776 is "
            "not a size of 2 to 1048576)"},
           {"runs.json",
            "halocline: error: compare: 'runs.json' is not a consistent benchmark result (soa fp64: runs 1e+30 is "
            "not a count of runs)"},
           {"differs.json",
            "halocline: error: compare: 'differs.json' is not a consistent benchmark result (soa fp32: compliant, but "
            "its checksum_matches is false)"},
           {"missing.json", "halocline: error: compare: cannot read 'missing.json': No such file or directory"},
           {"empty", "halocline: error: compare: 'empty' is a directory with no benchmark.json"},
           {"fifo", "halocline: error: compare: 'fifo' is not a regular file"}}) {
    EXPECT_EQ(run_compare("a.json " + file), 2) << file;
    EXPECT_EQ(err_.rfind(says, 0), 0u) << err_;
    EXPECT_EQ(std::count(err_.begin(), err_.end(), '\n'), 1) << err_;
    EXPECT_EQ(out_, "") << file;
  }
  if (std::system("/usr/bin/python3 -c 'import matplotlib' 2>/dev/null") != 0)
    GTEST_SKIP() << "the plot needs /usr/bin/python3 with matplotlib (apt-get install python3-matplotlib)";
  ASSERT_EQ(run_compare("a.json b.json --plot plots"), 0) << err_;
  EXPECT_GT(fs::file_size(dir_ / "plots/compare.png"), 1000u);
  // A directory stands for its benchmark.json in the plot too.
  ASSERT_EQ(run_compare("a.json c --plot plots_dir"), 0) << err_;
  EXPECT_GT(fs::file_size(dir_ / "plots_dir/compare.png"), 1000u);
}

}  // namespace
