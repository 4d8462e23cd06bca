// `halocline info`: the device and the build, so that results from different machines can
// be compared. Every run report carries the same description (report["info"]).
#pragma once

#include <nlohmann/json.hpp>
#include <ostream>
#include <string>

#include "kernels/contract/backend.hpp"

namespace halocline {

// (describe_device(), which asks a backend, is in app/select.hpp.)
// The device (with the PCIe link and NUMA node of its PCI address, read from Linux's sysfs,
// where there is one) and the build (compilers, flags, backends, MPI, HDF5).
nlohmann::json info_json(const DeviceInfo& device);

// A quantity that is positive where it was measured or told: itself, else null (what a runtime
// does not tell, a rate no timed step gave: a 0 would read as a measurement).
template <class T>
nlohmann::json positive_or_null(T value) {
  return value > 0 ? nlohmann::json(value) : nlohmann::json();
}

// The device and the build, and the machine and the command where `info` carries a
// "provenance" (halocline info adds it).
void print_info(std::ostream& os, const nlohmann::json& info);

// What `halocline --version` prints: the version, the git commit the binary was built from
// (and whether tracked files differed from it), the backends and how it was built.
std::string version_text();

}  // namespace halocline
