// `halocline benchmark`: the one command a vendor runs on a node (docs/procurement.md). It
// checks the run rules before any work, runs `verify` and stops if a check fails, probes
// the copy bandwidth of every rank at once, then measures the defined configurations
// (inputs/bench.toml, built in; SoA; fp64 and fp32; the device owner) in runs of the rules'
// length, repeated until each has a minimum measured time, and compares every run's
// checksum with the reference the project ships (app/references.hpp).
#pragma once

#include <cstdint>
#include <nlohmann/json.hpp>
#include <ostream>
#include <string>
#include <vector>

#include "io/provenance_record.hpp"
#include "kernels/contract/backend.hpp"
#include "kernels/contract/probe_result.hpp"

namespace halocline {

// The run rules' least values (docs/procurement.md, rule 4) and the benchmark's defaults.
constexpr int kRuleRepeat = 3;
constexpr long kRuleSteps = 12;
constexpr double kRuleMinTimeS = 5.0;  // timed steps per configuration, over its runs
constexpr int kMaxRunsPerConfiguration = 1000;
constexpr double kSpreadWarning = 0.05;  // (max - min) / median of the repetitions

struct BenchmarkOptions {
  int size = 0;  // cells per direction; 0: chosen from the memory per device
  int repeat = kRuleRepeat;
  long steps = kRuleSteps;
  double min_time_s = kRuleMinTimeS;
  double spread_warning = kSpreadWarning;
  std::string backend;  // empty: the build's default
  std::string out_dir = "benchmark";
  bool non_compliant = false;  // run even when a rule is broken, and say so everywhere
  Provenance provenance;
  bool progress_line = false;  // each run's progress line (step, ETA) on stderr: rank 0 on a terminal
};

// What the rules are checked against: this job and this machine.
struct BenchmarkSetting {
  int ranks = 1;             // MPI ranks of the job
  int threads_per_rank = 1;  // the execution space's concurrency (a CPU backend)
  long cpu_cores = 1;        // physical cores of the node
  bool on_gpu = false;
  int node_ranks = 1;                // the job's ranks on this rank's node
  int node_gpus = 1;                 // the GPUs the runtime shows this rank (on_gpu)
  bool with_mpi = false;             // built with MPI
  std::string cxx_flags;             // the build's (rule 1: -ffp-contract=off)
  int size = 0;                      // as chosen
  std::vector<int> reference_sizes;  // the sizes with references for this run's length
  std::vector<int> defined_sizes;    // ... for the default length (--repeat 3 --steps 12)
};

// Every run rule the request breaks, one line each naming the rule ("run rule 4: ..."), the
// user's own choices (rules 4, 5) before what follows from them (rules 1, 2); empty when it
// keeps them all. `command` is the command line, for the mpirun line rule 5
// suggests.
std::vector<std::string> broken_run_rules(const BenchmarkOptions& options, const BenchmarkSetting& setting,
                                          const std::string& command);

// The size the benchmark runs: the largest of `sizes` (the reference table's) whose fp64
// run fits in a quarter of the memory per device (a GPU's memory, one rank's arrays; on a
// CPU the node's memory, every rank's arrays and copies), else the smallest. `why` says how.
int choose_size(const std::vector<int>& sizes, const std::string& backend, const DeviceInfo& device,
                std::int64_t node_memory_bytes, int ranks, std::string& why);

// One defined configuration as measured.
struct BenchmarkConfiguration {
  std::string name;  // "soa fp64"
  std::string precision;
  int runs = 0;
  std::vector<double> step_s;  // every repetition's median step time, over the runs
  double timed_s = 0;          // the timed steps' seconds, over the runs
  double cells = 0, bytes_per_step = 0;
  double min_s = 0, median_s = 0, max_s = 0, spread = 0;
  std::string checksum, reference;  // reference empty: none in the table
  nlohmann::json config;            // the first run's report `config`
};

// The rule-4 line for a configuration whose runs stopped at kMaxRunsPerConfiguration before
// timing the rule's minimum (a small grid on a fast device), or "" when it timed enough or the
// user asked for less (then the rule is already listed as broken).
std::string timed_short_of_rule_4(const BenchmarkOptions& options, const BenchmarkConfiguration& configuration);

struct BenchmarkResult {
  BenchmarkOptions options;
  int size = 0;
  std::string size_reason;
  std::vector<std::string> broken_rules;  // accepted with --non-compliant
  std::vector<std::string> warnings;
  int verify_checks = 0;
  ProbeResult probe;                   // rank 0's
  double copy_Bps = 0, triad_Bps = 0;  // summed over the ranks, probed at once
  ArithmeticRates fp64, fp32;          // the same: the node's arithmetic rates
  int ranks = 1, threads_per_rank = 1;
  int gpus_driven = 0;    // on GPUs: the distinct GPUs the ranks run on (by PCI address: app/report.hpp)
  std::string execution;  // "2 MPI ranks x 1 thread (kokkos on Serial): one MPI rank per core of 2"
  std::string backend;
  DeviceInfo device;
  Provenance provenance;
  std::vector<BenchmarkConfiguration> configurations;
  bool compliant() const { return broken_rules.empty(); }
};

// Before any work, on every rank alike: the device, the size, the rules. Refuses a request
// that breaks a run rule (AgreedExit of a DeckError naming the first, exit code 2) unless
// options.non_compliant, which lists them in the result instead.
BenchmarkResult plan_benchmark(const BenchmarkOptions& options);

// Then the work: verify, probe, the configurations, into `result`. Progress lines go to
// `progress` (null: none). Exit code 1 (AgreedExit, every rank) when a verification check
// fails or a checksum differs from its reference.
void measure_benchmark(BenchmarkResult& result, std::ostream* progress);

}  // namespace halocline
