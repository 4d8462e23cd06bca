#include "app/benchmark.hpp"

#include <algorithm>
#include <cstdio>
#include <sstream>

#include "app/bench.hpp"
#include "app/benchmark_inputs.hpp"  // generated: the built-in bench.toml
#include "app/build_info.hpp"
#include "app/comm.hpp"
#include "app/failures.hpp"
#include "app/probe.hpp"
#include "app/provenance.hpp"
#include "app/references.hpp"
#include "app/report.hpp"
#include "app/resources.hpp"
#include "app/select.hpp"
#include "app/verify.hpp"
#include "io/deck.hpp"
#include "io/deck_rules.hpp"  // num: a number as given

namespace halocline {

namespace {

long run_steps(const BenchmarkOptions& o) { return kWarmupSteps + kTracedStepsUnsampled + o.repeat * o.steps; }

// The defined configuration: the built-in bench.toml at `size`, SoA, `precision`, the
// device owner (on a CPU backend the only one).
Config benchmark_config(int size, const std::string& precision, const std::string& backend) {
  Config c = parse_deck(build::kBenchDeck, "bench.toml (built in)", {"grid.n=" + std::to_string(size)});
  apply_strategy_key(c, "layout", "soa");
  apply_strategy_key(c, "precision", precision);
  apply_strategy_key(c, "backend", backend);
  apply_strategy_key(c, "owner", "device");
  return c;
}

// The size's fp64 run as a run checks it at its set-up: the built-in deck at that grid, the
// ranks' split of it and the host's memory for the node's ranks. Refused here, once, before
// verify and the probe (a 3^3 grid on 2 ranks was refused by each rank's first run, after
// them, with MPI's abort); `said` names the size (--size N, or the chosen one), not the deck's
// override that is the benchmark's own.
void check_size_runs(int size, const std::string& said, const std::string& backend, int ranks, int node_ranks) {
  const std::string set = "--set grid.n=" + std::to_string(size) + ": ";
  try {
    const Config c = benchmark_config(size, "fp64", backend);
    check_memory(c, choose_process_grid(c.n, {0, 0, 0}, ranks), !runs_on_gpu(c.backend), node_ranks);
  } catch (const DeckError& e) {
    const std::string what = e.what();
    throw DeckError(said + ": " + (what.rfind(set, 0) == 0 ? what.substr(set.size()) : what));
  } catch (const ResourceError& e) {
    throw ResourceError(said + ": " + e.what());
  }
}

std::string percent(double fraction) {
  char text[32];
  std::snprintf(text, sizeof text, "%.1f%%", 100 * fraction);
  return text;
}

AgreedExit failed_everywhere(const std::string& message) { return AgreedExit(ExitStatus{1, "", message, true, -1}); }

// Verification first (run rule 2): every check, or exit code 1 naming the first that failed.
int verify_or_stop(std::ostream* progress) {
  std::ostringstream lines;
  const std::vector<Check> checks = run_verification(lines);
  for (const Check& c : checks)
    if (!c.pass) {
      std::ostringstream value;
      value << c.value;
      throw failed_everywhere("benchmark: verify failed: " + c.problem + ", " + c.measure + " = " + value.str() +
                              " (limit " + c.limit + "); nothing was measured (run rule 2)");
    }
  if (progress) *progress << "benchmark: verify: " << checks.size() << " checks passed\n" << std::flush;
  return static_cast<int>(checks.size());
}

// The copy and triad bandwidth of the node (run rule 3): on a CPU every rank probes at once
// and the sums are the node's; on GPUs rank 0 probes its device and each GPU the ranks drive
// has one alike (counted once where ranks share one, which rule 5 forbids).
void probe_node(const std::string& backend, BenchmarkResult& r, std::ostream* progress) {
  ProbeOptions options;
  options.quick = true;
  agree_over_ranks(0);  // every rank starts together
  if (r.device.kind != "gpu" || world_rank() == 0) r.probe = run_probe(backend, options);
  auto node = [&](double rate) { return r.device.kind == "gpu" ? r.gpus_driven * rate : sum_over_ranks(rate); };
  r.copy_Bps = node(r.probe.copy_Bps);
  r.triad_Bps = node(r.probe.triad_Bps);
  for (auto [mine, probed] : {std::pair{&r.fp64, &r.probe.fp64}, std::pair{&r.fp32, &r.probe.fp32}})
    *mine = {node(probed->fma_per_s), node(probed->div_per_s), node(probed->sqrt_per_s)};
  if (progress)
    *progress << "benchmark: probe: copy " << r.copy_Bps / 1e9 << " GB/s, triad " << r.triad_Bps / 1e9 << " GB/s ("
              << world_size() << (world_size() == 1 ? " rank" : " ranks") << ")\n"
              << std::flush;
}

std::string execution_text(const BenchmarkResult& r, long cores, const std::string& backend) {
  auto count = [](long n, const char* what) { return std::to_string(n) + " " + what + (n == 1 ? "" : "s"); };
  const std::string text = count(r.ranks, "MPI rank") + " x " + count(r.threads_per_rank, "thread") + " (" + backend +
                           " on " + r.device.name + ")";
  if (r.device.kind == "gpu") return text + ", one GPU per rank";
  if (r.threads_per_rank == 1 && r.ranks == cores) return text + ": one MPI rank per core of " + std::to_string(cores);
  if (r.ranks == 1 && r.threads_per_rank == cores) return text + ": one thread per core of " + std::to_string(cores);
  return text + " on " + count(cores, "core");
}

// One configuration: runs of the rules' length until the timed steps add up to the minimum
// measured time, each run's checksum against the reference.
BenchmarkConfiguration measure_configuration(const BenchmarkOptions& o, const BenchmarkResult& r,
                                             const std::string& precision, const std::string& backend,
                                             std::ostream* progress, Provenance& provenance) {
  BenchmarkConfiguration bc;
  bc.precision = precision;
  bc.name = "soa " + precision;
  bc.reference = reference_checksum(r.size, precision, run_steps(o));
  Config c = benchmark_config(r.size, precision, backend);
  const std::string run_dir = o.out_dir + "/runs/" + precision;
  c.out_dir = run_dir;  // where its report goes
  for (bool more = true; more;) {
    if (progress)  // a run at a large size takes minutes on a CPU: say what runs
      *progress << "benchmark: " << bc.name << " run " << bc.runs + 1 << ": " << run_steps(o) << " steps at " << r.size
                << "^3\n"
                << std::flush;
    const MeasuredRun m = measure_run(c, o.repeat, o.steps, o.provenance, o.progress_line);
    if (bc.runs++ == 0) {
      nlohmann::json report = m.report;
      ProbeResult node = r.probe;  // the job's rates: every rank's probe, summed (probe_node)
      node.copy_Bps = r.copy_Bps, node.triad_Bps = r.triad_Bps, node.fp64 = r.fp64, node.fp32 = r.fp32;
      add_probe_to_report(report, node, "benchmark: every rank's probe, summed", 1);
      if (m.rank == 0) write_report(report, run_dir + "/report.json");
      bc.config = m.report["config"];
      provenance = m.provenance;
    }
    bc.step_s.insert(bc.step_s.end(), m.step_s.begin(), m.step_s.end());
    bc.timed_s += m.timed_s;
    bc.cells = m.cells;
    bc.bytes_per_step = m.bytes_per_step;
    bc.checksum = m.checksum;
    if (!bc.reference.empty() && m.checksum != bc.reference)
      throw failed_everywhere("benchmark: run rule 2: " + bc.name + " run " + std::to_string(bc.runs) +
                              " ended with checksum " + m.checksum + ", not the reference " + bc.reference +
                              ": this build or machine computes another answer");
    if (progress)
      *progress << "benchmark: " << bc.name << " run " << bc.runs << ": median step " << median_of(m.step_s) * 1e3
                << " ms, " << bc.timed_s << " s timed of " << o.min_time_s << "\n"
                << std::flush;
    // Rank 0's clock decides for every rank: the ranks must run alike.
    const bool again = bc.timed_s < o.min_time_s && bc.runs < kMaxRunsPerConfiguration;
    more = broadcast_from(0, again ? "1" : "0") == "1";
  }
  bc.min_s = *std::min_element(bc.step_s.begin(), bc.step_s.end());
  bc.max_s = *std::max_element(bc.step_s.begin(), bc.step_s.end());
  bc.median_s = median_of(bc.step_s);
  bc.spread = bc.median_s > 0 ? (bc.max_s - bc.min_s) / bc.median_s : 0.0;
  return bc;
}

// Takes option `name` out of a command line held between spaces (" ... "): as a word, and with
// `with_value` also its value, given as the next word or after '=' (the values of the options
// this is used for are numbers, never quoted).
void erase_option(std::string& line, const std::string& name, bool with_value) {
  for (std::size_t at; (at = line.find(" " + name + " ")) != std::string::npos;) {
    std::size_t end = at + name.size() + 1;                                  // the space after the name
    if (with_value && end + 1 < line.size()) end = line.find(' ', end + 1);  // the space after its value
    line.erase(at, end - at);
  }
  if (!with_value) return;
  for (std::size_t at; (at = line.find(" " + name + "=")) != std::string::npos;)
    line.erase(at, line.find(' ', at + 1) - at);
}

// Every rule a request breaks, in one refusal: the first alone sent the user through one
// refusal per rule, each suggested command refused for the next. Rule 5 first, whose line ends
// with the command to run instead (one that keeps every rule): a long list is cut at the
// line's end (one_line), which cut that command; then the others in the rules' order.
std::string every_broken_rule(std::vector<std::string> rules) {
  const auto number = [](const std::string& rule) {  // "run rule N"
    const char n = rule.size() > 9 ? rule[9] : '9';
    return n == '5' ? '0' : n;
  };
  std::stable_sort(rules.begin(), rules.end(),
                   [&](const std::string& a, const std::string& b) { return number(a) < number(b); });
  std::string text;
  for (const std::string& rule : rules) text += (text.empty() ? "" : "; ") + rule;
  return text;
}

}  // namespace

std::vector<std::string> broken_run_rules(const BenchmarkOptions& o, const BenchmarkSetting& s,
                                          const std::string& command) {
  std::vector<std::string> broken;
  if (o.repeat < kRuleRepeat)
    broken.push_back("run rule 4: --repeat " + std::to_string(o.repeat) + " is below the " +
                     std::to_string(kRuleRepeat) + " repetitions the rule asks");
  if (o.steps < kRuleSteps)
    broken.push_back("run rule 4: --steps " + std::to_string(o.steps) + " is below the " + std::to_string(kRuleSteps) +
                     " steps per repetition the rule asks");
  if (o.min_time_s < kRuleMinTimeS)  // as given, to the bit: 4.9999999 is not "5"
    broken.push_back("run rule 4: --min-time " + deck_detail::num(o.min_time_s) + " is below the " +
                     deck_detail::num(kRuleMinTimeS) + " s of timed steps per configuration the rule asks");
  const auto has = [](const std::vector<int>& sizes, int n) {
    return std::find(sizes.begin(), sizes.end(), n) != sizes.end();
  };
  const bool no_reference = !has(s.reference_sizes, s.size);  // rule 2, below
  // The command to suggest: as given, but for --non-compliant and the options that broke rules
  // 4 and 2 (the suggested line must keep every rule, not only the one it mends): a reference
  // is made for --repeat 3 --steps 12 at the defined sizes, which the benchmark then chooses.
  std::string compliant = " " + command + " ";
  erase_option(compliant, "--non-compliant", false);
  // --repeat and --steps together: the references are of their product (6 x 6 has 3 x 12's),
  // so the one left alone would change the length.
  if (o.repeat < kRuleRepeat || o.steps < kRuleSteps || no_reference) {
    erase_option(compliant, "--repeat", true);
    erase_option(compliant, "--steps", true);
  }
  if (o.min_time_s < kRuleMinTimeS) erase_option(compliant, "--min-time", true);
  if (no_reference && !has(s.defined_sizes, s.size)) erase_option(compliant, "--size", true);
  compliant = compliant.substr(1, compliant.size() - 2);
  const long used = static_cast<long>(s.ranks) * s.threads_per_rank;
  if (!s.on_gpu && used != s.cpu_cores) {
    std::string how = s.with_mpi && s.threads_per_rank == 1
                          ? "run one rank per core: mpirun -n " + std::to_string(s.cpu_cores) + " " + compliant
                          : "this build cannot: build with MPI (one rank per core) or with an OpenMP Kokkos";
    if (used > s.cpu_cores && s.threads_per_rank > 1) how = "run one thread per core, once (OMP_NUM_THREADS)";
    broken.push_back("run rule 5: " + std::to_string(s.ranks) + " rank(s) x " + std::to_string(s.threads_per_rank) +
                     " thread(s) on " + std::to_string(s.cpu_cores) + " cores; " + how);
  }
  if (s.on_gpu && s.node_ranks != s.node_gpus) {
    // Every GPU of the node, each driven by one rank: fewer leaves GPUs idle, more shares them.
    std::string how = s.node_ranks == s.ranks ? "mpirun -n " + std::to_string(s.node_gpus) + " " + compliant
                                              : std::to_string(s.node_gpus) + " ranks on each node";
    if (!s.with_mpi && s.node_gpus > 1) how = "this build has no MPI (configure it with MPI)";
    broken.push_back("run rule 5: " + std::to_string(s.node_ranks) + " rank(s) on a node with " +
                     std::to_string(s.node_gpus) + " GPU(s); run one rank per GPU: " + how);
  }
  if (s.cxx_flags.find("-ffp-contract=off") == std::string::npos)
    broken.push_back(
        "run rule 1: this binary was built without strict floating point (-ffp-contract=off; "
        "HALOCLINE_STRICT_FP=ON, the default): its checksums cannot be compared");
  if (no_reference) {
    std::string sizes;
    for (int n : s.defined_sizes) sizes += (sizes.empty() ? "" : ", ") + std::to_string(n);
    broken.push_back("run rule 2: no reference checksum for " + std::to_string(s.size) + "^3 after " +
                     std::to_string(kWarmupSteps + kTracedStepsUnsampled + o.repeat * o.steps) +
                     " steps (--size, --repeat, --steps); the references have sizes " +
                     (sizes.empty() ? "none" : sizes) + " for --repeat " + std::to_string(kRuleRepeat) + " --steps " +
                     std::to_string(kRuleSteps));
  }
  return broken;
}

int choose_size(const std::vector<int>& sizes, const std::string& backend, const DeviceInfo& device,
                std::int64_t node_memory_bytes, int ranks, std::string& why) {
  const bool gpu = device.kind == "gpu";
  const double budget = 0.25 * static_cast<double>(gpu ? device.memory_bytes : node_memory_bytes);
  const HostRoom room = host_room();  // ulimit -v: a size this process cannot hold is not chosen
  int chosen = sizes.empty() ? 0 : sizes.front();
  for (int n : sizes) {
    try {
      const Config c = benchmark_config(n, "fp64", backend);
      const MemoryPlan plan = plan_memory(c, choose_process_grid(c.n, {0, 0, 0}, ranks), !gpu, ranks);
      const double bytes = static_cast<double>(gpu ? plan.solver_bytes() : plan.host_bytes());
      if (bytes <= budget && (room.process == 0 || plan.largest_process_bytes <= room.process)) chosen = n;
    } catch (const DeckError&) {
      // Too many ranks for this size: a larger one may do.
    }
  }
  why = "the largest reference size whose fp64 run fits in a quarter of the " +
        std::string(gpu ? "GPU's memory" : "node's memory") + " (" + std::to_string(static_cast<long long>(budget)) +
        " bytes)";
  return chosen;
}

std::string timed_short_of_rule_4(const BenchmarkOptions& o, const BenchmarkConfiguration& bc) {
  if (bc.timed_s >= kRuleMinTimeS || o.min_time_s < kRuleMinTimeS) return "";  // met, or broken as asked
  std::ostringstream text;
  text << "run rule 4: " << bc.name << " timed " << bc.timed_s << " s in " << bc.runs
       << " runs (the most a configuration makes), below the " << kRuleMinTimeS
       << " s the rule asks; a larger --size reaches it";
  return text.str();
}

namespace {

// The options every rank of a job must share, one "key = value" line each (check_same_lines).
std::string benchmark_option_lines(const BenchmarkOptions& o) {
  std::ostringstream text;
  text.precision(17);
  text << "size = " << o.size << "\nrepeat = " << o.repeat << "\nsteps = " << o.steps << "\nmin_time = " << o.min_time_s
       << "\nspread_warning = " << o.spread_warning << "\nbackend = " << o.backend << "\nout = " << o.out_dir
       << "\nnon_compliant = " << o.non_compliant << '\n';
  return text.str();
}

}  // namespace

BenchmarkResult plan_benchmark(const BenchmarkOptions& o) {
  BenchmarkResult r;
  r.options = o;
  r.provenance = o.provenance;
  const std::string backend = o.backend.empty() ? backend_name(default_backend()) : o.backend;
  // Ranks with other options would run other configurations, and their collective calls
  // would not match (a crash, or a hang): refused, exit 2, naming the first that differs.
  agreed([&] { check_same_lines("benchmark options", benchmark_option_lines(o)); });
  BenchmarkSetting s;
  std::string gpu;  // on GPUs the one this rank runs on, as the reports name it
  agreed([&] {
    r.device = describe_device(backend, 0, "benchmark");
    s.ranks = r.ranks = world_size();
    s.threads_per_rank = r.threads_per_rank = r.device.kind == "gpu" ? 1 : std::max(1, r.device.compute_units);
    s.cpu_cores = o.provenance.cpu_cores;
    s.on_gpu = r.device.kind == "gpu";
    s.node_ranks = ranks_on_this_node();
    s.node_gpus = r.device.devices_visible;
    // A rank runs on its node's GPU (node rank) % (the GPUs it sees), as the runs choose it.
    if (s.on_gpu)
      gpu = device_identity(describe_device(backend, rank_on_this_node() % std::max(1, s.node_gpus), "benchmark"));
    s.with_mpi = comm_built_with_mpi();
    s.cxx_flags = build::kCxxFlags;
    s.reference_sizes = reference_sizes(run_steps(o));
    s.defined_sizes = reference_sizes(kWarmupSteps + kTracedStepsUnsampled + kRuleRepeat * kRuleSteps);
    const std::vector<int>& ladder = s.reference_sizes.empty() ? s.defined_sizes : s.reference_sizes;
    if (o.size > 0) {
      r.size = o.size, r.size_reason = "given by --size";
    } else {
      r.size = choose_size(ladder, backend, r.device, o.provenance.memory_bytes, r.ranks, r.size_reason);
    }
  });
  // Rank 0's choice for every rank: nodes with other memory would choose other sizes.
  r.size = std::stoi(broadcast_from(0, std::to_string(r.size)));
  // The distinct GPUs the ranks drive (a shared one counts once; ranks that each see only their
  // own GPU still count it apart), as a run's report counts them.
  // Gathered on a CPU too (empty names, not counted): every job takes the same collectives.
  const std::vector<std::string> gpus = gather_over_ranks(gpu);
  if (s.on_gpu) r.gpus_driven = devices_driven({{"devices_over_ranks", gpus}});
  agreed([&] {
    s.size = r.size;
    const std::string size = std::to_string(r.size);
    check_size_runs(r.size, o.size > 0 ? "--size " + size : "the size chosen (" + size + "^3)", backend, r.ranks,
                    s.node_ranks);
    r.broken_rules = broken_run_rules(o, s, o.provenance.command_line);
    if (!r.broken_rules.empty() && !o.non_compliant)
      // The way out first: a long list of rules is cut at the line's end, not the hint.
      throw DeckError("--non-compliant runs it anyway, marked so (docs/procurement.md); " +
                      every_broken_rule(r.broken_rules));
  });
  r.execution = execution_text(r, o.provenance.cpu_cores, backend);
  r.backend = backend;
  return r;
}

void measure_benchmark(BenchmarkResult& r, std::ostream* progress) {
  const BenchmarkOptions& o = r.options;
  const std::string& backend = r.backend;
  if (progress) {
    *progress << "benchmark: " << r.size << "^3 (" << r.size_reason << "), " << r.execution << '\n';
    for (const std::string& rule : r.broken_rules) *progress << "benchmark: NON-COMPLIANT: " << rule << '\n';
  }
  r.verify_checks = verify_or_stop(progress);
  probe_node(backend, r, progress);
  for (const char* precision : {"fp64", "fp32"}) {
    r.configurations.push_back(measure_configuration(o, r, precision, backend, progress, r.provenance));
    const BenchmarkConfiguration& bc = r.configurations.back();
    const std::string short_time = timed_short_of_rule_4(o, bc);
    if (!short_time.empty()) {
      r.broken_rules.push_back(short_time);
      if (progress) *progress << "benchmark: NON-COMPLIANT: " << short_time << '\n';
    }
    if (bc.spread > o.spread_warning)
      r.warnings.push_back(bc.name + ": the repetitions spread " + percent(bc.spread) +
                           " (max - min over the median), over the warning threshold of " + percent(o.spread_warning) +
                           ": something else may have run on the machine (run rule 6)");
  }
}

}  // namespace halocline
