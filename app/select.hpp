// The one place where the run-time choices of backend, layout and precision become types.
#pragma once

#include <array>
#include <map>
#include <memory>
#include <string>
#include <vector>

#include "app/comm.hpp"
#include "app/probe.hpp"
#include "base/grid.hpp"
#include "io/config.hpp"
#include "kernels/contract/backend.hpp"
#include "kernels/contract/footprint.hpp"
#include "kernels/physics_samples.hpp"

namespace halocline {

// Sets the choice of a strategy key (layout, precision, backend, owner, host-mem, prefetch, halo,
// kernels, kokkos-tile) to `value` as `halocline run --KEY VALUE`, a bench sweep or benchmark
// gives it (the deck's run.* keys name the same choices). False when `key` is not one of them;
// DeckError (exit code 2) for a value it does not know, naming `where` (the option or sweep that
// gave it; default --KEY). The choices then become a backend in make_backend (below).
bool apply_strategy_key(Config& config, const std::string& key, const std::string& value,
                        const std::string& where = "");

// Throws DeckError (exit code 2) where this binary cannot run the backend or owner model of
// `config` here: what make_backend would refuse, said before the memory check, whose advice
// would otherwise name a grid that is then refused for the choice.
void check_backend_choices(const Config& config);

// The backend of `config` for this rank's subdomain `grid`, with boundary `faces` (the
// exchanged ones marked) on GPU `device` (GPU backends), with the kernels of
// choose_kernels(config, dims) for the ranks per direction `dims`. Throws DeckError (exit
// code 2) when the configured backend cannot run here.
std::unique_ptr<Backend> make_backend(const Config& config, const Grid& grid, const BoundaryFaces& faces,
                                      int device = 0, const std::array<int, 3>& dims = {1, 1, 1});

// The kernels of a stage (--kernels, `auto` resolved for the configured backend and the size
// of the largest rank's subdomain when the grid is split over `dims` ranks per direction:
// every rank makes the same choice, and the memory plan counts what each allocates).
KernelStrategy choose_kernels(const Config& config, const std::array<int, 3>& dims);

// The halo strategy of the run (--halo, `auto` resolved) and which faces of this rank's
// subdomain `grid` it exchanges: those with a neighbour (another rank, or this one across a
// periodic boundary), unless the strategy is none. Throws DeckError for a choice this run
// cannot make (none with several ranks, gpu-aware without a device-aware MPI).
HaloSetup choose_halo(const Config& config, const Comm& comm, const Grid& grid);
// The halo strategy `auto` stands for on `ranks` ranks (overlap on several, none on one); any
// other strategy as it is.
HaloStrategy resolved_halo(HaloStrategy halo, int ranks);

// Initializes, for the life of the object, the runtimes of the backends built in (Kokkos
// must be initialized before a Kokkos backend is made and finalized after the last one is
// gone). Front ends (app/main.cpp, the tests' main) hold one.
class RuntimeSession {
 public:
  RuntimeSession(int& argc, char** argv);
  ~RuntimeSession();
  RuntimeSession(const RuntimeSession&) = delete;
  RuntimeSession& operator=(const RuntimeSession&) = delete;
};

// Why `backend` cannot run in this binary on this machine; empty when it can.
std::string backend_unavailable(BackendKind backend);

// Whether `backend` (built in) runs on a GPU: the hip backend always, the kokkos backend when
// Kokkos was built for one (its owner models then mean what the hip backend's do).
bool runs_on_gpu(BackendKind backend);

// What backend `backend` makes beside the solver's arrays and the halo's buffers, for values
// of `value_bytes` (kernels/contract/footprint.hpp); nothing for a backend not built in.
BackendScratch backend_scratch(BackendKind backend, std::size_t value_bytes);

// Why a memory choice the user named changes no step of configuration `c`, or empty: the host
// memory kind without a host owner or a halo exchange (or on the kokkos backend in host
// memory), prefetching without managed memory, a Kokkos tile on another backend. `given` maps
// the choices named (host-mem, prefetch, kokkos-tile) to the text given; `c` must have been
// validated and its backend be built in. bench skips such rows (they repeat the default's);
// run says so and goes on.
std::string choice_without_effect(const Config& c, const std::map<std::string, std::string>& given);

// What `backend` (kokkos | hip) would run on here: GPU `device`, or the execution space.
// Throws DeckError, its line naming `command` (the command that asked: info, probe, benchmark),
// when that backend is not built in or has no device here.
DeviceInfo describe_device(const std::string& backend, int device, const char* command);

// How many devices `backend` can be given by index here: the GPUs its runtime sees (hip), or
// 1 (kokkos: the device or execution space it started on). Throws as describe_device() does.
int device_count(const std::string& backend);

// The machine's ceilings measured with `backend`'s own programming model (app/probe.hpp).
// Throws DeckError as describe_device() does.
ProbeResult run_probe(const std::string& backend, const ProbeOptions& options);

// Each sample's function (kernels/physics_samples.hpp) evaluated where `backend` runs its
// kernels (a GPU's device code, or the host's Kokkos loops), with an ideal gas of `gamma`: for
// the tests that compare its bits with the host's. Throws DeckError as describe_device() does.
void evaluate_samples(BackendKind backend, std::vector<PhysicsSample<double>>& samples, double gamma);
void evaluate_samples(BackendKind backend, std::vector<PhysicsSample<float>>& samples, float gamma);

}  // namespace halocline
