// The command line: `halocline run DECK ...`, `bench`, `benchmark`, `probe`, `info` and `verify`.
// Exit codes (app/failures.hpp): 0 success, 1 a verification FAIL or an unexpected error,
// 2 bad input (command line, deck, output path, a checkpoint that cannot be used, memory
// the machine lacks), 3 a numerical failure during the run, 4 a file that could not be
// written, 128 + N: stopped by signal N (SIGINT 130, SIGTERM 143).
#include <unistd.h>
#include <CLI/CLI.hpp>
#include <algorithm>
#include <cerrno>
#include <cmath>
#include <csignal>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <exception>
#include <filesystem>
#include <fstream>
#include <iostream>
#include <limits>
#include <map>
#include <optional>
#include <set>
#include <sstream>

#include "app/bench.hpp"
#include "app/benchmark.hpp"
#include "app/benchmark_output.hpp"
#include "app/build_info.hpp"
#include "app/checkpoints.hpp"
#include "app/comm.hpp"
#include "app/compare.hpp"
#include "app/driver.hpp"
#include "app/failures.hpp"
#include "app/info.hpp"
#include "app/outputs.hpp"
#include "app/plot_script.hpp"
#include "app/probe.hpp"
#include "app/problems.hpp"
#include "app/provenance.hpp"
#include "app/report.hpp"
#include "app/select.hpp"
#include "app/signals.hpp"
#include "app/verify.hpp"
#include "io/checkpoint.hpp"
#include "io/deck.hpp"
#include "io/h5util.hpp"
#include "kernels/contract/backend.hpp"

namespace hc = halocline;

