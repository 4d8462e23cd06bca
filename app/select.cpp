// Run-time choices -> compile-time types, in one place. Every kernel is a template on the
// precision (double or float) and the layout (AoS, SoA, AoSoA); this file is the only code that
// reads the strategy keys (apply_strategy_key: the command line's --backend, --layout,
// --precision, --owner, --host-mem, --prefetch, --halo, --kernels, as the deck's run.* keys and
// bench's sweeps give them), resolves `auto` (choose_halo, choose_kernels) and maps the
// choices onto a backend (make_backend): the layout and precision onto its template, the owner
// model onto its memory, the halo strategy onto its exchange.
#include "app/select.hpp"

#include <stdexcept>
#include <string>
#include <vector>

#include "app/comm.hpp"
#include "app/problems.hpp"
#include "app/resources.hpp"
#include "app/signals.hpp"
#include "io/deck.hpp"
#include "layouts/layouts.hpp"
#if defined(HALOCLINE_HAVE_KOKKOS)
#include "kernels/kokkos/kokkos_backend.hpp"
#endif
#if defined(HALOCLINE_HAVE_HIP)
#include "kernels/hip/hip_backend.hpp"
#endif

namespace halocline {

namespace {

#if defined(HALOCLINE_HAVE_HIP)
// Why the HIP backend cannot run here, or "". A runtime that cannot start for another reason
// than finding no GPU (no driver, a driver too old) is said in its own words; under a process
// limit, with the host's limits too, as Kokkos' start is (RuntimeSession): CUDA's runtime
// reserves more address space than a tight ulimit -v leaves, and then the limit, not the GPU,
// is what to change.
std::string hip_unavailable() {
  std::string why;
  if (hip_device_count(&why) > 0) return "";
  if (why.empty()) return "backend 'hip': no GPU is visible to the HIP runtime";
  const std::string limits = host_room().process > 0 ? "; " + host_memory_text() : "";
  return "backend 'hip': the HIP runtime could not start (" + why + ")" + limits;
}
#endif

// Where the run's other choices reach the backend.
struct Placement {
  BoundaryFaces faces;
  int device;
  KernelStrategy kernels;  // resolved: split or fused
};

template <class Real, class L>
std::unique_ptr<Backend> make_typed(const Config& c, const Grid& g, const Placement& p) {
  const BoundaryFaces& bc = p.faces;
  switch (c.backend) {
    case BackendKind::Kokkos:
#if defined(HALOCLINE_HAVE_KOKKOS)
      return make_kokkos_backend<Real, L>(g, c.physics, bc, c.memory, c.kokkos_tile, p.kernels);
#else
      break;
#endif
    case BackendKind::Hip:
#if defined(HALOCLINE_HAVE_HIP)
      return make_hip_backend<Real, L>(g, c.physics, bc, c.memory, p.kernels, p.device);
#else
      break;
#endif
  }
  throw std::logic_error("backend not built in");
}

template <class Real>
std::unique_ptr<Backend> with_layout(const Config& c, const Grid& g, const Placement& p) {
  switch (c.layout) {
    case LayoutKind::AoS: return make_typed<Real, AoS>(c, g, p);
    case LayoutKind::SoA: return make_typed<Real, SoA>(c, g, p);
    case LayoutKind::AoSoA: return make_typed<Real, AoSoA>(c, g, p);
  }
  throw std::logic_error("unhandled layout");
}

}  // namespace

bool apply_strategy_key(Config& c, const std::string& key, const std::string& value, const std::string& where) {
  const std::string option = where.empty() ? "--" + key : where;
  if (key == "layout")
    c.layout = parse_layout(value, option);
  else if (key == "precision")
    c.precision = parse_precision(value, option);
  else if (key == "backend")
    c.backend = parse_backend(value, option);
  else if (key == "owner")
    c.memory.owner = parse_owner(value, option);
  else if (key == "host-mem")
    c.memory.host_memory = parse_host_memory(value, option);
  else if (key == "halo")
    c.halo = parse_halo(value, option);
  else if (key == "kernels")
    c.kernels = parse_kernels(value, option);
  else if (key == "kokkos-tile")
    c.kokkos_tile = parse_kokkos_tile(value, option);
  else if (key == "prefetch") {
    if (value != "on" && value != "off") throw DeckError(option + " must be on or off, not '" + value + "'");
    c.memory.prefetch = value == "on";
  } else {
    return false;
  }
  return true;
}

std::string backend_unavailable(BackendKind b) {
  switch (b) {
    case BackendKind::Kokkos:
#if defined(HALOCLINE_HAVE_KOKKOS)
      return "";
#else
      return "backend 'kokkos' is not built into this binary (configure with -DHALOCLINE_ENABLE_KOKKOS=ON)";
#endif
    case BackendKind::Hip:
#if defined(HALOCLINE_HAVE_HIP)
      return hip_unavailable();
#else
      return "backend 'hip' is not built into this binary (configure with a hip-nvidia or hip-amd preset)";
#endif
  }
  return "unknown backend";
}

// A step stages data through host memory only in the host owner model and in a halo
// exchange; prefetching moves managed memory only; the Kokkos backend in host memory has
// neither.
std::string choice_without_effect(const Config& c, const std::map<std::string, std::string>& given) {
  // A backend in host memory refuses any owner but the device's when it is made: a note that
  // "the run goes on" just before that refusal would say the opposite of it.
  if (!runs_on_gpu(c.backend) && c.memory.owner != Owner::Device) return "";
  const MemoryStrategy defaults;
  auto named = [&](const char* key) { return std::string(key) + "=" + given.at(key); };
  const bool host_mem = given.count("host-mem") && c.memory.host_memory != defaults.host_memory;
  const bool prefetch = given.count("prefetch") && c.memory.prefetch != defaults.prefetch;
  const std::string same_host_mem = " (same as host-mem=" + std::string(host_memory_name(defaults.host_memory)) + ")";
  if (host_mem && c.memory.owner != Owner::Host && c.halo == HaloStrategy::None)
    return named("host-mem") + " has no effect with owner=" + owner_name(c.memory.owner) +
           " and halo=none: no step stages data through host memory" + same_host_mem;
  if (prefetch && c.memory.owner != Owner::Managed)
    return named("prefetch") + " has no effect with owner=" + owner_name(c.memory.owner) +
           " (it moves managed memory only)";
  if (given.count("kokkos-tile") && c.backend != BackendKind::Kokkos && c.kokkos_tile != Config().kokkos_tile)
    return named("kokkos-tile") + " has no effect on the " + backend_name(c.backend) + " backend";
  const bool kokkos_in_host_memory = c.backend == BackendKind::Kokkos && !runs_on_gpu(c.backend);
  if (kokkos_in_host_memory && host_mem)
    return named("host-mem") + " has no effect on the kokkos backend" + same_host_mem;
  if (kokkos_in_host_memory && prefetch) return named("prefetch") + " has no effect on the kokkos backend";
  return "";
}

bool runs_on_gpu(BackendKind b) {
  switch (b) {
    case BackendKind::Kokkos:
#if defined(HALOCLINE_HAVE_KOKKOS)
      return kokkos_on_gpu();
#else
      return false;
#endif
    case BackendKind::Hip: return true;
  }
  return false;
}

// The backend a probe or a description names, checked as a run's would be.
BackendKind available_backend(const std::string& name, const char* what) {
  const BackendKind kind = parse_backend(name, std::string(what) + " --backend");
  const std::string why = backend_unavailable(kind);
  if (!why.empty()) throw DeckError(std::string(what) + ": " + why);
  return kind;
}

int device_count(const std::string& backend) {
  const BackendKind kind = available_backend(backend, "probe");
#if defined(HALOCLINE_HAVE_HIP)
  if (kind == BackendKind::Hip) return hip_device_count();
#endif
  (void)kind;
  return 1;  // kokkos: the device or execution space it started on
}

BackendScratch backend_scratch(BackendKind backend, std::size_t value_bytes) {
  switch (backend) {
#if defined(HALOCLINE_HAVE_KOKKOS)
    case BackendKind::Kokkos: return kokkos_device_scratch(value_bytes);
#endif
#if defined(HALOCLINE_HAVE_HIP)
    case BackendKind::Hip: return hip_device_scratch(value_bytes);
#endif
    default: break;
  }
  (void)value_bytes;
  return {};  // a backend not built in makes nothing (backend_unavailable refuses it)
}

DeviceInfo describe_device(const std::string& backend, int device, const char* command) {
  switch (available_backend(backend, command)) {
#if defined(HALOCLINE_HAVE_KOKKOS)
    case BackendKind::Kokkos: return kokkos_device_info();
#endif
#if defined(HALOCLINE_HAVE_HIP)
    case BackendKind::Hip: return hip_device_info(device % hip_device_count());
#endif
    default: break;
  }
  (void)device;
  throw std::logic_error("backend not built in");
}

ProbeResult run_probe(const std::string& backend, const ProbeOptions& given) {
  ProbeOptions options = given;
  if (options.host_bytes == 0) options.host_bytes = static_cast<std::size_t>(host_bytes_available());
  switch (available_backend(backend, "probe")) {
#if defined(HALOCLINE_HAVE_KOKKOS)
    case BackendKind::Kokkos: return probe_kokkos(options);
#endif
#if defined(HALOCLINE_HAVE_HIP)
    case BackendKind::Hip: return probe_hip(options);
#endif
    default: break;
  }
  throw std::logic_error("backend not built in");
}

namespace {
template <class Real>
void evaluate_samples_on(BackendKind backend, std::vector<PhysicsSample<Real>>& samples, Real gamma) {
  const std::string why = backend_unavailable(backend);
  if (!why.empty()) throw DeckError("physics samples: " + why);
  switch (backend) {
#if defined(HALOCLINE_HAVE_KOKKOS)
    case BackendKind::Kokkos: return evaluate_samples_kokkos(samples, gamma);
#endif
#if defined(HALOCLINE_HAVE_HIP)
    case BackendKind::Hip: return evaluate_samples_hip(samples, gamma);
#endif
    default: break;
  }
  throw std::logic_error("backend not built in");
}
}  // namespace

void evaluate_samples(BackendKind backend, std::vector<PhysicsSample<double>>& samples, double gamma) {
  evaluate_samples_on(backend, samples, gamma);
}
void evaluate_samples(BackendKind backend, std::vector<PhysicsSample<float>>& samples, float gamma) {
  evaluate_samples_on(backend, samples, gamma);
}

RuntimeSession::RuntimeSession(int& argc, char** argv) {
  initialize_comm(argc, argv);              // MPI first (under main, started already: nothing then)
  install_start_signals();                  // after MPI's: a signal from here on is said in one line,
  speak_at_signal_exit(world_rank() == 0);  // by rank 0 (every rank gets it)
#if defined(HALOCLINE_HAVE_KOKKOS)
  // Kokkos sees only its own --kokkos-* options: it also reads older bare names such as
  // --device and --threads, which belong to Halocline's command line.
  std::vector<char*> kokkos_argv = {argv[0]};
  for (int i = 1; i < argc; ++i)
    if (std::string(argv[i]).rfind("--kokkos-", 0) == 0) kokkos_argv.push_back(argv[i]);
  int kokkos_argc = static_cast<int>(kokkos_argv.size());
  kokkos_argv.push_back(nullptr);
  try {
    kokkos_initialize(kokkos_argc, kokkos_argv.data());
  } catch (const std::exception& e) {
    // A GPU runtime that cannot start (out of memory under ulimit -v, no device left) is
    // what the machine cannot give, not a fault of Halocline's: exit code 2, one line.
    finalize_comm();
    throw ResourceError(std::string("Kokkos could not start: ") + e.what() + "; " + host_memory_text());
  }
#endif
}
RuntimeSession::~RuntimeSession() {
#if defined(HALOCLINE_HAVE_KOKKOS)
  kokkos_finalize();
#endif
  finalize_comm();
}

HaloStrategy resolved_halo(HaloStrategy halo, int ranks) {
  if (halo != HaloStrategy::Auto) return halo;
  return ranks > 1 ? HaloStrategy::Overlap : HaloStrategy::None;
}

// The halo strategy of the run, and which faces of this rank it exchanges: those with a
// neighbour (another rank, or this one across a periodic boundary), unless the strategy
// is none. Throws DeckError for a choice this run cannot make.
HaloSetup choose_halo(const Config& c, const Comm& comm, const Grid& g) {
  HaloSetup h;
  h.host_memory = c.memory.host_memory;
  h.strategy = resolved_halo(c.halo, comm.size());
  if (h.strategy == HaloStrategy::None && comm.size() > 1)
    throw DeckError("--halo none needs one rank; this run has " + std::to_string(comm.size()) +
                    " (choose sync, overlap or gpu-aware)");
  std::string why;
  if (h.strategy == HaloStrategy::GpuAware && !comm.device_aware(why))
    throw DeckError("--halo gpu-aware: " + why + "; use --halo sync or overlap");
  if (h.strategy == HaloStrategy::None) return h;
  for (int d = 0; d < 3; ++d)
    for (int side = 0; side < 2; ++side) h.exchanged[d][side] = g.active(d) && comm.grid().neighbour[d][side] >= 0;
  return h;
}

// `auto`: the stage's kernels measured faster where the run goes (docs/performance.md).
// On a GPU (HIP, and Kokkos on CUDA or HIP): fused for a 3-D subdomain of at least 128^3
// cells. On the H200 (bench.toml, SoA) HIP's fused is faster from 128^3 up (1.15 x in fp64 and
// 1.04 x in fp32 at 128^3, more on larger grids) and 2-4 x slower at 64^3 and 32^3, whose few
// tiles leave most of the GPU idle while each block marches its planes in turn; 1-D and 2-D
// grids (a tile of one plane) keep split. Kokkos' fused ran 1.73 x (fp64) and 1.78 x (fp32)
// faster than its split at 512^3 in one run on an H100, and about 1.35 x and 1.6 x at 256^3 on
// the H200 by figures of different calls; below 256^3 it takes HIP's threshold, not measured on
// Kokkos. On AMD the rule is the H200's, not yet measured.
constexpr double kFusedAutoCells = 128.0 * 128.0 * 128.0;

namespace {

bool fused_faster_on_gpu(int active_directions, double largest_cells) {
  return active_directions == 3 && largest_cells >= kFusedAutoCells;
}

// Kokkos on the host (one or more CPU threads): fused on 2-D and 3-D grids. On a 2-core
// machine with Debian's Kokkos 3.4 Serial (docs/performance.md, seventeenth session) fused took
// 0.78-0.79 of split's time at 64^3 in fp64 and 0.79 in fp32, 0.60-0.73 and 0.82 at 128^2, 0.82
// in fp32 at 512^2; with Kokkos 4.6 OpenMP (before face_state and the face's body were kept
// inline, base/portability.hpp) 0.50-0.61 in fp64 and 0.69-0.77 in fp32. On 1-D grids (a
// tile of 28 x 8 columns with one row) it took 1.7-2.7 x split's time in both precisions.
bool fused_faster_on_host(int active_directions) { return active_directions >= 2; }

}  // namespace

KernelStrategy choose_kernels(const Config& c, const std::array<int, 3>& dims) {
  if (c.kernels != KernelStrategy::Auto) return c.kernels;
  double largest = 1;  // the uneven split's larger part along each direction
  int active = 0;      // directions with more than one cell
  for (int d = 0; d < 3; ++d) {
    largest *= (c.n[d] + dims[d] - 1) / dims[d];
    active += c.n[d] > 1;
  }
  const bool fused = runs_on_gpu(c.backend) ? fused_faster_on_gpu(active, largest) : fused_faster_on_host(active);
  return fused ? KernelStrategy::Fused : KernelStrategy::Split;
}

void check_backend_choices(const Config& c) {
  std::string why = backend_unavailable(c.backend);
#if defined(HALOCLINE_HAVE_KOKKOS)
  if (why.empty() && c.backend == BackendKind::Kokkos) why = kokkos_owner_unavailable(c.memory.owner);
#endif
  if (!why.empty()) throw DeckError(why);
}

std::unique_ptr<Backend> make_backend(const Config& c, const Grid& g, const BoundaryFaces& faces, int device,
                                      const std::array<int, 3>& dims) {
  const std::string why = backend_unavailable(c.backend);
  if (!why.empty()) throw DeckError(why);
  const Placement p{faces, device, choose_kernels(c, dims)};
  try {
    return c.precision == Precision::FP64 ? with_layout<double>(c, g, p) : with_layout<float>(c, g, p);
  } catch (const NotApplicable& e) {
    throw DeckError(e.what());  // the backend's word for a choice it cannot make: bad input
  }
}

}  // namespace halocline
