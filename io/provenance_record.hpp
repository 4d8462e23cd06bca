// Where a result came from: when, from which source, by which command, on what machine.
// One record per run, made by app/provenance.cpp (which knows the build and the command
// line) and handed down: every JSON output carries it (app/), and every HDF5 snapshot and
// checkpoint as the attributes of its group "provenance" (io/, h5util.hpp). Plain data, so
// that io/ needs nothing from app/ (docs/design.md's layers). docs/output.md lists the fields.
#pragma once

#include <cstdint>
#include <string>

namespace halocline {

struct Provenance {
  std::string date = "unknown";          // the command's start, UTC, ISO 8601: 2026-12-02T03:09:32Z
  std::string version = "unknown";       // HALOCLINE_VERSION
  std::string commit = "unknown";        // the source's git commit (12 hex digits) at build time
  bool tree_clean = false;               // no tracked file differed from that commit
  std::string command_line = "unknown";  // the program's words, quoted for a POSIX shell where needed
  std::string working_directory = "unknown";
  // The machine, as rank 0 sees it.
  std::string host = "unknown";
  std::string os = "unknown";         // kernel name, release, architecture (uname)
  std::string cpu_model = "unknown";  // /proc/cpuinfo's "model name"
  std::int64_t cpu_cores = 0;         // physical cores: distinct (socket, core) pairs of /proc/cpuinfo
  std::int64_t cpu_threads = 0;       // logical CPUs online
  std::int64_t memory_bytes = 0;      // physical memory
  std::string gpu = "none";           // the GPU a GPU backend ran on: "none" on the CPU
  std::string gpu_driver = "none";
  std::string cxx_compiler = "unknown";
  std::string gpu_compiler = "none";
  std::string mpi = "none";      // the MPI library's own version line and the standard; "none" without MPI
  std::string hdf5 = "unknown";  // the HDF5 library the program runs with
};

// Calls visit(name, field) for every field of `p` in one fixed order, so that the JSON
// (app/provenance.cpp), the HDF5 attributes (io/h5util.hpp) and the copy every rank takes of
// rank 0's record name the same fields: a field is a std::string, std::int64_t or bool.
template <class Record, class Visit>
void visit_provenance(Record& p, Visit&& visit) {
  visit("date", p.date);
  visit("version", p.version);
  visit("commit", p.commit);
  visit("tree_clean", p.tree_clean);
  visit("command_line", p.command_line);
  visit("working_directory", p.working_directory);
  visit("host", p.host);
  visit("os", p.os);
  visit("cpu_model", p.cpu_model);
  visit("cpu_cores", p.cpu_cores);
  visit("cpu_threads", p.cpu_threads);
  visit("memory_bytes", p.memory_bytes);
  visit("gpu", p.gpu);
  visit("gpu_driver", p.gpu_driver);
  visit("cxx_compiler", p.cxx_compiler);
  visit("gpu_compiler", p.gpu_compiler);
  visit("mpi", p.mpi);
  visit("hdf5", p.hdf5);
}

}  // namespace halocline
