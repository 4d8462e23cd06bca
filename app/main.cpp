// The command line: `halocline run DECK ...`, `bench`, `benchmark`, `compare`, `probe`, `info`
// and `verify`; each command's options and work are in app/command_*.cpp (app/commands.hpp).
// Exit codes (app/failures.hpp): 0 success, 1 a verification FAIL or an unexpected error,
// 2 bad input (command line, deck, output path, a checkpoint that cannot be used, memory
// the machine lacks), 3 a numerical failure during the run, 4 a file that could not be
// written, 128 + N: stopped by signal N (SIGINT 130, SIGTERM 143).
#include <csignal>
#include <exception>
#include <string>
#include <vector>

#include "app/comm.hpp"
#include "app/commands.hpp"
#include "app/failures.hpp"
#include "app/info.hpp"
#include "app/provenance.hpp"
#include "app/select.hpp"
#include "app/signals.hpp"

namespace hc = halocline;
using namespace halocline::cli;

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
  if (agreed_exit >= 0) {  // --help, --version, or bad input
    hc::finalize_comm();
    return hc::with_output_written(agreed_exit);
  }

  // A failure agreed by every rank (app/failures.hpp), or one every rank meets alike (a
  // numerical failure, a signal), is said once by rank 0 and ends every rank normally. Any
  // other may be this rank's alone: it says so, naming itself, and ends the whole job
  // (MPI_Abort) rather than leave the other ranks waiting in MPI.
  try {
    hc::RuntimeSession runtimes(argc, argv);
    try {
      const hc::Provenance provenance = hc::make_provenance(words);  // once, for every file the command writes
      if (run->parsed()) return hc::with_output_written(do_run(run_args, provenance));
      if (verify->parsed()) return hc::with_output_written(do_verify());
      if (probe->parsed()) return hc::with_output_written(do_probe(probe_args, provenance));
      if (bench->parsed()) return hc::with_output_written(do_bench(bench_args, provenance));
      if (benchmark->parsed()) return hc::with_output_written(do_benchmark(benchmark_args, provenance));
      if (compare->parsed()) return hc::with_output_written(do_compare(compare_args));
      if (info->parsed()) return hc::with_output_written(do_info(info_args, provenance));
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
