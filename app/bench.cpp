#include "app/bench.hpp"
#include "app/outputs.hpp"

#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstdlib>
#include <filesystem>
#include <iomanip>
#include <set>
#include <sstream>

#include "app/driver.hpp"
#include "app/failures.hpp"
#include "app/phases.hpp"
#include "app/probe.hpp"
#include "app/provenance.hpp"
#include "app/report.hpp"
#include "app/select.hpp"
#include "app/signals.hpp"
#include "io/deck.hpp"

namespace halocline {

namespace {

std::vector<std::string> split(const std::string& text, char sep) {
  std::vector<std::string> parts;
  std::stringstream ss(text);
  std::string part;
  while (std::getline(ss, part, sep)) parts.push_back(part);
  return parts;
}

// Why this build cannot run configuration `c` as asked, beyond what the deck's own checks
// say, or why it would measure nothing new; empty when it can. (What the backend itself cannot
// do, such as an owner model the Kokkos backend on the host has not, it says when it is made:
// the row is skipped with its words.)
std::string not_applicable(const Config& c, const std::map<std::string, std::string>& values) {
  const std::string why = backend_unavailable(c.backend);
  if (!why.empty()) return why;
  return choice_without_effect(c, values);
}

}  // namespace

double median_of(std::vector<double> v) {
  std::sort(v.begin(), v.end());
  const std::size_t n = v.size();
  return n == 0 ? 0.0 : n % 2 ? v[n / 2] : 0.5 * (v[n / 2 - 1] + v[n / 2]);
}

std::string canonical_key(const std::string& given) {
  // Spaces around the key are TOML's own (`time.max_steps =100` reads): not a key of another name.
  const std::size_t first = given.find_first_not_of(" \t"), last = given.find_last_not_of(" \t");
  const std::string key = first == std::string::npos ? "" : given.substr(first, last - first + 1);
  // The deck's run.* keys and the command line's options name the same choices.
  static const std::map<std::string, std::string> aliases = {
      {"run.layout", "layout"},          {"run.precision", "precision"},
      {"run.backend", "backend"},        {"run.owner", "owner"},
      {"run.host_mem", "host-mem"},      {"host_mem", "host-mem"},
      {"run.prefetch", "prefetch"},      {"run.halo", "halo"},
      {"run.kernels", "kernels"},        {"kokkos_tile", "kokkos-tile"},
      {"run.kokkos_tile", "kokkos-tile"}};
  const auto it = aliases.find(key);
  return it == aliases.end() ? key : it->second;
}

SweepAxis parse_sweep(const std::string& text) {
  const std::size_t eq = text.find('=');
  if (eq == std::string::npos || eq == 0 || eq + 1 == text.size())
    throw DeckError("--sweep '" + text + "': expected key=value1,value2,...");
  SweepAxis axis{canonical_key(text.substr(0, eq)), split(text.substr(eq + 1), ',')};
  if (text.back() == ',') axis.values.push_back("");
  for (std::size_t i = 0; i < axis.values.size(); ++i) {
    if (axis.values[i].empty()) throw DeckError("--sweep '" + text + "': an empty value");
    for (std::size_t j = 0; j < i; ++j)
      if (axis.values[j] == axis.values[i])
        throw DeckError("--sweep '" + text + "': the value '" + axis.values[i] + "' is given twice");
  }
  return axis;
}

std::map<std::string, std::string> parse_baseline(const std::string& text) {
  std::map<std::string, std::string> baseline;
  // An empty pair (a comma too many) is refused, as --sweep refuses an empty value.
  if (text.empty() || text.back() == ',') throw DeckError("--baseline '" + text + "': an empty key=value");
  for (const std::string& part : split(text, ',')) {
    const std::size_t eq = part.find('=');
    if (eq == std::string::npos || eq == 0 || eq + 1 == part.size())
      throw DeckError("--baseline '" + text + "': expected key=value,key=value");
    const std::string key = canonical_key(part.substr(0, eq));
    if (baseline.count(key)) throw DeckError("--baseline '" + text + "': '" + key + "' is given twice");
    baseline[key] = part.substr(eq + 1);
  }
  return baseline;
}

namespace {

// The configuration of one row: the deck with the swept deck keys set, then the swept
// strategy keys (which are not deck keys) applied.
Config row_config(const BenchOptions& o, const std::map<std::string, std::string>& values) {
  std::vector<std::string> deck_sets = o.sets;
  for (const auto& [key, value] : values) {
    Config scratch;
    if (!apply_strategy_key(scratch, key, value, "--sweep " + key)) deck_sets.push_back(key + "=" + value);
  }
  Config c = load_deck(o.deck, deck_sets);
  for (const auto& [key, value] : values) apply_strategy_key(c, key, value);
  return c;
}

// The swept values of row `index` of the matrix, the first axis slowest.
std::map<std::string, std::string> row_values(const BenchOptions& o, std::size_t index) {
  std::map<std::string, std::string> values;
  for (std::size_t a = o.sweeps.size(); a-- > 0;) {
    const SweepAxis& axis = o.sweeps[a];
    values[axis.key] = axis.values[index % axis.values.size()];
    index /= axis.values.size();
  }
  return values;
}

std::size_t row_count(const BenchOptions& o) {
  std::size_t total = 1;
  for (const SweepAxis& axis : o.sweeps) total *= axis.values.size();
  return total;
}

// The configuration a row's run really is, in words: bench sets the step count itself, writes
// no snapshots or scheduled checkpoints, and gives each run its own folder, so the deck's keys
// for those change nothing (two rows that differ only there run the same).
std::string what_bench_runs(Config c, const BenchOptions& o) {
  // `auto` as the run will resolve it: a row of auto and a row of what it picks run the same.
  std::array<int, 3> dims = {1, 1, 1};
  try {
    dims = choose_process_grid(c.n, c.ranks_grid, world_size());
  } catch (const DeckError&) {  // the row cannot run on these ranks: its run will say so
  }
  c.kernels = choose_kernels(c, dims);
  c.halo = resolved_halo(c.halo, world_size());
  c.max_steps = kWarmupSteps + kTracedStepsUnsampled + o.repeat * o.steps;
  c.checkpoint = CheckpointSetup{};
  c.output_interval = 0;
  c.output_final = false;
  c.output_collective = false;
  c.out_dir = o.out_dir;
  c.report_path.clear();
  return configuration_lines(c);
}

// Where configuration `index` of the sweep runs: its report.
std::string run_dir(const BenchOptions& o, std::size_t index) { return o.out_dir + "/runs/" + std::to_string(index); }

// A configuration's name: its swept values ("layout=soa precision=fp64"); a bench with no
// --sweep runs one, the deck as set.
std::string row_name(const BenchOptions& o, const std::map<std::string, std::string>& values) {
  std::string name;
  for (const SweepAxis& axis : o.sweeps) name += (name.empty() ? "" : " ") + axis.key + "=" + values.at(axis.key);
  return name.empty() ? "(the deck)" : name;
}

}  // namespace

std::string bench_lines(const BenchOptions& o) {
  std::string lines = configuration_lines(load_deck(o.deck, o.sets));
  for (const SweepAxis& axis : o.sweeps) {
    lines += "sweep " + axis.key + " =";
    for (const std::string& v : axis.values) lines += " " + v;
    lines += "\n";
  }
  lines += "baseline =";
  for (const auto& [key, value] : o.baseline) lines += " " + key + "=" + value;
  lines +=
      "\nrepeat = " + std::to_string(o.repeat) + "\nsteps = " + std::to_string(o.steps) + "\nout = " + o.out_dir + "\n";
  return lines;
}

static bool set_by_bench(const std::string& key) {
  return key == "time.max_steps" || key == "checkpoint" || key.rfind("checkpoint.", 0) == 0 || key == "output" ||
         key.rfind("output.", 0) == 0;
}

void check_bench_runs(const BenchOptions& o) {
  std::set<std::string> backends;
  for (std::size_t index = 0; index < row_count(o); ++index) {
    const Config c = row_config(o, row_values(o, index));
    backends.insert(backend_name(c.backend));
    check_output_file(run_dir(o, index) + "/report.json", "bench run report", {o.deck}, OutputKind::RunReport);
    check_output_names(run_dir(o, index), {o.deck});
  }
  for (const std::string& backend : backends) check_probe_cache(o.out_dir, backend, 0);
}

std::string bench_sets_without_effect(const BenchOptions& o) {
  const std::string keys = overridden_keys_that(o.sets, set_by_bench);
  if (keys.empty()) return "";
  return "--set " + keys +
         " no effect on bench: each run takes --repeat x --steps steps and writes no snapshots nor scheduled "
         "checkpoints";
}

std::string earlier_bench_runs_note(const BenchOptions& o) {
  const std::size_t rows = row_count(o);
  std::vector<std::size_t> earlier;
  std::error_code ec;
  for (const auto& entry : std::filesystem::directory_iterator(o.out_dir + "/runs", ec)) {
    const std::string name = entry.path().filename().string();
    if (name.empty() || name.size() > 9 || name.find_first_not_of("0123456789") != std::string::npos) continue;
    const std::size_t index = std::stoul(name);
    if (index >= rows && entry.is_directory(ec)) earlier.push_back(index);
  }
  std::sort(earlier.begin(), earlier.end());
  std::vector<std::string> paths;
  for (const std::size_t index : earlier) paths.push_back(run_dir(o, index));
  return earlier_run_note(paths, "folder", "bench",
                          "this sweep has " + std::to_string(rows) + " configuration" + (rows == 1 ? "" : "s") +
                              ", and bench.json lists only its own");
}

// Whether a --baseline value names a swept one: the same text, or the same number ("0.40" and
// "0.4").
bool names_value(const std::string& given, const std::string& swept) {
  if (given == swept) return true;
  char* end_given = nullptr;
  char* end_swept = nullptr;
  const double a = std::strtod(given.c_str(), &end_given), b = std::strtod(swept.c_str(), &end_swept);
  return *end_given == '\0' && *end_swept == '\0' && end_given != given.c_str() && end_swept != swept.c_str() &&
         std::isfinite(a) && a == b;
}

void check_bench_options(const BenchOptions& o) {
  for (std::size_t a = 0; a < o.sweeps.size(); ++a)
    for (std::size_t b = 0; b < a; ++b)
      if (o.sweeps[a].key == o.sweeps[b].key)
        throw DeckError("--sweep " + o.sweeps[a].key + " is given twice (under any of its names)");
  for (const auto& [key, value] : o.baseline) {
    bool key_swept = false, swept = false;
    for (const SweepAxis& axis : o.sweeps) {
      key_swept = key_swept || axis.key == key;
      for (const std::string& v : axis.values) swept = swept || (axis.key == key && names_value(value, v));
    }
    if (!key_swept)
      throw DeckError("--baseline " + key + "=" + value + ": " + key + " is not swept (a baseline names swept values)");
    if (!swept) throw DeckError("--baseline " + key + "=" + value + " is not one of the swept values");
  }
  // A row named by a value bench replaces would say what it did not run (--set says so in a
  // note; a sweep names every row by it).
  for (const SweepAxis& axis : o.sweeps)
    if (set_by_bench(axis.key))
      throw DeckError("--sweep " + axis.key +
                      ": a key bench sets itself (each run takes --repeat x --steps steps and writes no snapshots "
                      "nor scheduled checkpoints)");
  if (o.repeat < 1) throw DeckError("--repeat must be >= 1");
  if (o.steps < 1) throw DeckError("--steps must be >= 1");
  // A bad deck or a misspelt value is refused before any run (exit code 2); only whole
  // configurations that cannot run here are skipped.
  load_deck(o.deck, o.sets);
  for (const SweepAxis& axis : o.sweeps)
    for (const std::string& value : axis.values) {
      try {
        row_config(o, {{axis.key, value}});
      } catch (const DeckError& e) {
        // The deck reader names the override it was given; the user wrote a sweep.
        std::string text = e.what();
        const std::string as_set = "--set " + axis.key + "=" + value;
        const std::size_t at = text.find(as_set);
        if (at != std::string::npos)
          text.replace(at, as_set.size(), "--sweep " + axis.key + " (value '" + value + "')");
        throw DeckError(text);
      }
    }
  // Two rows that resolve to one configuration (0.5 and 0.50) would each claim to be
  // something the other is not.
  std::map<std::string, std::string> seen;  // configuration -> the first row's name
  const std::size_t total = row_count(o);
  if (total > kMaxBenchRows)
    throw DeckError("--sweep: the matrix has " + std::to_string(total) + " configurations; at most " +
                    std::to_string(kMaxBenchRows) + " are allowed");
  for (std::size_t index = 0; index < total; ++index) {
    const std::map<std::string, std::string> values = row_values(o, index);
    const auto [it, fresh] = seen.emplace(what_bench_runs(row_config(o, values), o), row_name(o, values));
    if (!fresh)
      throw DeckError("--sweep: rows '" + it->second + "' and '" + row_name(o, values) +
                      "' run the same configuration (a value repeated under another spelling, 'auto' beside "
                      "what it picks here, a key that another one overrides, such as grid.n under an explicit "
                      "grid.nx, or a key bench sets itself: time.max_steps, checkpoint.*, output.*)");
  }
}

namespace {

// The run, then signals recorded again (the run ended the process at once), whether the run
// ended well or threw (a failed or refused row): the next run's start ends the command
// cleanly, not in the middle of writing a report or bench.json.
RunResult run_then_record_signals(const Config& c, const RunOptions& options) {
  struct RecordSignalsAfter {
    ~RecordSignalsAfter() { install_stop_signals(); }
  } record_after;
  return run_simulation(c, options);
}

}  // namespace

MeasuredRun measure_run(Config c, int repeat, long steps, const Provenance& provenance, bool progress_line) {
  // One run: the warm-up, the traced step and the one after it, then `repeat` blocks of
  // `steps` steps, each block one repetition. The set-up and the final checks (seconds at
  // 256^3) are paid once, not once per repetition.
  c.max_steps = kWarmupSteps + kTracedStepsUnsampled + repeat * steps;
  c.checkpoint.every_steps = 0;
  c.checkpoint.every_seconds = 0;
  validate(c);
  RunOptions options;
  options.write_output = false;
  // Nothing restarts a bench or benchmark run: a signal ends it at once with nothing saved,
  // rather than with a checkpoint (hundreds of MB at 256^3) that only fills the disk.
  options.checkpoints = false;
  options.keep_final_state = false;
  options.provenance = provenance;
  options.progress = progress_line;
  const auto started = std::chrono::steady_clock::now();
  const RunResult r = run_then_record_signals(c, options);  // the backend is freed on return
  MeasuredRun m;
  m.run_s = std::chrono::duration<double>(std::chrono::steady_clock::now() - started).count();
  m.report = make_report(c, r);
  // The step-time samples after the warm-up, in order, cut into the blocks.
  const std::vector<double> samples(r.step_times.begin() + std::min<std::size_t>(kWarmupSteps, r.step_times.size()),
                                    r.step_times.end());
  if (r.steps < c.max_steps || samples.size() < static_cast<std::size_t>(repeat * steps))
    throw DeckError("the deck ended the run at step " + std::to_string(r.steps) + " of " + std::to_string(c.max_steps) +
                    " (t_end): raise time.t_end to benchmark it");
  for (int rep = 0; rep < repeat; ++rep) {
    const auto first = samples.begin() + static_cast<std::ptrdiff_t>(rep) * steps;
    m.step_s.push_back(median_of(std::vector<double>(first, first + steps)));
  }
  for (double t : samples) m.timed_s += t;
  m.cells = static_cast<double>(r.grid.ninterior);
  m.bytes_per_step = m.report["traffic"].value("bytes_per_step", 0.0);
  // Where a step's time goes: each timed phase's seconds per timed step.
  if (r.timed_steps > 0)
    for (const PhaseStats& p : r.timers)
      if (!phase::writes_files(p.name)) m.phases_per_step_s[p.name] = p.total_s / static_cast<double>(r.timed_steps);
  m.checksum = r.checksum;
  m.provenance = r.provenance;
  m.device = r.device;
  m.rank = r.rank;
  m.ranks = r.ranks;
  return m;
}

BenchResult run_bench(const BenchOptions& o, std::ostream* progress,
                      const std::function<void(const BenchResult&)>& after_each) {
  BenchResult result;
  result.options = o;
  result.provenance = o.provenance;
  check_bench_options(o);
  const std::size_t total = row_count(o);
  for (std::size_t index = 0; index < total; ++index) {
    BenchRow row;
    row.values = row_values(o, index);
    row.name = row_name(o, row.values);
    try {
      Config c = row_config(o, row.values);
      c.max_steps = kWarmupSteps + kTracedStepsUnsampled + o.repeat * o.steps;
      c.out_dir = run_dir(o, index);  // where its report goes
      validate(c);
      row.skipped = not_applicable(c, row.values);
      if (row.skipped.empty()) {
        if (progress) *progress << "bench: " << row.name << '\n' << std::flush;
        MeasuredRun m = measure_run(c, o.repeat, o.steps, o.provenance, o.progress_line);
        if (m.rank == 0) {
          // The device's copy bandwidth, probed once per backend and kept in the output
          // directory (as a run's), puts every row's bandwidth in proportion.
          std::string source;
          const ProbeResult probe = cached_probe(o.out_dir, backend_name(c.backend), 0, source, o.provenance);
          add_probe_to_report(m.report, probe, source);
          // The row's fractions hold its own median (of the repetitions' medians) against these,
          // as its FOM and bandwidth do; the report's hold the median of all its steps.
          row.copy_Bps = probe.copy_Bps * m.report["probe"].value("devices_counted", 1);
          row.arithmetic_limit = measured_or_zero(m.report["arithmetic"], "limit_cell_updates_per_s");
          write_report(m.report, run_dir(o, index) + "/report.json");
        }
        row.step_s = m.step_s;
        for (double step : m.step_s) row.fom.push_back(step > 0 ? m.cells / step : 0.0);
        row.run_s = m.run_s;
        row.cells = m.cells;
        row.bytes_per_step = m.bytes_per_step;
        row.phases_per_step_s = m.phases_per_step_s;
        row.checksum = m.checksum;
        row.fused_shape = m.report["config"].value("fused_shape", "");
        // Rank 0's record, with the GPU of the first configuration that ran on one.
        if (result.provenance.gpu == "none") result.provenance = m.provenance;
      }
    } catch (const DeckError& e) {
      row.skipped = e.what();
    } catch (const ResourceError& e) {
      row.skipped = e.what();
    } catch (const AgreedExit& e) {
      // A set-up step of the run refused it on some rank: bad input is a skip, the rest a failure.
      (e.status.code == 2 ? row.skipped : row.failed) = e.status.message;
    } catch (const Interrupted&) {
      throw;  // SIGINT, SIGTERM: the sweep ends (bench.json holds what it measured)
    } catch (const std::exception& e) {
      // This configuration failed (a numerical fault, a runtime's refusal): it is listed
      // as failed, and the sweep goes on to the others.
      row.failed = e.what();
    }
    if (row.ran()) {
      row.min_s = *std::min_element(row.step_s.begin(), row.step_s.end());
      row.max_s = *std::max_element(row.step_s.begin(), row.step_s.end());
      row.median_s = median_of(row.step_s);
      row.effective_Bps = row.median_s > 0 ? row.bytes_per_step / row.median_s : 0.0;
      row.fraction_of_copy_bandwidth = row.copy_Bps > 0 ? row.effective_Bps / row.copy_Bps : 0.0;
      row.fraction_of_arithmetic_limit =
          row.arithmetic_limit > 0 ? fom_cell_updates_per_s(row.cells, row.median_s) / row.arithmetic_limit : 0.0;
    } else if (progress) {
      *progress << "bench: " << row.name << (row.failed.empty() ? " skipped: " + row.skipped : " FAILED: " + row.failed)
                << '\n';
    }
    result.rows.push_back(row);
    if (after_each) after_each(result);
  }

  // The baseline: the configuration with the given values (the first one when none given).
  const BenchRow* base = nullptr;
  for (const BenchRow& row : result.rows) {
    bool match = true;
    for (const auto& [key, value] : o.baseline) match = match && names_value(value, row.values.at(key));
    if (match) {
      base = &row;
      break;
    }
  }
  if (base) result.baseline = base->name, result.baseline_ran = base->ran();
  if (result.baseline_ran && base->median_s > 0)
    for (BenchRow& row : result.rows)
      if (row.ran() && row.median_s > 0)  // rates, not times: rows of other grid sizes compare too
        row.speedup =
            fom_cell_updates_per_s(row.cells, row.median_s) / fom_cell_updates_per_s(base->cells, base->median_s);
  return result;
}

nlohmann::json bench_json(const BenchResult& r) {
  nlohmann::json rows = nlohmann::json::array();
  for (const BenchRow& row : r.rows) {
    nlohmann::json j = {{"name", row.name}, {"values", row.values}};
    if (!row.skipped.empty()) {
      j["skipped"] = row.skipped;
    } else if (!row.failed.empty()) {
      j["failed"] = row.failed;
    } else {
      j["step_s"] = {{"min", row.min_s}, {"median", row.median_s}, {"max", row.max_s}, {"repetitions", row.step_s}};
      j["fom_cell_updates_per_s"] = fom_cell_updates_per_s(row.cells, row.median_s);
      j["effective_bandwidth_Bps"] = row.effective_Bps;
      j["fraction_of_copy_bandwidth"] = row.fraction_of_copy_bandwidth;
      j["fraction_of_arithmetic_limit"] = row.fraction_of_arithmetic_limit;
      j["speedup"] = r.baseline_ran ? nlohmann::json(row.speedup) : nlohmann::json(nullptr);
      j["checksum"] = row.checksum;
      j["run_s"] = row.run_s;
      j["phases_per_step_s"] = row.phases_per_step_s;
      if (!row.fused_shape.empty()) j["fused_shape"] = row.fused_shape;
    }
    rows.push_back(j);
  }
  nlohmann::json sweeps = nlohmann::json::array();
  for (const SweepAxis& a : r.options.sweeps) sweeps.push_back({{"key", a.key}, {"values", a.values}});
  return {{"halocline_version", HALOCLINE_VERSION},
          {"provenance", provenance_json(r.provenance)},
          {"deck", r.options.deck},
          {"sets", r.options.sets},
          {"sweeps", sweeps},
          {"repeat", r.options.repeat},
          {"steps", r.options.steps},
          {"baseline", r.baseline_ran ? nlohmann::json(r.baseline) : nlohmann::json(nullptr)},
          {"rows", rows},
          {"configurations", row_count(r.options)},
          {"complete", r.rows.size() == row_count(r.options)},
          {"definitions",
           {{"complete",
             "whether every configuration of the sweep has its row: false in the file a stopped sweep "
             "(a signal) leaves, which holds the rows it finished"},
            {"step_s",
             "one run per configuration: after the warm-up (2 steps) and the traced step "
             "with the one after it, `repeat` blocks of `steps` steps; per block (repetition) "
             "the median step time; min, median and max over the repetitions"},
            {"fom_cell_updates_per_s", std::string("the figure of merit, ") + kFomDefinition +
                                           "; here the median over the repetitions of each block's median"},
            {"effective_bandwidth_Bps", "the bytes a step must move (report traffic) / median step time"},
            {"fraction_of_copy_bandwidth",
             "effective_bandwidth_Bps / (the probed copy bandwidth (OUT/probe-*.json) x the run's report's "
             "probe.devices_counted)"},
            {"fraction_of_arithmetic_limit",
             "fom_cell_updates_per_s / the run's report's arithmetic.limit_cell_updates_per_s (docs/report.md)"},
            {"speedup",
             "this configuration's fom_cell_updates_per_s / the baseline's (for one grid size, the baseline's "
             "median step time / this one's); null where the baseline did not run "
             "(then `baseline` is null); a bench with no --sweep runs one configuration, \"(the deck)\", "
             "its own baseline"},
            {"fused_shape", "with fused kernels, how the backend ran them: the run's report's config.fused_shape"},
            {"run_s", "the configuration's whole run: set-up, steps, final checks, memory freed"},
            {"phases_per_step_s",
             "each timed phase's total over the run's timed steps (all but the "
             "warm-up) / their number (the report's timers)"}}}};
}

std::string bench_csv(const BenchResult& r) {
  std::ostringstream os;
  for (const SweepAxis& a : r.options.sweeps) os << a.key << ',';
  os << "status,min_step_s,median_step_s,max_step_s,fom_cell_updates_per_s,effective_bandwidth_Bps,"
        "fraction_of_copy_bandwidth,speedup,reason\n";
  os << std::setprecision(9);
  for (const BenchRow& row : r.rows) {
    for (const SweepAxis& a : r.options.sweeps) os << row.values.at(a.key) << ',';
    if (!row.ran()) {
      std::string reason = row.failed.empty() ? row.skipped : row.failed;
      std::replace(reason.begin(), reason.end(), '"', '\'');
      os << (row.failed.empty() ? "skipped" : "failed") << ",,,,,,,,\"" << reason << "\"\n";
    } else {
      os << "ran," << row.min_s << ',' << row.median_s << ',' << row.max_s << ','
         << fom_cell_updates_per_s(row.cells, row.median_s) << ',' << row.effective_Bps << ','
         << row.fraction_of_copy_bandwidth << ',';
      if (r.baseline_ran) os << row.speedup;  // empty: no baseline ran
      os << ",\n";
    }
  }
  return os.str();
}

void print_bench(std::ostream& os, const BenchResult& r) {
  std::size_t width = 13;
  // Rates and bandwidths in the unit the largest needs (as tools/plot.py): a CPU's million
  // cell updates a second would read 0.001 Gcell/s.
  double fastest = 0, widest = 0;
  for (const BenchRow& row : r.rows) {
    width = std::max(width, row.name.size() + 2);
    if (row.ran())
      fastest = std::max(fastest, fom_cell_updates_per_s(row.cells, row.median_s)),
      widest = std::max(widest, row.effective_Bps);
  }
  const bool giga = fastest >= 1e9, tera = widest >= 1e12;
  os << std::left << std::setw(static_cast<int>(width)) << "configuration" << std::right << std::setw(11) << "median ms"
     << std::setw(10) << "min ms" << std::setw(10) << "max ms" << std::setw(12) << (giga ? "Gcell/s" : "Mcell/s")
     << std::setw(9) << (tera ? "TB/s" : "GB/s") << std::setw(9) << "speedup" << '\n';
  for (const BenchRow& row : r.rows) {
    os << std::left << std::setw(static_cast<int>(width)) << row.name << std::right;
    if (!row.ran()) {
      os << (row.failed.empty() ? "skipped: " + row.skipped : "FAILED: " + row.failed) << '\n';
      continue;
    }
    os << std::fixed << std::setprecision(3) << std::setw(11) << row.median_s * 1e3 << std::setw(10) << row.min_s * 1e3
       << std::setw(10) << row.max_s * 1e3 << std::setw(12)
       << fom_cell_updates_per_s(row.cells, row.median_s) / (giga ? 1e9 : 1e6) << std::setw(9)
       << row.effective_Bps / (tera ? 1e12 : 1e9) << std::setprecision(2) << std::setw(9);
    if (r.baseline_ran)
      os << row.speedup << '\n';
    else
      os << "-" << '\n';  // no baseline ran
  }
  auto count = [](long n, const char* what) { return std::to_string(n) + " " + what + (n == 1 ? "" : "s"); };
  os << std::defaultfloat << std::setprecision(6)
     << "one run per configuration: " << count(r.options.repeat, "repetition") << " of "
     << count(r.options.steps, "step") << " after " << kWarmupSteps + kTracedStepsUnsampled
     << " untimed ones; baseline: "
     << (r.baseline_ran       ? r.baseline
         : r.baseline.empty() ? "none"
                              : r.baseline + ", which did not run: no speedups")
     << '\n';
}

}  // namespace halocline
