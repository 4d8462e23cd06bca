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

const char* owner_name(Owner o);
const char* host_memory_name(HostMemory h);

}  // namespace halocline
