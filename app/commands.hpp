// The command line's commands (app/main.cpp reads the line and calls one): each one's
// options as parsed (its Args), how its options are added to the parser (add_*_command) and
// its work once every rank has agreed on the line (do_*, the exit code). The files:
// app/command_run.cpp (run), app/command_bench.cpp (bench, benchmark, compare),
// app/command_tools.cpp (probe, info, verify), app/command_line.cpp (the parse, shared
// validators).
#pragma once

#include <CLI/CLI.hpp>
#include <limits>
#include <string>
#include <vector>

#include "app/benchmark.hpp"
#include "app/provenance.hpp"
#include "app/select.hpp"

namespace halocline::cli {

namespace hc = halocline;

// `halocline run DECK`: the deck, the strategies and overrides, where its files go.
struct RunArgs {
  std::string deck;
  std::string layout, precision, backend, owner, host_mem, prefetch, halo, kernels, kokkos_tile;
  std::vector<int> ranks_grid;
  long steps = -1;
  std::vector<std::string> sets;
  std::string out, report, restart;
  bool quiet = false, no_probe = false, hdf5_errors = false;
};

// `halocline bench DECK`: the sweep, repetitions and steps, where bench.json goes.
struct BenchArgs {
  std::string deck, out = "bench", baseline;
  std::vector<std::string> sets, sweeps;
  int repeat = 3;
  long steps = 20;
  bool quiet = false, plot = false;
};

// `halocline benchmark`: the procurement run's options (app/benchmark.hpp).
struct BenchmarkArgs {
  hc::BenchmarkOptions options;
  bool quiet = false;
};

// `halocline probe`: which backend and device to measure, where the result goes.
struct ProbeArgs {
  std::string backend = hc::backend_name(hc::default_backend()), out, json;  // the build's first
  int device = 0;
  bool quick = false;
};

// `halocline info`: which backend to describe, as text or JSON.
struct InfoArgs {
  std::string backend = hc::backend_name(hc::default_backend());  // the build's first
  bool json = false;
};

// `halocline compare A.json B.json ...`: the results to set side by side.
struct CompareArgs {
  std::vector<std::string> files;
  std::string plot;  // a directory for compare.png; empty: no plot
};

CLI::App* add_run_command(CLI::App& app, RunArgs& a);
int do_run(const RunArgs& a, const hc::Provenance& provenance);
CLI::App* add_bench_command(CLI::App& app, BenchArgs& a);
int do_bench(const BenchArgs& a, const hc::Provenance& provenance);
CLI::App* add_benchmark_command(CLI::App& app, BenchmarkArgs& a);
int do_benchmark(BenchmarkArgs a, const hc::Provenance& provenance);
CLI::App* add_compare_command(CLI::App& app, CompareArgs& a);
int do_compare(const CompareArgs& a);
CLI::App* add_probe_command(CLI::App& app, ProbeArgs& a);
int do_probe(const ProbeArgs& a, hc::Provenance provenance);
CLI::App* add_info_command(CLI::App& app, InfoArgs& a);
int do_info(const InfoArgs& a, hc::Provenance provenance);
int do_verify();

// Validators shared by the commands' options (app/command_line.cpp): a whole number in
// [lo, hi], a finite real number in [lo, hi], a path that is not empty.
CLI::Validator in_range(long lo, long hi = std::numeric_limits<long>::max());
// ">= lo" in the help, for an option whose upper bound `hi` is only what its type (an int) holds:
// above it, "must be at most hi".
CLI::Validator at_least(long lo, long hi);
CLI::Validator number_in_range(double lo, double hi);
CLI::Validator non_empty();

// Parses the command line and agrees on it over the ranks (app/command_line.cpp): -1 where the
// command goes on, else the exit code every rank ends with (help, version, or a refusal said
// once).
int parse_command_line(CLI::App& app, int argc, char** argv);

}  // namespace halocline::cli
