// The files a run writes, made safe before any work: the output directory it owns alone
// (a lock), paths that are regular files or absent and none of the run's own inputs, and
// no directory left behind by a run that was refused.
#pragma once

#include <string>
#include <vector>

#include "io/atomic_file.hpp"  // write_file_atomically, for the files written here

namespace halocline {

// Owns an output directory for the life of the object: creates it (and missing parents),
// proves it writable and takes its lock, `.halocline.lock` (flock, with the owner's pid and
// host inside for messages). A second run into the same directory is refused with
// DeckError (exit code 2) naming the owner; a lock left by a process that died is taken
// over with a warning on stderr. On destruction the lock is removed and the directories
// this object created are removed again if they are empty, so a refused run leaves no
// trace.
class OutputDirectory {
 public:
  OutputDirectory() = default;
  explicit OutputDirectory(const std::string& dir) { open(dir); }
  ~OutputDirectory();
  OutputDirectory(const OutputDirectory&) = delete;
  OutputDirectory& operator=(const OutputDirectory&) = delete;

  void open(const std::string& dir);

 private:
  void lock();
  std::string dir_;
  std::vector<std::string> created_;  // directories made here, the deepest last
  std::string lock_path_;
  int lock_fd_ = -1;
};

// Throws DeckError when `path` (a directory, or where a file goes) lies inside the output
// directory of a run that is running now (its lock held), other than `own`: this run's.
void check_not_in_running_output(const std::string& path, const std::string& what, const std::string& own);

// A note on what an earlier run left in a directory that this run does not write or list:
// `paths` in order, each a `noun` ("file", "folder"), from an earlier `run` ("run", "bench"),
// then `consequence` ("OUT/runs/4 to 7 (4 folders) are from an earlier bench in this
// directory: ..."); empty where `paths` is.
std::string earlier_run_note(const std::vector<std::string>& paths, const std::string& noun, const std::string& run,
                             const std::string& consequence);

// Creates `dir` and its missing parents; returns those it created, the deepest last.
// Throws DeckError when it cannot or when `dir` is not a writable directory.
std::vector<std::string> create_writable_directory(const std::string& dir);

// Removes `dirs` (deepest first) where they are empty.
void remove_if_empty(const std::vector<std::string>& dirs);

// The kind of file a command writes whole, and so the only kind it writes over: a file of
// another kind is someone's data, never overwritten.
enum class OutputKind {
  RunReport,         // a run's report.json (a JSON object with "config", "fom" and "checksum")
  BenchResults,      // bench.json ("rows" and "configurations")
  BenchmarkResult,   // benchmark.json ("rules" and "configurations")
  ProbeResult,       // a probe's JSON or its cache ("copy_Bps")
  BenchTable,        // bench.csv (its header names the columns status,min_step_s,...)
  BenchmarkSummary,  // benchmark.md ("# Halocline benchmark: ...")
};

// Checks a path the run will write a whole file to (a report, a probe's JSON): absent, or
// a regular file that is not a symbolic link, not one of `inputs` and of the `kind` the
// command writes. Throws DeckError naming `what` and the path.
void check_output_file(const std::string& path, const std::string& what, const std::vector<std::string>& inputs,
                       OutputKind kind);

// Checks the names the run writes in `dir` (snapshots, checkpoints, their .tmp): any that
// exists must be a regular file that is not one of `inputs` being overwritten. Throws
// DeckError naming the first that is not.
void check_output_names(const std::string& dir, const std::vector<std::string>& inputs);

}  // namespace halocline