namespace {

struct RunArgs {
  std::string deck;
  std::string layout, precision, backend, owner, host_mem, prefetch, halo, kernels, kokkos_tile;
  std::vector<int> ranks_grid;
  long steps = -1;
  std::vector<std::string> sets;
  std::string out, report, restart;
  bool quiet = false, no_probe = false, hdf5_errors = false;
};

// The run's configuration: the deck, its overrides, then the command line's options.
// The --set overrides the deck takes: --out wins over output.dir, so a --set of it beside
// --out is dropped, not checked (the deck's own output.dir is still the deck's, and checked).
std::vector<std::string> deck_overrides(const RunArgs& a) {
  std::vector<std::string> sets;
  for (const std::string& set : a.sets)
    if (a.out.empty() || set.rfind("output.dir=", 0) != 0) sets.push_back(set);
  return sets;
}

hc::Config run_config(const RunArgs& a) {
  hc::Config config = hc::load_deck(a.deck, deck_overrides(a));
  const std::pair<const char*, const std::string*> choices[] = {
      {"layout", &a.layout}, {"precision", &a.precision}, {"backend", &a.backend},
      {"owner", &a.owner},   {"host-mem", &a.host_mem},   {"prefetch", &a.prefetch},
      {"halo", &a.halo},     {"kernels", &a.kernels},     {"kokkos-tile", &a.kokkos_tile}};
  for (const auto& [key, value] : choices)
    if (!value->empty()) hc::apply_strategy_key(config, key, *value);
  if (!a.ranks_grid.empty()) {
    if (a.ranks_grid.size() != 3) throw hc::DeckError("--ranks-grid takes three positive numbers PX,PY,PZ");
    for (int d = 0; d < 3; ++d) config.ranks_grid[d] = a.ranks_grid[d];
  }
  if (a.steps > 0) config.max_steps = a.steps;
  if (!a.out.empty()) config.out_dir = a.out;
  config.restart_path = a.restart;
  config.report_path = a.report.empty() ? (std::filesystem::path(config.out_dir) / "report.json").string() : a.report;
  hc::validate(config);
  return config;
}

// The memory choices named on the command line, for hc::choice_without_effect: prefetching
// and the Kokkos tile; the host memory kind only where no GPU runs (on a GPU a run's files are
// staged through it too, so it is never without effect there).
std::map<std::string, std::string> named_memory_choices(const RunArgs& a, const hc::Config& config) {
  std::map<std::string, std::string> named;
  for (const auto& [key, value] : {std::pair{"prefetch", &a.prefetch}, {"kokkos-tile", &a.kokkos_tile}})
    if (!value->empty()) named[key] = *value;
  if (!a.host_mem.empty() && !hc::runs_on_gpu(config.backend)) named["host-mem"] = a.host_mem;  // no GPU: no staging
  return named;
}

// A --set grid.n=N that cannot change the grid: the deck gives its sizes per direction
// (grid.nx, ... win over n), as the 1-D and 2-D decks do, so two other values of n give the
// same grid. Empty otherwise, and where that cannot be told.
std::string grid_n_without_effect(const RunArgs& a, const hc::Config& config) {
  std::vector<std::string> others;
  std::string given;
  for (const std::string& set : deck_overrides(a))
    if (set.rfind("grid.n=", 0) == 0)
      given = set;
    else
      others.push_back(set);
  if (given.empty()) return "";
  try {
    auto grid_with = [&](const char* n) {
      std::vector<std::string> sets = others;
      sets.push_back(n);
      return hc::parse_deck(config.deck_text, config.deck_path, sets).n;  // the text as read: a pipe is read once
    };
    if (grid_with("grid.n=8") != grid_with("grid.n=9")) return "";
  } catch (const std::exception&) {
    return "";
  }
  return given + " changes no size: the deck gives grid.nx, grid.ny or grid.nz, which win over grid.n (set those)";
}

// A restart's state is the checkpoint's: a --set of the problem's own parameters (sedov.energy,
// riemann.left, ...), which only make the initial state, changes nothing, and the run says so.
std::string problem_sets_without_effect(const RunArgs& a, const hc::Config& config) {
  if (config.restart_path.empty()) return "";
  std::vector<std::string> idle;  // each key once, in the order given
  for (const std::string& set : deck_overrides(a)) {
    const std::string key = hc::override_key(set);
    if (hc::is_problem_parameter(key) && std::find(idle.begin(), idle.end(), key) == idle.end()) idle.push_back(key);
  }
  if (idle.empty()) return "";
  std::string keys;
  for (const std::string& key : idle) keys += (keys.empty() ? "" : ", ") + key;
  return keys + (idle.size() == 1 ? " has" : " have") +
         " no effect on a restart: the state is the checkpoint's (a problem's parameters only make its initial state)";
}

// What rank 0 makes ready before any work, and undoes if the run is refused: the output
// directory (created, locked), the report's and the checkpoints' directories, each path
// checked (app/outputs.hpp).
struct RunOutputs {
  hc::OutputDirectory out;
  std::vector<std::string> created;  // other directories made for the run
  ~RunOutputs() { hc::remove_if_empty(created); }
};

void prepare_outputs(const hc::Config& config, long restart_step, RunOutputs& outputs) {
  const std::vector<std::string> inputs = {config.deck_path, config.restart_path};
  const auto check_report = [&] {
    hc::check_output_file(config.report_path, "report", inputs, hc::OutputKind::RunReport);
  };
  check_report();  // before any directory is made
  outputs.out.open(config.out_dir);
  auto make = [&](const std::string& dir) {
    for (const std::string& d : hc::create_writable_directory(dir)) outputs.created.push_back(d);
  };
  const std::filesystem::path report_dir = std::filesystem::path(config.report_path).parent_path();
  if (!report_dir.empty()) make(report_dir.string());
  check_report();  // and after: it may be one of them
  // Another run's directory is never written into: the report's, nor the checkpoints' (the
  // run would prune that run's checkpoints).
  const std::string report_where = report_dir.empty() ? "." : report_dir.string();
  hc::check_not_in_running_output(report_where, "report directory", config.out_dir);
  hc::check_not_in_running_output(hc::checkpoint_dir(config), "checkpoint directory", config.out_dir);
  // The run's own names must not be its inputs, except a restart file under its own
  // checkpoint name (later checkpoints have later names; pruning spares it).
  std::vector<std::string> named_inputs = {config.deck_path};
  if (!config.restart_path.empty() && std::filesystem::path(config.restart_path).filename() !=
                                          std::filesystem::path(hc::checkpoint_path("", restart_step)).filename())
    named_inputs.push_back(config.restart_path);
  hc::check_output_names(config.out_dir, named_inputs);
  if (!config.checkpoint.dir.empty()) {
    make(hc::checkpoint_dir(config));
    hc::check_output_names(hc::checkpoint_dir(config), named_inputs);
  }
}

// Every check that needs no work comes first, agreed by every rank (app/failures.hpp): a
// bad deck, a rank with another configuration, a process grid that cannot be, an unusable
// checkpoint, an output path the run may not write. (Memory the machine lacks is refused by
// the run's own set-up, for bench's runs too: app/driver.cpp.)
int do_run(const RunArgs& a, const hc::Provenance& provenance) {
  hc::install_stop_signals();  // a signal during set-up ends the run cleanly too
  hc::set_hdf5_error_printing(a.hdf5_errors);
  hc::Config config;
  hc::agreed([&] { config = run_config(a); });
  hc::agreed([&] { hc::check_same_configuration(config); });
  RunOutputs outputs;
  std::optional<std::vector<std::string>> restart_changes;  // the numerics a restart changes
  hc::agreed([&] {
    hc::choose_process_grid(config.n, config.ranks_grid, hc::world_size());
    // The problem's parameters against the grid (a Sedov radius that holds no cell centre).
    if (config.restart_path.empty()) (void)hc::initial_condition_of(config, hc::grid_of(config));
    long restart_step = -1;
    if (!config.restart_path.empty()) {
      const hc::CheckpointHeader h = hc::check_restart(config);
      restart_step = h.step;
      restart_changes = hc::restart_changes(h, config);
    }
    if (hc::world_rank() != 0) return;
    prepare_outputs(config, restart_step, outputs);
    if (!a.no_probe) hc::check_probe_cache(config.out_dir, hc::backend_name(config.backend), 0);
  });

  if (hc::world_rank() == 0)
    if (const std::string note =
            hc::earlier_run_note(hc::other_runs_checkpoints(config), "checkpoint", "run",
                                 "this run's checkpoints of the same steps replace them, and it prunes only its own");
        !note.empty())
      std::cerr << hc::one_line("halocline: note: " + note) << '\n';

  // Only for a run that goes on: a backend this binary cannot run is refused in one line.
  if (hc::backend_unavailable(config.backend).empty())
    for (const std::string& idle :
         {hc::choice_without_effect(config, named_memory_choices(a, config)), grid_n_without_effect(a, config),
          problem_sets_without_effect(a, config), hc::restart_changes_note(restart_changes)})
      if (hc::world_rank() == 0 && !idle.empty()) std::cerr << "halocline: note: " << idle << "; the run goes on\n";

  hc::RunOptions options;
  options.progress = !a.quiet && isatty(STDERR_FILENO);  // a line on a terminal, nothing in a log
  options.keep_final_state = false;                      // the state leaves the device for files only
  options.provenance = provenance;
  const hc::RunResult result = hc::run_simulation(config, options);
  if (result.rank != 0) return 0;  // rank 0 has the gathered state and speaks for the run
  for (const std::string& note :
       {hc::earlier_run_note(result.snapshots_past_restart, "file", "run",
                             "it lies past the checkpoint this run restarted from, and the series file leaves it out"),
        hc::earlier_run_note(result.snapshots_replaced, "file", "run",
                             "it lay past the checkpoint this run restarted from, and this run's snapshot of the same "
                             "number replaced it"),
        hc::earlier_run_note(result.earlier_snapshots, "file", "run", "the series file lists only this run's")})
    if (!note.empty()) std::cerr << hc::one_line("halocline: note: " + note) << '\n';
  nlohmann::json report = hc::make_report(config, result);
  if (!a.no_probe) {
    // The device's own copy bandwidth, measured once and kept in the output directory,
    // puts the run's effective bandwidth in proportion.
    std::string source;
    const hc::ProbeResult probe =
        hc::cached_probe(config.out_dir, hc::backend_name(config.backend), 0, source, result.provenance);
    hc::add_probe_to_report(report, probe, source);
  }
  hc::write_report(report, config.report_path);
  if (!a.quiet) {
    hc::print_summary(std::cout, config, result, report);
    std::cout << "report " << config.report_path << '\n';
  }
  return 0;
}

struct BenchArgs {
  std::string deck, out = "bench", baseline;
  std::vector<std::string> sets, sweeps;
  int repeat = 3;
  long steps = 20;
  bool quiet = false, plot = false;
};

// The python3 and the plot.py that --plot runs (app/plot_script.hpp), found before any work.
std::string plot_command() {
  const std::string python = hc::build::kPython;
  if (python.empty() || python.find("NOTFOUND") != std::string::npos)
    throw hc::DeckError("--plot: no python3 was found when this binary was built");
  return "'" + python + "' '" + hc::plot_script().string() + "'";
}

// tools/plot.py on a bench's results: the sweep's bars, the probe's copies if there is one
// in the directory, and the timelines of the baseline's run and its halo variants. Exit
// status of python.
int plot_bench(const std::string& plot, const std::filesystem::path& out, const hc::BenchResult& r) {
  namespace fs = std::filesystem;
  std::string command =
      plot + " --bench '" + (out / "bench.json").string() + "' --out '" + (out / "plots").string() + "'";
  for (const auto& e : fs::directory_iterator(out))
    if (e.path().filename().string().rfind("probe-", 0) == 0) command += " --probe '" + e.path().string() + "'";
  // Timelines: the baseline's run and those that differ from it in the halo strategy only
  // (so that sync and overlap can be set side by side).
  const hc::BenchRow* base = nullptr;
  for (const hc::BenchRow& row : r.rows)
    if (r.baseline_ran && row.name == r.baseline) base = &row;
  for (std::size_t i = 0; base && i < r.rows.size(); ++i) {
    bool same = r.rows[i].ran();
    for (const auto& [key, value] : r.rows[i].values) same = same && (key == "halo" || base->values.at(key) == value);
    if (same) command += " --report '" + (out / "runs" / std::to_string(i) / "report.json").string() + "'";
  }
  return std::system(command.c_str());
}

int do_bench(const BenchArgs& a, const hc::Provenance& provenance) {
  hc::install_stop_signals();
  hc::BenchOptions o;
  const bool root = hc::world_rank() == 0;
  const std::filesystem::path out(a.out);
  hc::OutputDirectory out_dir;
  std::string plot;
  hc::agreed([&] {
    o.deck = a.deck;
    o.sets = a.sets;
    for (const std::string& s : a.sweeps) o.sweeps.push_back(hc::parse_sweep(s));
    if (!a.baseline.empty()) o.baseline = hc::parse_baseline(a.baseline);
    o.repeat = a.repeat;
    o.steps = a.steps;
    o.out_dir = a.out;
    o.provenance = provenance;
    o.progress_line = root && !a.quiet && isatty(STDERR_FILENO);  // as `run`'s: a terminal, not a log
    hc::check_bench_options(o);
  });
  hc::agreed([&] { hc::check_same_lines("bench options", hc::bench_lines(o)); });
  hc::agreed([&] {
    if (!root) return;
    if (a.plot) plot = plot_command();
    for (const char* name : {"bench.json", "bench.csv"})
      hc::check_output_file((out / name).string(), "bench output", {o.deck},
                            name[6] == 'j' ? hc::OutputKind::BenchResults : hc::OutputKind::BenchTable);
    hc::check_bench_runs(o);
    out_dir.open(o.out_dir);
    const std::string earlier = hc::earlier_bench_runs_note(o);
    if (!earlier.empty()) std::cerr << hc::one_line("halocline: note: " + earlier) << '\n';
  });
  // bench.json and bench.csv are rewritten after each configuration: a sweep that is stopped
  // keeps the configurations it finished, and its last line says so.
  // Every rank says the same (each ends alone at a signal that ends it at once).
  std::string kept;
  auto save = [&](const hc::BenchResult& partial) {
    if (root) {
      hc::write_report(hc::bench_json(partial), (out / "bench.json").string(), "bench results");
      hc::write_file_atomically((out / "bench.csv").string(), hc::bench_csv(partial), "bench table");
    }
    kept = hc::one_line((out / "bench.json").string() + " and bench.csv keep the " +
                            std::to_string(partial.rows.size()) + " configuration(s) done",
                        8192);
    hc::say_at_signal_exit(kept);
  };
  hc::BenchResult r;
  try {
    r = hc::run_bench(o, root && !a.quiet ? &std::cerr : nullptr, save);
  } catch (const hc::Interrupted& e) {
    if (kept.empty()) throw;
    throw hc::Interrupted(e.signal, kept);
  }
  save(r);
  // A signal recorded after the last run (while its row was written), on any rank, ends the
  // command as one during the sweep would, on every rank.
  hc::agreed([&] {
    if (const int signal = hc::stop_signal()) throw hc::Interrupted(signal, kept);
  });
  if (!root) return 0;
  hc::print_bench(std::cout, r);
  std::cout << "bench " << (out / "bench.json").string() << ", " << (out / "bench.csv").string() << '\n';
  std::cout.flush();  // the table before anything plot.py prints
  if (a.plot && plot_bench(plot, out, r) != 0) throw std::runtime_error("--plot: tools/plot.py failed");
  const long failed =
      std::count_if(r.rows.begin(), r.rows.end(), [](const hc::BenchRow& row) { return !row.failed.empty(); });
  if (failed > 0) {
    std::cerr << "halocline: bench: " << failed << " configuration(s) failed (listed in bench.json)\n";
    return 1;
  }
  // A sweep that measured nothing did not do what it was asked.
  if (std::none_of(r.rows.begin(), r.rows.end(), [](const hc::BenchRow& row) { return row.ran(); })) {
    std::cerr << "halocline: bench: no configuration ran: each was skipped (the reasons are in bench.json)\n";
    return 1;
  }
  return 0;
}

struct BenchmarkArgs {
  hc::BenchmarkOptions options;
  bool quiet = false;
};

// `halocline benchmark`: the rules checked before anything is made on disk, then the
// output directory, then the work (app/benchmark.hpp); rank 0 writes the result and its
// summary. Exit code 1 when verification or a checksum fails (said by app/benchmark.cpp).
int do_benchmark(BenchmarkArgs a, const hc::Provenance& provenance) {
  hc::install_stop_signals();
  a.options.provenance = provenance;
  const bool root = hc::world_rank() == 0;
  a.options.progress_line = root && !a.quiet && isatty(STDERR_FILENO);  // as `run`'s
  const std::filesystem::path out(a.options.out_dir);
  hc::BenchmarkResult result = hc::plan_benchmark(a.options);
  hc::OutputDirectory out_dir;
  hc::agreed([&] {
    if (!root) return;
    hc::check_output_file((out / "benchmark.json").string(), "benchmark result", {}, hc::OutputKind::BenchmarkResult);
    hc::check_output_file((out / "benchmark.md").string(), "benchmark summary", {}, hc::OutputKind::BenchmarkSummary);
    for (const char* precision : {"fp64", "fp32"}) {  // each precision's run (app/benchmark.cpp)
      const std::filesystem::path run = out / "runs" / precision;
      hc::check_output_file((run / "report.json").string(), "benchmark run report", {}, hc::OutputKind::RunReport);
      hc::check_output_names(run.string(), {});
    }
    out_dir.open(a.options.out_dir);
  });
  hc::measure_benchmark(result, root && !a.quiet ? &std::cerr : nullptr);
  if (!root) return 0;
  const nlohmann::json j = hc::benchmark_json(result);
  hc::write_report(j, (out / "benchmark.json").string(), "benchmark result");
  hc::write_file_atomically((out / "benchmark.md").string(), hc::benchmark_markdown(j), "benchmark summary");
  std::cout << hc::benchmark_terminal(j) << "benchmark " << (out / "benchmark.json").string() << ", "
            << (out / "benchmark.md").string() << '\n';
  return 0;
}

struct ProbeArgs {
  std::string backend = hc::backend_name(hc::default_backend()), out, json;  // the build's first
  int device = 0;
  bool quick = false;
};

int do_probe(const ProbeArgs& a, hc::Provenance provenance) {
  // One process measures one device: ranks of one job would each probe (sharing a device
  // or not), and the second would meet the first's lock on --out. Every rank refuses alike.
  hc::agreed([&] {
    if (hc::world_size() > 1)
      throw hc::DeckError("probe measures one device from one process, and this job has " +
                          std::to_string(hc::world_size()) + " ranks: run it without mpirun (--device picks the GPU)");
  });
  hc::ProbeOptions options;
  options.quick = a.quick;
  options.device = a.device;
  const int devices = hc::device_count(a.backend);
  if (a.device >= devices)
    throw hc::DeckError("probe --device " + std::to_string(a.device) + ": the " + a.backend + " backend has " +
                        (devices == 1
                             ? std::string("one device here, 0")
                             : std::to_string(devices) + " devices here, 0 to " + std::to_string(devices - 1)));
  if (!a.json.empty()) hc::check_output_file(a.json, "--json", {}, hc::OutputKind::ProbeResult);
  // The probe's file goes where no run is writing now: --out is locked as a run's is (a run
  // there reads the cache, and a probe beside a run on the same device measures a shared one),
  // and --json lies in no running run's directory. Declared before `made`, so that the lock
  // goes last and takes the directory with it when the probe wrote nothing.
  hc::OutputDirectory out_dir;
  // Directories made for the probe's files are removed again if anything fails.
  struct Made {
    std::vector<std::string> dirs;
    bool keep = false;
    ~Made() {
      if (!keep) hc::remove_if_empty(dirs);
    }
  } made;
  auto make = [&](const std::string& dir) {
    for (const std::string& d : hc::create_writable_directory(dir)) made.dirs.push_back(d);
  };
  hc::install_stop_signals();  // a signal ends the probe after its measurement, the lock removed
  if (!a.out.empty()) {
    hc::check_probe_cache(a.out, a.backend, a.device);
    out_dir.open(a.out);
  }
  const std::filesystem::path json_dir = std::filesystem::path(a.json).parent_path();
  if (!a.json.empty()) {
    hc::check_not_in_running_output(json_dir.empty() ? "." : json_dir.string(), "--json directory", a.out);
    hc::check_output_file(a.json, "--json", {}, hc::OutputKind::ProbeResult);  // again: it may be the lock just taken
  }
  if (!json_dir.empty()) make(json_dir.string());
  const hc::ProbeResult r = hc::run_probe(a.backend, options);
  if (const int signal = hc::stop_signal())
    throw hc::AgreedExit(
        hc::ExitStatus{128 + signal, "",
                       "probe: interrupted by signal " + std::to_string(signal) + "; nothing was written", true, -1});
  hc::print_probe(std::cout, r);
  hc::add_device(provenance, hc::describe_device(a.backend, a.device, "probe"));
  const nlohmann::json j = hc::probe_json(r, provenance);
  if (!a.out.empty()) {
    // Where runs writing into the same directory find it (cached_probe).
    const std::string path = (std::filesystem::path(a.out) / hc::probe_cache_name(r.backend, r.device_name)).string();
    hc::write_report(j, path, "probe");
    std::cout << "probe " << path << '\n';
  }
  if (!a.json.empty()) hc::write_report(j, a.json, "probe JSON");
  made.keep = true;
  return 0;
}

struct InfoArgs {
  std::string backend = hc::backend_name(hc::default_backend());  // the build's first
  bool json = false;
};

int do_info(const InfoArgs& a, hc::Provenance provenance) {
  const hc::DeviceInfo device = hc::describe_device(a.backend, 0, "info");
  hc::add_device(provenance, device);
  nlohmann::json info = hc::info_json(device);
  info["provenance"] = hc::provenance_json(provenance);
  if (a.json)
    std::cout << info.dump(2) << '\n';
  else
    hc::print_info(std::cout, info);
  return 0;
}

int do_verify() {
  // Every rank runs every check (the runs are collective); rank 0 speaks.
  std::ostringstream elsewhere;
  std::ostream& os = hc::world_rank() == 0 ? std::cout : elsewhere;
  const std::vector<hc::Check> checks = hc::run_verification(os);
  int failed = 0;
  for (const hc::Check& c : checks) failed += !c.pass;
  os << (checks.size() - failed) << " passed, " << failed << " failed\n";
  return failed ? 1 : 0;
}

// CLI11's own range checks print their bounds in full (a 309-digit number for "positive"):
// these say the rule in the option's own terms.
CLI::Validator in_range(long lo, long hi = std::numeric_limits<long>::max()) {
  const std::string rule = hi == std::numeric_limits<long>::max()
                               ? ">= " + std::to_string(lo)
                               : "in [" + std::to_string(lo) + ", " + std::to_string(hi) + "]";
  return CLI::Validator(
      [lo, hi, rule](std::string& text) -> std::string {
        char* end = nullptr;
        errno = 0;
        const long long value = std::strtoll(text.c_str(), &end, 10);
        if (text.empty() || *end != '\0' || errno == ERANGE)
          return "must be an integer " + rule + " (got '" + text + "')";
        if (value < lo || value > hi) return "must be " + rule + " (got " + text + ")";
        return "";
      },
      rule);
}

// The same for a real number, finite: CLI11's Range lets "nan" through (every comparison with
// a NaN is false), and a NaN minimum time or spread bound then passes every rule it sets.
CLI::Validator number_in_range(double lo, double hi) {
  const auto text_of = [](double x) {
    std::ostringstream os;
    os << x;
    return os.str();
  };
  const std::string rule = "in [" + text_of(lo) + ", " + text_of(hi) + "]";
  return CLI::Validator(
      [lo, hi, rule](std::string& text) -> std::string {
        char* end = nullptr;
        const double value = std::strtod(text.c_str(), &end);  // out of range: inf, said not finite
        if (text.empty() || *end != '\0' || !std::isfinite(value))
          return "must be a number " + rule + " (got '" + text + "')";
        if (!(value >= lo && value <= hi)) return "must be " + rule + " (got " + text + ")";
        return "";
      },
      rule);
}

// Every rank's command-line outcome (`early`: -1 go on, else the exit code it ended with;
// `refused`: why the parse refused it) and command agreed: -1 when all go on with the same
// command, else the exit code every rank ends with. Rank 0 says a refusal once (naming the
// first refused rank where not every rank was) and a different command, naming the rank.
int agree_on_command(int early, const std::string& command, const std::optional<hc::ExitStatus>& refused) {
  try {
    // A command line refused on every rank is said once; on some ranks only, naming the first.
    hc::agreed([&] {
      if (refused) throw hc::AgreedExit(*refused);
    });
    const hc::AgreedStatus parsed = hc::agree_over_ranks(early > 0 ? early : 0);
    if (parsed.code != 0) return parsed.code;
    hc::agreed([&] { hc::check_same_lines("command line", "command = " + command + "\n"); });
  } catch (const hc::AgreedExit& e) {
    if (hc::world_rank() == 0) hc::print_failure(e.status);
    return e.status.code;
  }
  return early;
}

// CLI11's "The following arguments were not expected: 32 --szie" (its list reversed, an
// unknown option's value among it) as a user reads it: the unknown option first, as typed.
std::string extras_text(const std::string& message, int argc, char** argv) {
  std::set<std::string> extras;  // the words after the colon, each cut at '=' (--name=value)
  const std::size_t colon = message.find(':');
  std::istringstream words(colon == std::string::npos ? message : message.substr(colon + 1));
  for (std::string word; words >> word;) extras.insert(word.substr(0, word.find('=')));
  for (int i = 1; i < argc; ++i) {
    const std::string word = argv[i];
    const std::string name = word.substr(0, word.find('='));
    if (name.size() > 1 && name[0] == '-' && extras.count(name))
      return "unknown option '" + name + "' (--help lists the options)";
  }
  return message;
}

CLI::Validator non_empty() {
  return CLI::Validator([](std::string& text) { return text.empty() ? std::string("must not be empty") : ""; }, "PATH");
}

// `halocline run DECK [options]`: the options a run takes, into `a`.
CLI::App* add_run_command(CLI::App& app, RunArgs& a) {
  CLI::App* run = app.add_subcommand("run", "run a deck");
  run->add_option("deck", a.deck, "TOML deck (see docs/decks.md)")->required();
  run->add_option("--layout", a.layout, "aos | soa | aosoa (default: the deck's run.layout, else soa)");
  run->add_option("--precision", a.precision, "fp64 | fp32 (default: the deck's run.precision, else fp64)");
  run->add_option("--backend", a.backend,
                  std::string("kokkos | hip (default: the deck's run.backend, else ") +
                      hc::backend_name(hc::default_backend()) + ")");
  run->add_option("--owner", a.owner,
                  "GPU: who owns the state: device | host | managed (default: the deck's, else device)");
  run->add_option("--host-mem", a.host_mem, "GPU: host buffers: pinned | pageable (default: the deck's, else pinned)");
  run->add_option("--prefetch", a.prefetch, "GPU, managed owner: on | off (default: the deck's, else on)")
      ->check(CLI::IsMember({"on", "off"}));
  run->add_option(
      "--halo", a.halo,
      "halo exchange: auto | none | sync | overlap | gpu-aware (docs/halo.md; default: the deck's, else auto)");
  run->add_option("--kernels", a.kernels,
                  "a stage's kernels: auto | split (fluxes through memory) | fused (one pass) (docs/performance.md; "
                  "default: the deck's, else auto)");
  run->add_option("--kokkos-tile", a.kokkos_tile,
                  "kokkos backend: cells per thread block: auto | kokkos | flat | AxBxC (docs/kokkos.md; default: "
                  "auto)");
  run->add_option("--ranks-grid", a.ranks_grid, "MPI ranks per direction: PX,PY,PZ (default: MPI's choice)")
      ->delimiter(',')
      ->check(in_range(1));
  run->add_option("--steps", a.steps,
                  "stop after N >= 1 steps (sets time.max_steps; default: the deck's, else at t_end)")
      ->check(in_range(1));
  run->add_option("--set", a.sets, "override a deck key: --set grid.n=256 (repeatable)");
  run->add_option("--out", a.out, "output directory (default: the deck's output.dir, else out)")->check(non_empty());
  run->add_option("--restart", a.restart,
                  "continue from this checkpoint (docs/reliability.md; default: none, the deck's start)")
      ->check(non_empty());
  run->add_option("--report", a.report, "JSON report path (default OUT/report.json)")->check(non_empty());
  run->add_flag("--quiet", a.quiet, "print nothing on success");
  run->add_flag("--hdf5-errors", a.hdf5_errors,
                "also print HDF5's own error stack when a file cannot be read or written (debugging)");
  run->add_flag("--no-probe", a.no_probe, "leave the device's copy bandwidth out of the report (no probe run)");
  return run;
}

struct CompareArgs {
  std::vector<std::string> files;
  std::string plot;  // a directory for compare.png; empty: no plot
};

// `halocline compare A.json B.json ...`: every file read and recognised before anything is
// printed (exit 2, one line, for one that is not a result); the table on stdout.
int do_compare(const CompareArgs& a) {
  std::vector<nlohmann::json> results;
  std::string plot;
  hc::agreed([&] {
    for (const std::string& f : a.files) results.push_back(hc::read_benchmark_result(f));
    if (!a.plot.empty()) plot = plot_command();
  });
  if (hc::world_rank() != 0) return 0;
  std::cout << hc::compare_markdown(a.files, results);
  if (a.plot.empty()) return 0;
  std::string command = plot + " --out '" + a.plot + "'";
  for (const std::string& f : a.files) command += " --compare '" + hc::benchmark_result_path(f) + "'";
  std::cout.flush();  // the table before anything plot.py prints
  if (std::system((command + " >/dev/null").c_str()) != 0) throw std::runtime_error("--plot: tools/plot.py failed");
  std::cout << "\nplot " << (std::filesystem::path(a.plot) / "compare.png").string() << '\n';
  return 0;
}

CLI::App* add_compare_command(CLI::App& app, CompareArgs& a) {
  CLI::App* c = app.add_subcommand("compare", "benchmark results (benchmark.json) side by side, as a Markdown table");
  c->add_option("files", a.files, "result files of `halocline benchmark` (or its --out directories)")
      ->required()
      ->check(non_empty());
  c->add_option("--plot", a.plot,
                "also draw their figures of merit into DIR/compare.png (tools/plot.py; default: no plot)")
      ->check(non_empty());
  return c;
}

// `halocline benchmark [options]`: the options it takes, into `a`.
CLI::App* add_benchmark_command(CLI::App& app, BenchmarkArgs& a) {
  hc::BenchmarkOptions& o = a.options;
  CLI::App* b = app.add_subcommand(
      "benchmark",
      "benchmark this node by the run rules of docs/procurement.md: verify, probe, bench.toml in fp64 "
      "and fp32, checksums against the references; one result JSON and Markdown summary");
  b->add_option("--size", o.size, "cells per direction (default: chosen from the memory per device)")
      ->check(in_range(1, 1 << 20));
  b->add_option("--repeat", o.repeat,
                "repetitions per run (rule 4: at least 3; the reference checksums of rule 2 are for 3 x 12)")
      ->capture_default_str()
      ->check(in_range(1, 1000));
  b->add_option("--steps", o.steps,
                "timed steps per repetition (rule 4: at least 12; the references of rule 2 are for 3 x 12)")
      ->capture_default_str()
      ->check(in_range(1, 1000000));
  b->add_option("--min-time", o.min_time_s, "seconds of timed steps per configuration (run rule 4: at least 5)")
      ->capture_default_str()
      ->check(number_in_range(0.0, 1e6));
  b->add_option("--spread-warning", o.spread_warning, "warn when the repetitions' (max - min) / median is above this")
      ->capture_default_str()
      ->check(number_in_range(0.0, 1e3));
  b->add_option("--backend", o.backend, "kokkos | hip (default: the first built in)")
      ->check(CLI::IsMember({"kokkos", "hip"}));
  b->add_option("--out", o.out_dir, "where benchmark.json, benchmark.md and the runs' reports go")
      ->capture_default_str()
      ->check(non_empty());
  b->add_flag("--non-compliant", o.non_compliant,
              "run even when a run rule is broken; the result then says NON-COMPLIANT everywhere");
  b->add_flag("--quiet", a.quiet, "no progress lines");
  return b;
}

// `halocline bench DECK --sweep ...`: the options a sweep takes, into `a`.
CLI::App* add_bench_command(CLI::App& app, BenchArgs& a) {
  CLI::App* bench = app.add_subcommand("bench", "run a deck over a matrix of strategies, N repetitions each");
  bench->add_option("deck", a.deck, "TOML deck")->required();
  bench->add_option("--sweep", a.sweeps,
                    "key=v1,v2,...: layout, precision, backend, owner, host-mem, prefetch, halo, kernels, kokkos-tile, "
                    "or a deck key (repeatable: the matrix of all)");
  bench->add_option("--repeat", a.repeat, "repetitions of each configuration: blocks of --steps steps in its one run")
      ->capture_default_str()
      ->check(in_range(1));
  bench->add_option("--steps", a.steps, "timed steps of each repetition (after 4 untimed ones)")
      ->capture_default_str()
      ->check(in_range(1, 1000000));
  bench->add_option("--baseline", a.baseline,
                    "key=value,...: the configuration speedups are against (default: the sweep's first)");
  bench->add_option("--set", a.sets, "override a deck key for every run (repeatable)");
  bench->add_option("--out", a.out, "where bench.json, bench.csv and each run's report go")
      ->capture_default_str()
      ->check(non_empty());
  bench->add_flag("--quiet", a.quiet, "no progress lines");
  bench->add_flag("--plot", a.plot, "draw the results into OUT/plots (tools/plot.py)");
  return bench;
}

CLI::App* add_probe_command(CLI::App& app, ProbeArgs& a) {
  CLI::App* probe = app.add_subcommand("probe",
                                       "measure the machine: copy and triad bandwidth, "
                                       "host <-> device copies by size, launch latency");
  probe->add_option("--backend", a.backend, "kokkos | hip (default: the first built in)")
      ->check(CLI::IsMember({"kokkos", "hip"}));
  probe->add_option("--device", a.device, "GPU index")->capture_default_str()->check(in_range(0, 1 << 20));
  probe->add_option("--out", a.out, "also write it where runs into this directory find it (default: none)")
      ->check(non_empty());
  probe->add_option("--json", a.json, "also write the JSON here (default: none)")->check(non_empty());
  probe->add_flag("--quick", a.quick, "copy, triad and the arithmetic rates only");
  return probe;
}

CLI::App* add_info_command(CLI::App& app, InfoArgs& a) {
  CLI::App* info = app.add_subcommand("info", "describe the device and the build");
  info->add_option("--backend", a.backend, "kokkos | hip (default: the first built in)")
      ->check(CLI::IsMember({"kokkos", "hip"}));
  info->add_flag("--json", a.json, "as JSON");
  return info;
}

// Parses the command line: -1 where the command goes on, else the exit code every rank of the
// job agreed on. It ends here for --help, --version or a mistake in it (exit code 2, said by
// the rank that made it). Every rank agrees on that, and on the command, before anything else:
// one rank's --help, parse error or other subcommand must not leave the others waiting in MPI.
int parse_command_line(CLI::App& app, int argc, char** argv) {
  int early = -1;
  std::string command = "error";
  std::optional<hc::ExitStatus> refused;  // said once the ranks agree (agree_on_command)
  try {
    // A first word that is no option and no command: CLI11 would only say that a command is
    // required.
    if (argc > 1 && argv[1][0] != '-' &&
        app.get_subcommands([&](CLI::App* s) { return s->get_name() == argv[1]; }).empty())
      throw CLI::ParseError(std::string("unknown command '") + argv[1] +
                                "' (the commands: run, verify, bench, benchmark, compare, probe, info)",
                            CLI::ExitCodes::ExtrasError);
    app.parse(argc, argv);
    for (CLI::App* sub : app.get_subcommands()) command = sub->get_name();
  } catch (const CLI::CallForHelp& e) {
    early = app.exit(e), command = "help";
  } catch (const CLI::CallForAllHelp& e) {
    early = app.exit(e), command = "help";
  } catch (const CLI::CallForVersion& e) {
    early = app.exit(e), command = "version";
  } catch (const CLI::ExtrasError& e) {
    refused = hc::ExitStatus{2, "error: ", extras_text(e.what(), argc, argv), false, hc::world_rank()};
    early = 2;
  } catch (const CLI::ParseError& e) {
    refused = hc::ExitStatus{2, "error: ", e.what(), false, hc::world_rank()};
    early = 2;
  }
  return agree_on_command(early, command, refused);
}

}  // namespace

