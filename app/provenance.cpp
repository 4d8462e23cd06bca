#include "app/provenance.hpp"

#include <sys/utsname.h>
#include <unistd.h>

#include <ctime>
#include <filesystem>
#include <fstream>
#include <set>
#include <type_traits>
#include <utility>

#include "app/build_info.hpp"
#include "app/comm.hpp"
#include "app/revision.hpp"  // generated at build time (tools/revision.cmake)
#include "io/h5util.hpp"     // hdf5_library_version

namespace halocline {

namespace {

std::string utc_now() {
  const std::time_t now = std::time(nullptr);
  std::tm utc{};
  gmtime_r(&now, &utc);
  char text[32];
  std::strftime(text, sizeof text, "%Y-%m-%dT%H:%M:%SZ", &utc);
  return text;
}

std::string host_name() {
  char host[256] = {};
  gethostname(host, sizeof host - 1);
  return host[0] ? host : "unknown";
}

std::string operating_system() {
  utsname u{};
  if (uname(&u) != 0) return "unknown";
  return std::string(u.sysname) + " " + u.release + " " + u.machine;
}

std::string working_directory() {
  std::error_code ec;
  const std::filesystem::path dir = std::filesystem::current_path(ec);
  return ec ? "unknown" : dir.string();
}

std::int64_t physical_memory_bytes() {
  const long pages = sysconf(_SC_PHYS_PAGES), page = sysconf(_SC_PAGESIZE);
  return pages > 0 && page > 0 ? static_cast<std::int64_t>(pages) * page : 0;
}

// The value of a /proc/cpuinfo line "KEY<tabs>: VALUE" when the line is of `key`.
bool cpuinfo_value(const std::string& line, const std::string& key, std::string& value) {
  if (line.compare(0, key.size(), key) != 0) return false;
  const std::size_t colon = line.find(':');
  if (colon == std::string::npos || line.find_first_not_of(" \t", key.size()) != colon) return false;
  const std::size_t start = line.find_first_not_of(' ', colon + 1);
  value = start == std::string::npos ? "" : line.substr(start);
  return true;
}

// The first CPU's model name and the number of physical cores: distinct (physical id,
// core id) pairs (a CPU with two threads per core lists each core twice). 0 cores where
// the kernel gives no core ids (some virtual machines, some architectures).
struct CpuDescription {
  std::string model = "unknown";
  std::int64_t cores = 0;
};

CpuDescription describe_cpus() {
  std::ifstream in("/proc/cpuinfo");
  CpuDescription cpu;
  std::set<std::pair<std::string, std::string>> cores;
  std::string line, value, socket = "0";
  while (std::getline(in, line)) {
    if (cpuinfo_value(line, "model name", value)) {
      if (cpu.model == "unknown" && !value.empty()) cpu.model = value;
    } else if (cpuinfo_value(line, "physical id", value)) {
      socket = value;
    } else if (cpuinfo_value(line, "core id", value)) {
      cores.emplace(socket, value);
    }
  }
  cpu.cores = static_cast<std::int64_t>(cores.size());
  return cpu;
}

// The GPU's kernel driver as its module says (NVIDIA's "580.159.04", AMD's amdgpu where it
// is a module with a version); empty where neither is.
std::string kernel_gpu_driver() {
  for (const auto& [module, name] : {std::pair<const char*, const char*>{"nvidia", "NVIDIA kernel driver "},
                                     std::pair<const char*, const char*>{"amdgpu", "amdgpu kernel driver "}}) {
    std::ifstream in(std::string("/sys/module/") + module + "/version");
    std::string version;
    if (std::getline(in, version) && !version.empty()) return name + version;
  }
  return "";
}

std::string or_none(const std::string& s) { return s.empty() ? "none" : s; }

// A word the shell reads as itself: letters, digits and _ - . / = : , + @ % ^.
bool plain_word(const std::string& word) {
  return !word.empty() && word.find_first_not_of(
                              "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789"
                              "_-./=:,+@%^") == std::string::npos;
}

}  // namespace

std::string shell_command(const std::vector<std::string>& words) {
  std::string line;
  for (const std::string& word : words) {
    if (!line.empty()) line += ' ';
    if (plain_word(word)) {
      line += word;
      continue;
    }
    line += '\'';
    for (char c : word) line += c == '\'' ? std::string("'\\''") : std::string(1, c);
    line += '\'';
  }
  return line;
}

Provenance make_provenance(const std::vector<std::string>& words) {
  Provenance p;
  p.date = utc_now();
  p.version = HALOCLINE_VERSION;
  p.commit = build::kCommit;
  p.tree_clean = build::kTreeClean;
  p.command_line = shell_command(words);
  p.working_directory = working_directory();
  p.host = host_name();
  p.os = operating_system();
  const CpuDescription cpu = describe_cpus();
  p.cpu_model = cpu.model;
  p.cpu_threads = sysconf(_SC_NPROCESSORS_ONLN);
  p.cpu_cores = cpu.cores > 0 ? cpu.cores : p.cpu_threads;
  p.memory_bytes = physical_memory_bytes();
  p.cxx_compiler = build::kCxxCompiler;
  p.gpu_compiler = or_none(build::kGpuCompiler);
  p.mpi = comm_built_with_mpi() ? mpi_library_version() + " (MPI standard " + build::kMpi + ")" : "none";
  p.hdf5 = h5::hdf5_library_version();
  return p;
}

void add_device(Provenance& p, const DeviceInfo& device) {
  if (device.kind != "gpu") return;
  p.gpu = device.name + (device.pci_bus_id.empty() ? "" : " (PCI " + device.pci_bus_id + ")");
  const std::string module = kernel_gpu_driver();
  p.gpu_driver =
      or_none(device.driver_version + (module.empty() || device.driver_version.empty() ? "" : ", ") + module);
}

nlohmann::json provenance_json(const Provenance& p) {
  nlohmann::json j = nlohmann::json::object();
  visit_provenance(p, [&](const char* name, const auto& value) { j[name] = value; });
  return j;
}

Provenance provenance_from_json(const nlohmann::json& j) {
  Provenance p;
  visit_provenance(p, [&](const char* name, auto& value) { value = j.at(name).get<std::decay_t<decltype(value)>>(); });
  return p;
}

Provenance rank0_provenance(const Comm& comm, const Provenance& mine) {
  if (comm.size() == 1) return mine;
  return provenance_from_json(nlohmann::json::parse(comm.broadcast(provenance_json(mine).dump())));
}

}  // namespace halocline
