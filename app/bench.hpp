// `halocline bench DECK --sweep key=v1,v2 ... --repeat N --steps S`: every combination of
// the swept values in one process, each as one run whose steps after the warm-up are cut
// into N repetitions of S steps; the min, median and max over the repetitions per
// configuration, with the speedup over a baseline configuration. A configuration
// this build or machine cannot run is listed as skipped with the reason, never dropped.
#pragma once

#include <cstddef>
#include <functional>
#include <map>
#include <nlohmann/json.hpp>
#include <ostream>
#include <string>
#include <vector>

#include "io/config.hpp"
#include "io/provenance_record.hpp"
#include "kernels/contract/backend.hpp"  // DeviceInfo

namespace halocline {

struct SweepAxis {
  std::string key;  // layout, precision, backend, owner, host-mem, prefetch,
                    // halo, or any deck key (grid.n, physics.limiter, ...)
  std::vector<std::string> values;
};

struct BenchOptions {
  std::string deck;
  std::vector<std::string> sets;  // --set overrides for every configuration
  std::vector<SweepAxis> sweeps;
  std::map<std::string, std::string> baseline;  // key -> value; empty: the first configuration
  int repeat = 3;
  long steps = 20;  // timed steps per repetition
  std::string out_dir = "bench";
  Provenance provenance;       // the command's (app/provenance.hpp), for bench.json and every run's report
  bool progress_line = false;  // each run's progress line (step, ETA) on stderr: rank 0 on a terminal
};

// The one name of a swept key: the deck's run.layout is the command line's layout,
// run.host_mem and host_mem are host-mem, and so on; other keys are their own names.
std::string canonical_key(const std::string& key);

// Parses "key=v1,v2,..." with the key's canonical name (DeckError, exit code 2, when
// malformed or a value is given twice).
SweepAxis parse_sweep(const std::string& text);
// Parses "key=value,key=value" with canonical names.
std::map<std::string, std::string> parse_baseline(const std::string& text);

// The most configurations one sweep may have.
constexpr std::size_t kMaxBenchRows = 10000;

// Refuses (DeckError, exit code 2) a sweep that names a key twice in any spelling, a
// baseline outside it, a bad deck or value, more than kMaxBenchRows configurations, or two
// rows that are one configuration.
void check_bench_options(const BenchOptions& options);

// Whether a --baseline value names the swept value `swept`: the same text, or the same number
// ("0.40" names "0.4").
bool names_value(const std::string& given, const std::string& swept);

// Checks, before a sweep, the files it writes besides bench.json and bench.csv: each
// configuration's report (OUT/runs/N/report.json) and what a run writes into its folder, and
// the probes' caches in OUT (app/outputs.hpp). Throws DeckError naming the first it would not
// write over. Rank 0's files.
void check_bench_runs(const BenchOptions& options);

// A note on the run folders in OUT/runs that this sweep will not write (OUT/runs/N for N at or
// past its configuration count: an earlier, larger sweep's, which bench.json will not list), or
// empty where there are none. Bench leaves them as they are (it writes only what it names).
std::string earlier_bench_runs_note(const BenchOptions& options);

// A note on the --set keys that bench sets itself (time.max_steps, checkpoint.*, output.*:
// it runs --repeat x --steps steps and writes no snapshots nor scheduled checkpoints), so
// that they change nothing; empty where none is given.
std::string bench_sets_without_effect(const BenchOptions& options);

// Everything a sweep runs, one "key = value" per line: every rank of an MPI bench must
// have the same (app/failures.hpp check_same_lines).
std::string bench_lines(const BenchOptions& options);

// The median of `values` (the mean of the middle two for an even count; 0 for none).
double median_of(std::vector<double> values);

// One run of `config` as bench and benchmark measure it: the warm-up and the traced step
// with the one after it untimed, then `repeat` blocks of `steps` steps, each block one
// repetition (its median step time). No snapshots, no checkpoints. DeckError when the deck
// ends the run early (t_end).
struct MeasuredRun {
  std::vector<double> step_s;                       // the median step time of each block
  double timed_s = 0;                               // the sum of the blocks' step times
  double run_s = 0;                                 // the whole run, set-up to memory freed
  double cells = 0;                                 // interior cells
  double bytes_per_step = 0;                        // the traffic a step must move (report)
  std::string checksum;                             // of the final state
  std::map<std::string, double> phases_per_step_s;  // timed phase -> seconds per timed step
  nlohmann::json report;                            // the run's report (app/report.hpp)
  Provenance provenance;                            // the run's (with its GPU), rank 0's
  DeviceInfo device;
  int rank = 0, ranks = 1;
};
MeasuredRun measure_run(Config config, int repeat, long steps, const Provenance& provenance,
                        bool progress_line = false);

// One configuration of the sweep and its runs.
struct BenchRow {
  std::map<std::string, std::string> values;  // the swept key -> value of this configuration
  std::string name;                           // "layout=soa precision=fp64"
  std::string skipped;                        // why it could not run here; empty when it ran
  std::string failed;                         // what went wrong when it ran and failed
  bool ran() const { return skipped.empty() && failed.empty(); }
  std::vector<double> step_s;                       // median step time of each repetition (block)
  std::vector<double> fom;                          // cell updates per second of each repetition
  double run_s = 0;                                 // the whole run, set-up to memory freed
  double min_s = 0, median_s = 0, max_s = 0;        // over the repetitions
  double cells = 0;                                 // interior cells
  double bytes_per_step = 0;                        // the traffic a step must move (report)
  double effective_Bps = 0;                         // bytes_per_step / median step time
  double copy_Bps = 0;                              // the probed copy bandwidth x the devices driven
  double arithmetic_limit = 0;                      // the run's report's, cell-updates/s (the probe's rates)
  double fraction_of_copy_bandwidth = 0;            // effective_Bps / copy_Bps
  double fraction_of_arithmetic_limit = 0;          // the row's FOM / arithmetic_limit
  double speedup = 0;                               // this FOM / the baseline's (no baseline: 0,
                                                    // null in bench.json, empty in bench.csv)
  std::string checksum;                             // of the final state
  std::map<std::string, double> phases_per_step_s;  // timed phase -> seconds per timed step
  std::string fused_shape;                          // with fused kernels, the run's report's; else empty
};

struct BenchResult {
  BenchOptions options;
  std::vector<BenchRow> rows;
  std::string baseline;       // the baseline row's name (empty: no row has the --baseline values)
  bool baseline_ran = false;  // whether it ran: the speedups are over it
  // The command's provenance with the GPU of the first configuration that ran on one.
  Provenance provenance;
};

// Runs the sweep: each configuration once (no snapshots), in one process.
// `after_each` (optional) sees the result so far after every configuration, so that a
// long sweep that is stopped keeps what it measured.
BenchResult run_bench(const BenchOptions& options, std::ostream* progress,
                      const std::function<void(const BenchResult&)>& after_each = {});

nlohmann::json bench_json(const BenchResult& result);
std::string bench_csv(const BenchResult& result);
void print_bench(std::ostream& os, const BenchResult& result);

}  // namespace halocline