int main(int argc, char** argv) {
  // A file-size limit (ulimit -f, a quota of sorts) makes a write fail with EFBIG, reported
  // like a full disk (exit code 4), instead of killing the process with SIGXFSZ.
  std::signal(SIGXFSZ, SIG_IGN);
  // A signal while MPI starts (which can take a second) is said in one line too, where this
  // process runs alone; RuntimeSession puts these handlers back after MPI's (app/select.cpp).
  // Ranks of a launcher are left to it: it ends them and speaks for them, and a rank's own
  // line would be a second one.
  if (!hc::launched_as_one_of_several_ranks()) hc::install_start_signals();
  const std::vector<std::string> words(argv, argv + argc);  // as given, before MPI may take any
  hc::initialize_comm(argc, argv);                          // MPI first: it may take arguments of its own
  CLI::App app{"Halocline: a 3-D compressible Euler stencil mini-app for measuring memory strategies"};
  app.set_version_flag("--version", hc::version_text());  // app/info.cpp
  app.require_subcommand(1);
  app.fallthrough();  // inherited by the subcommands: `halocline run --version` is --version too

  RunArgs run_args;
  CLI::App* run = add_run_command(app, run_args);
  CLI::App* verify = app.add_subcommand("verify", "run the verification problems");

  BenchArgs bench_args;
  CLI::App* bench = add_bench_command(app, bench_args);
  BenchmarkArgs benchmark_args;
  CLI::App* benchmark = add_benchmark_command(app, benchmark_args);
  CompareArgs compare_args;
  CLI::App* compare = add_compare_command(app, compare_args);

  ProbeArgs probe_args;
  CLI::App* probe = add_probe_command(app, probe_args);
  InfoArgs info_args;
  CLI::App* info = add_info_command(app, info_args);

  const int agreed_exit = parse_command_line(app, argc, argv);
  if (agreed_exit >= 0) {
    hc::finalize_comm();
    return agreed_exit;
  }

  // A failure agreed by every rank (app/failures.hpp), or one every rank meets alike (a
  // numerical failure, a signal), is said once by rank 0 and ends every rank normally. Any
  // other may be this rank's alone: it says so, naming itself, and ends the whole job
  // (MPI_Abort) rather than leave the other ranks waiting in MPI.
  try {
    hc::RuntimeSession runtimes(argc, argv);
    try {
      const hc::Provenance provenance = hc::make_provenance(words);  // once, for every file the command writes
      if (run->parsed()) return do_run(run_args, provenance);
      if (verify->parsed()) return do_verify();
      if (probe->parsed()) return do_probe(probe_args, provenance);
      if (bench->parsed()) return do_bench(bench_args, provenance);
      if (benchmark->parsed()) return do_benchmark(benchmark_args, provenance);
      if (compare->parsed()) return do_compare(compare_args);
      if (info->parsed()) return do_info(info_args, provenance);
    } catch (...) {
      const hc::ExitStatus status = hc::classify(std::current_exception());
      if (status.every_rank) {
        if (hc::world_rank() == 0) hc::print_failure(status);
        return status.code;
      }
      hc::print_failure(status);
      hc::abort_comm(status.code);
      return status.code;
    }
  } catch (...) {  // the runtimes' own set-up (a GPU runtime that cannot start: exit 2) or tear-down
    const hc::ExitStatus status = hc::classify(std::current_exception());
    hc::print_failure(status);
    return status.code;
  }
  return 0;
}
