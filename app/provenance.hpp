// The run's provenance (io/provenance_record.hpp), made here, where the build, the command line and
// the machine are known: once per command, in app/main.cpp, then handed to whatever writes a
// file (the JSON outputs here, the HDF5 files through io/).
#pragma once

#include <nlohmann/json.hpp>
#include <string>
#include <vector>

#include "io/provenance_record.hpp"
#include "kernels/contract/backend.hpp"  // DeviceInfo

namespace halocline {

class Comm;

// The record of the command `words` (the program's arguments as it received them, the
// program first) starting now: the date, the build's version and commit, the working
// directory and the machine. The GPU fields stay "none" until add_device names one.
Provenance make_provenance(const std::vector<std::string>& words);

// A GPU backend's device (kind "gpu") into `p`: its name and driver version. A CPU device
// changes nothing.
void add_device(Provenance& p, const DeviceInfo& device);

// Rank 0's record on every rank of `comm`: ranks may run on other hosts and start in
// another second, and a file they write together must say one thing.
Provenance rank0_provenance(const Comm& comm, const Provenance& mine);

nlohmann::json provenance_json(const Provenance& p);
Provenance provenance_from_json(const nlohmann::json& j);

// The words as one line a POSIX shell runs as the same command: each word with a character
// the shell would read (a space, a quote, $, *, ...) or empty is put in single quotes.
std::string shell_command(const std::vector<std::string>& words);

}  // namespace halocline
