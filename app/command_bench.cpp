// `halocline bench`, `benchmark` and `compare`: a sweep of strategies, the procurement benchmark, and
// the table of their results.
#include "app/commands.hpp"

#include <unistd.h>
#include <cstdlib>
#include <filesystem>
#include <iostream>
#include <string>
#include <vector>

#include "app/bench.hpp"
#include "app/benchmark_output.hpp"
#include "app/build_info.hpp"
#include "app/compare.hpp"
#include "app/failures.hpp"
#include "app/outputs.hpp"
#include "app/plot_script.hpp"
#include "app/signals.hpp"
#include "io/deck.hpp"
#include "io/h5util.hpp"

namespace halocline::cli {

namespace {

// tools/plot.py on a bench's results: the sweep's bars, the probe's copies if there is one
// in the directory, and the timelines of the baseline's run and its halo variants. Exit
// status of python.
int plot_bench(std::vector<std::string> command, const std::filesystem::path& out, const hc::BenchResult& r) {
  namespace fs = std::filesystem;
  for (const fs::path& p : {fs::path("--bench"), out / "bench.json", fs::path("--out"), out / "plots"})
    command.push_back(p.string());
  for (const auto& e : fs::directory_iterator(out))
    if (e.path().filename().string().rfind("probe-", 0) == 0)
      command.insert(command.end(), {"--probe", e.path().string()});
  // Timelines: the baseline's run and those that differ from it in the halo strategy only
  // (so that sync and overlap can be set side by side).
  const hc::BenchRow* base = nullptr;
  for (const hc::BenchRow& row : r.rows)
    if (r.baseline_ran && row.name == r.baseline) base = &row;
  for (std::size_t i = 0; base && i < r.rows.size(); ++i) {
    bool same = r.rows[i].ran();
    for (const auto& [key, value] : r.rows[i].values) same = same && (key == "halo" || base->values.at(key) == value);
    if (same) command.insert(command.end(), {"--report", (out / "runs" / std::to_string(i) / "report.json").string()});
  }
  return hc::run_plot(command, false);
}

}  // namespace

int do_bench(const BenchArgs& a, const hc::Provenance& provenance) {
  hc::install_stop_signals();
  hc::BenchOptions o;
  const bool root = hc::world_rank() == 0;
  const std::filesystem::path out(a.out);
  hc::OutputDirectory out_dir;
  std::vector<std::string> plot;
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
  hc::agreed_on_root([&] {
    if (a.plot) {
      plot = hc::plot_command();
      hc::check_plot_folder(out / "plots", "--plot");
    }
    for (const char* name : {"bench.json", "bench.csv"})
      hc::check_output_file((out / name).string(), "bench output", {o.deck},
                            name[6] == 'j' ? hc::OutputKind::BenchResults : hc::OutputKind::BenchTable);
    hc::check_bench_runs(o);
    out_dir.open(o.out_dir);
    for (const std::string& note : {hc::earlier_bench_runs_note(o), hc::bench_sets_without_effect(o)})
      if (!note.empty()) std::cerr << hc::one_line("halocline: note: " + note) << '\n';
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

// `halocline bench DECK --sweep ...`: the options a sweep takes, into `a`.
CLI::App* add_bench_command(CLI::App& app, BenchArgs& a) {
  CLI::App* bench = app.add_subcommand("bench", "run a deck over a matrix of strategies, N repetitions each");
  bench->add_option("deck", a.deck, "TOML deck")->required();
  bench->add_option("--sweep", a.sweeps,
                    "key=v1,v2,...: layout, precision, backend, owner, host-mem, prefetch, halo, kernels, kokkos-tile, "
                    "or a deck key (repeatable: the matrix of all)");
  bench->add_option("--repeat", a.repeat, "repetitions of each configuration: blocks of --steps steps in its one run")
      ->capture_default_str()
      ->check(at_least(1, std::numeric_limits<int>::max()));
  bench->add_option("--steps", a.steps, "timed steps of each repetition (after 4 untimed ones)")
      ->capture_default_str()
      ->check(in_range(1, 1000000));
  bench
      ->add_option("--baseline", a.baseline,
                   "key=value,...: the configuration speedups are against (default: the sweep's first)")
      ->check(non_empty());
  bench->add_option("--set", a.sets, "override a deck key for every run (repeatable)");
  bench->add_option("--out", a.out, "where bench.json, bench.csv and each run's report go")
      ->capture_default_str()
      ->check(non_empty());
  bench->add_flag("--quiet", a.quiet, "no progress lines");
  bench->add_flag("--plot", a.plot, "draw the results into OUT/plots (tools/plot.py)");
  return bench;
}

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
  hc::agreed_on_root([&] {
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

// `halocline benchmark [options]`: the options it takes, into `a`.
CLI::App* add_benchmark_command(CLI::App& app, BenchmarkArgs& a) {
  hc::BenchmarkOptions& o = a.options;
  CLI::App* b = app.add_subcommand(
      "benchmark",
      "benchmark this node by the run rules of docs/procurement.md: verify, probe, bench.toml in fp64 "
      "and fp32, checksums against the references; one result JSON and Markdown summary");
  b->add_option("--size", o.size, "cells per direction (default: chosen from the memory per device)")
      ->check(in_range(2, 1 << 20));
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

// `halocline compare A.json B.json ...`: every file read and recognised before anything is
// printed (exit 2, one line, for one that is not a result); the table on stdout.
int do_compare(const CompareArgs& a) {
  std::vector<nlohmann::json> results;
  std::vector<std::string> plot;
  hc::agreed([&] {
    for (const std::string& f : a.files) results.push_back(hc::read_benchmark_result(f));
    if (!a.plot.empty()) {
      plot = hc::plot_command();
      hc::check_plot_folder(a.plot, "--plot");
    }
  });
  if (hc::world_rank() != 0) return 0;
  std::cout << hc::compare_markdown(a.files, results);
  if (a.plot.empty()) return 0;
  plot.insert(plot.end(), {"--out", a.plot});
  for (const std::string& f : a.files) plot.insert(plot.end(), {"--compare", hc::benchmark_result_path(f)});
  std::cout.flush();  // the table before anything plot.py prints
  const bool had_folder = std::filesystem::exists(a.plot);
  if (hc::run_plot(plot, true) != 0) {
    std::error_code ec;
    if (!had_folder) std::filesystem::remove(a.plot, ec);  // the folder plot.py made, if it stayed empty
    throw std::runtime_error("--plot: tools/plot.py failed");
  }
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

}  // namespace halocline::cli
