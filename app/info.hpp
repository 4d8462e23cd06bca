// `halocline info`: the device and the build, so that results from different machines can
// be compared. Every run report carries the same description (report["info"]).
#pragma once

#include <nlohmann/json.hpp>
#include <ostream>
#include <string>

#include "app/backend.hpp"

namespace halocline {

// What `backend` would run on here: the GPU `device` (GPU backends) or the execution space.
// Throws DeckError when that backend is not built in or has no device here.
DeviceInfo describe_device(const std::string& backend, int device);

// The device (with the PCIe link and NUMA node of its PCI address, read from Linux's sysfs,
// where there is one) and the build (compilers, flags, backends, MPI, HDF5).
nlohmann::json info_json(const DeviceInfo& device);

void print_info(std::ostream& os, const nlohmann::json& info);

}  // namespace halocline
