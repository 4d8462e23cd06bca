// The Kokkos backend: the solver's kernels as Kokkos parallel loops in the default
// execution space (Serial or OpenMP on the CPU today; CUDA or HIP when Kokkos is built for
// a GPU).
#pragma once

#include <array>
#include <cstddef>
#include <memory>
#include <string>
#include <vector>

#include "base/grid.hpp"
#include "kernels/boundary.hpp"
#include "kernels/contract/backend.hpp"
#include "kernels/contract/footprint.hpp"
#include "kernels/contract/host_memory.hpp"
#include "kernels/contract/probe_result.hpp"
#include "kernels/contract/strategy.hpp"
#include "kernels/hydro.hpp"
#include "kernels/physics_samples.hpp"

namespace halocline {

// Layout L is AoS, SoA or AoSoA (layouts/layouts.hpp); Real is double or float. The owner
// models other than device need a GPU build of Kokkos (NotApplicable, exit code 2, otherwise).
// `tile`: the cells per thread block of the cell loops (Config::kokkos_tile).
template <class Real, class L>
std::unique_ptr<Backend> make_kokkos_backend(const Grid& grid, const Physics& physics, const BoundaryFaces& boundary,
                                             const MemoryStrategy& memory, const std::array<int, 3>& tile,
                                             KernelStrategy kernels);

// Whether Kokkos' default execution space is a GPU's (CUDA, HIP).
bool kokkos_on_gpu();

// Why the backend cannot run owner model `owner` here (only the device owner model applies
// where Kokkos runs on the host); empty when it can.
std::string kokkos_owner_unavailable(Owner owner);

// What the backend makes beside the solver's arrays and the halo's buffers, for values of
// `value_bytes` (its footprint: kernels/contract/footprint.hpp).
BackendScratch kokkos_device_scratch(std::size_t value_bytes);

// What Kokkos says about its default execution space.
DeviceInfo kokkos_device_info();

// The machine's ceilings measured with Kokkos loops (kernels/kokkos/probe.cpp).
ProbeResult probe_kokkos(const ProbeOptions& options);

// Each sample's function at its inputs, in a loop of the default execution space
// (kernels/kokkos/physics_samples.cpp), with an ideal gas of `gamma`.
void evaluate_samples_kokkos(std::vector<PhysicsSample<double>>& samples, double gamma);
void evaluate_samples_kokkos(std::vector<PhysicsSample<float>>& samples, float gamma);

// Kokkos::initialize / finalize, for app/select.cpp's RuntimeSession (which keeps
// Kokkos' headers out of the front ends).
void kokkos_initialize(int& argc, char** argv);
void kokkos_finalize();

}  // namespace halocline
