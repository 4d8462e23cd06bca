// The strategies a run chooses that a backend must know of: who owns the state, how host
// buffers are allocated, how the halo is exchanged, how a stage's kernels are cut (docs/design.md, docs/halo.md).
#pragma once

namespace halocline {

// Who owns the state between steps.
enum class Owner {
  Device,   // device memory for the whole run; dt made and used on the device
  Host,     // the naive port: host memory, copied to the device and back every step
  Managed,  // one managed allocation that host and device both touch
};

// How host buffers for transfers are allocated.
enum class HostMemory { Pinned, Pageable };

struct MemoryStrategy {
  Owner owner = Owner::Device;
  HostMemory host_memory = HostMemory::Pinned;
  bool prefetch = true;  // managed: prefetch to where the next access is
};

// How the ghost cells that come from a neighbour are filled: another rank's, or this
// rank's own across a periodic boundary (the halo exchange of app/stages.cpp, through
// app/comm.cpp's MPI calls).
enum class HaloStrategy {
  Auto,      // none with one rank, overlap with more
  None,      // one rank only: periodic ghosts copied in place by the ghost-fill kernel
  Sync,      // pack, copy to host, MPI, copy back, unpack; then every cell; one stream
  Overlap,   // the interior computes while the exchange runs on a second stream
  GpuAware,  // as sync, but MPI reads and writes device memory (no host staging)
};

// How a Runge-Kutta stage is computed (docs/performance.md).
enum class KernelStrategy {
  Auto,   // the faster one, by backend, device and grid (app/select.cpp choose_kernels)
  Split,  // a flux kernel per direction writes face fluxes to memory, an update kernel reads them
  Fused,  // one kernel per stage: each face flux is made on chip and used by both its cells
};

inline const char* owner_name(Owner o) {
  switch (o) {
    case Owner::Device: return "device";
    case Owner::Host: return "host";
    case Owner::Managed: return "managed";
  }
  return "?";
}

inline const char* host_memory_name(HostMemory h) {
  switch (h) {
    case HostMemory::Pinned: return "pinned";
    case HostMemory::Pageable: return "pageable";
  }
  return "?";
}

inline const char* halo_name(HaloStrategy h) {
  switch (h) {
    case HaloStrategy::Auto: return "auto";
    case HaloStrategy::None: return "none";
    case HaloStrategy::Sync: return "sync";
    case HaloStrategy::Overlap: return "overlap";
    case HaloStrategy::GpuAware: return "gpu-aware";
  }
  return "?";
}

inline const char* kernels_name(KernelStrategy k) {
  switch (k) {
    case KernelStrategy::Auto: return "auto";
    case KernelStrategy::Split: return "split";
    case KernelStrategy::Fused: return "fused";
  }
  return "?";
}

}  // namespace halocline
