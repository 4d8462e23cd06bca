// `halocline run DECK`: the options a run takes, the checks before any work, the run and its report.
#include "app/commands.hpp"

#include <unistd.h>
#include <algorithm>
#include <exception>
#include <filesystem>
#include <iostream>
#include <map>
#include <optional>
#include <string>
#include <vector>

#include "app/checkpoints.hpp"
#include "app/failures.hpp"
#include "app/outputs.hpp"
#include "app/problems.hpp"
#include "app/report.hpp"
#include "app/signals.hpp"
#include "io/deck.hpp"
#include "io/h5util.hpp"

namespace halocline::cli {

namespace {

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
  const std::string keys = hc::overridden_keys_that(deck_overrides(a), hc::is_problem_parameter);
  if (keys.empty()) return "";
  return keys +
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

}  // namespace

// Every check that needs no work comes first, agreed by every rank (app/failures.hpp): a
// bad deck, a rank with another configuration, a process grid that cannot be, an unusable
// checkpoint, an output path the run may not write. (Memory the machine lacks is refused by
// the run's own set-up, for bench's runs too: app/simulation_setup.cpp.)
int do_run(const RunArgs& a, const hc::Provenance& provenance) {
  hc::install_stop_signals();  // a signal during set-up ends the run cleanly too
  hc::set_hdf5_error_printing(a.hdf5_errors);
  hc::Config config;
  hc::agreed([&] { config = run_config(a); });
  hc::agreed([&] { hc::check_same_configuration(config); });
  RunOutputs outputs;
  std::optional<std::vector<std::string>> restart_changes;  // the numerics a restart changes
  long restart_step = -1;
  hc::agreed([&] {
    hc::choose_process_grid(config.n, config.ranks_grid, hc::world_size());
    // The problem's parameters against the grid (a Sedov radius that holds no cell centre).
    if (config.restart_path.empty()) (void)hc::initial_condition_of(config, hc::grid_of(config));
    if (!config.restart_path.empty()) {
      const hc::CheckpointHeader h = hc::check_restart(config);
      restart_step = h.step;
      restart_changes = hc::restart_changes(h, config);
    }
  });
  hc::agreed_on_root([&] {
    prepare_outputs(config, restart_step, outputs);
    if (!a.no_probe) hc::check_probe_cache(config.out_dir, hc::backend_name(config.backend), 0);
  });

  if (hc::world_rank() == 0)
    if (const std::string note = hc::earlier_run_note(
            hc::other_runs_checkpoints(config), "checkpoint", "run",
            "this run replaces one only by a checkpoint of the same step, and it prunes only its own");
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
      ->check(at_least(1, std::numeric_limits<int>::max()));
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

}  // namespace halocline::cli
