// The memory strategies a run can choose (docs/strategies.md explains each).
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
// rank's own across a periodic boundary (the halo exchange of app/driver.cpp).
enum class HaloStrategy {
  Auto,      // none with one rank, overlap with more
  None,      // one rank only: periodic ghosts copied in place by the ghost-fill kernel
  Sync,      // pack, copy to host, MPI, copy back, unpack; then every cell; one stream
  Overlap,   // the interior computes while the exchange runs on a second stream
  GpuAware,  // as sync, but MPI reads and writes device memory (no host staging)
};

const char* owner_name(Owner o);
const char* halo_name(HaloStrategy h);
const char* host_memory_name(HostMemory h);

}  // namespace halocline
