// Names of the Config enums, as written in decks, reports and snapshots. io/deck.cpp
// parses the same words, so a name printed here can always be read back.
#include "app/config.hpp"

namespace halocline {

const char* precision_name(Precision p) {
  switch (p) {
    case Precision::FP64: return "fp64";
    case Precision::FP32: return "fp32";
  }
  return "?";
}

const char* backend_name(BackendKind b) {
  switch (b) {
    case BackendKind::Kokkos: return "kokkos";
    case BackendKind::Hip: return "hip";
  }
  return "?";
}

const char* owner_name(Owner o) {
  switch (o) {
    case Owner::Device: return "device";
    case Owner::Host: return "host";
    case Owner::Managed: return "managed";
  }
  return "?";
}

const char* host_memory_name(HostMemory h) {
  switch (h) {
    case HostMemory::Pinned: return "pinned";
    case HostMemory::Pageable: return "pageable";
  }
  return "?";
}

const char* halo_name(HaloStrategy h) {
  switch (h) {
    case HaloStrategy::Auto: return "auto";
    case HaloStrategy::None: return "none";
    case HaloStrategy::Sync: return "sync";
    case HaloStrategy::Overlap: return "overlap";
    case HaloStrategy::GpuAware: return "gpu-aware";
  }
  return "?";
}

const char* boundary_name(Boundary b) {
  switch (b) {
    case Boundary::Periodic: return "periodic";
    case Boundary::Outflow: return "outflow";
    case Boundary::Reflecting: return "reflecting";
    case Boundary::Exchanged: return "exchanged";
  }
  return "?";
}

const char* problem_name(ProblemKind p) {
  switch (p) {
    case ProblemKind::Riemann: return "riemann";
    case ProblemKind::IsentropicVortex: return "isentropic_vortex";
    case ProblemKind::Sedov: return "sedov";
    case ProblemKind::KelvinHelmholtz: return "kelvin_helmholtz";
    case ProblemKind::Uniform: return "uniform";
  }
  return "?";
}

const char* limiter_name(Limiter l) {
  switch (l) {
    case Limiter::Minmod: return "minmod";
    case Limiter::VanLeer: return "vanleer";
    case Limiter::MC: return "mc";
  }
  return "?";
}

const char* riemann_name(RiemannSolver r) {
  switch (r) {
    case RiemannSolver::HLLC: return "hllc";
    case RiemannSolver::Rusanov: return "rusanov";
  }
  return "?";
}

}  // namespace halocline
