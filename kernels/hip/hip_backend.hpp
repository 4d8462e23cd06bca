// The native HIP backend (AMD through HIP, NVIDIA through kernels/hip/hip_nvidia.hpp):
// the solver's kernels in kernels/hip/ (fluxes.hpp, ghost_fill.hpp, halo.hpp, update.hpp, step_control.hpp: the Kokkos
// folder's names), and the owner models of kernels/contract/strategy.hpp. This header is plain C++ so that
// app/select.cpp can include it.
#pragma once

#include <memory>
#include <string>
#include <vector>

#include "base/grid.hpp"
#include "kernels/boundary.hpp"
#include "kernels/contract/backend.hpp"
#include "kernels/contract/footprint.hpp"
#include "kernels/contract/probe_result.hpp"
#include "kernels/contract/strategy.hpp"
#include "kernels/hydro.hpp"
#include "kernels/physics_samples.hpp"

namespace halocline {

template <class Real, class L>
std::unique_ptr<Backend> make_hip_backend(const Grid& grid, const Physics& physics, const BoundaryFaces& boundary,
                                          const MemoryStrategy& memory, KernelStrategy kernels, int device);

// What the backend makes beside the solver's arrays and the halo's buffers, for values of
// `value_bytes` (its footprint: kernels/contract/footprint.hpp).
BackendScratch hip_device_scratch(std::size_t value_bytes);

// How many GPUs the HIP runtime sees (0 when none, or no driver). Where the runtime fails for
// another reason than finding no device (it cannot start: out of memory under ulimit -v, a
// driver too old), `why` gets the runtime's own words for it.
int hip_device_count(std::string* why = nullptr);

// What the runtime says about GPU `device`.
DeviceInfo hip_device_info(int device);

// The machine's ceilings as the HIP runtime measures them (kernels/hip/probe.cpp).
ProbeResult probe_hip(const ProbeOptions& options);

// Each sample's function at its inputs, in device code on the current GPU
// (kernels/hip/physics_samples.cpp), with an ideal gas of `gamma`.
void evaluate_samples_hip(std::vector<PhysicsSample<double>>& samples, double gamma);
void evaluate_samples_hip(std::vector<PhysicsSample<float>>& samples, float gamma);

}  // namespace halocline
