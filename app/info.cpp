#include "app/info.hpp"

#include <algorithm>
#include <cctype>
#include <fstream>

#include "app/build_info.hpp"
#include "app/revision.hpp"  // generated at build time (tools/revision.cmake)

namespace halocline {

namespace {

// The first line of a sysfs file, or empty.
std::string sysfs(const std::string& path) {
  std::ifstream in(path);
  std::string line;
  std::getline(in, line);
  return line;
}

// Linux names PCI devices in lower case with a 4-digit domain: 0000:18:00.0.
std::string sysfs_pci_name(std::string id) {
  std::transform(id.begin(), id.end(), id.begin(), [](unsigned char c) { return std::tolower(c); });
  const std::size_t colon = id.find(':');
  if (colon != std::string::npos && colon > 4) id = id.substr(colon - 4);
  return id;
}

}  // namespace

nlohmann::json info_json(const DeviceInfo& d) {
  // What the runtime does not tell (a CPU's clocks and memory under Kokkos) is null, not 0.
  nlohmann::json device = {{"kind", d.kind},
                           {"name", d.name},
                           {"memory_bytes", positive_or_null(d.memory_bytes)},
                           {"compute_units", d.compute_units},
                           {"runtime_version", d.runtime_version},
                           {"driver_version", d.driver_version},
                           {"clock_khz", positive_or_null(d.clock_khz)},
                           {"memory_clock_khz", positive_or_null(d.memory_clock_khz)},
                           {"memory_bus_bits", positive_or_null(d.memory_bus_bits)},
                           {"cache_bytes", d.cache_bytes},
                           {"pci_bus_id", d.pci_bus_id}};
  if (!d.pci_bus_id.empty()) {
    const std::string dir = "/sys/bus/pci/devices/" + sysfs_pci_name(d.pci_bus_id) + "/";
    const std::string speed = sysfs(dir + "current_link_speed"), width = sysfs(dir + "current_link_width");
    const std::string numa = sysfs(dir + "numa_node");
    device["link"] = speed.empty() ? nlohmann::json(nullptr) : nlohmann::json(speed + " x" + width);
    device["numa_node"] = numa.empty() ? nlohmann::json(nullptr) : nlohmann::json(std::stoi(numa));
  }
  const nlohmann::json build = {{"halocline_version", HALOCLINE_VERSION},
                                {"commit", build::kCommit},
                                {"tree_clean", build::kTreeClean},
                                {"build_type", build::kBuildType},
                                {"cxx_compiler", build::kCxxCompiler},
                                {"cxx_flags", build::kCxxFlags},
                                {"gpu_compiler", build::kGpuCompiler},
                                {"backends", build::kBackends},
                                {"mpi_standard", build::kMpi},
                                {"hdf5", build::kHdf5}};
  return {{"device", device}, {"build", build}};
}

std::string version_text() {
  auto or_none = [](const char* s) { return *s ? std::string(s) : std::string("none"); };
  return std::string("halocline ") + HALOCLINE_VERSION + " (commit " + build::kCommit +
         (std::string(build::kCommit) == "unknown" ? ""
          : build::kTreeClean                      ? ", clean"
                                                   : ", with local changes") +
         ")\nbackends: " + build::kBackends + "\nbuilt with: " + build::kCxxCompiler + ", " + build::kBuildType +
         " build; GPU compiler: " + or_none(build::kGpuCompiler) + "; MPI: " + or_none(build::kMpi) +
         "; HDF5: " + build::kHdf5 + "\nC++ flags: " + or_none(build::kCxxFlags);
}

void print_info(std::ostream& os, const nlohmann::json& info) {
  auto show = [&os](const std::string& key, const nlohmann::json& value) {
    if (value.is_null() || (value.is_string() && value.get<std::string>().empty())) return;
    if (value.is_number() && value.get<double>() == 0) return;
    os << "  " << key << std::string(key.size() < 18 ? 18 - key.size() : 1, ' ')
       << (value.is_string() ? value.get<std::string>() : value.dump()) << '\n';
  };
  os << "device\n";
  for (const auto& [key, value] : info.at("device").items()) show(key, value);
  os << "build\n";
  for (const auto& [key, value] : info.at("build").items()) show(key, value);
  if (!info.contains("provenance")) return;
  os << "machine and command\n";
  for (const auto& [key, value] : info.at("provenance").items()) show(key, value);
}

}  // namespace halocline
