#include "app/resources.hpp"

#include <sys/resource.h>

#include <fstream>
#include <limits>

#include "app/select.hpp"
#include "kernels/contract/backend.hpp"
#include "kernels/contract/host_memory.hpp"
#include "kernels/grid.hpp"
#include "kernels/stencil.hpp"
#include "layouts/layouts.hpp"

namespace halocline {

namespace {

using u128 = unsigned __int128;

// What RLIMIT_AS leaves of the address space; max when there is no limit.
std::uint64_t address_space_left() {
  rlimit limit{};
  if (getrlimit(RLIMIT_AS, &limit) != 0 || limit.rlim_cur == RLIM_INFINITY)
    return std::numeric_limits<std::uint64_t>::max();
  const std::uint64_t used = proc_kib_bytes("/proc/self/status", "VmSize:");
  return limit.rlim_cur > used ? limit.rlim_cur - used : 0;
}

std::string gib(u128 bytes) { return bytes_text((bytes + (u128(1) << 29)) >> 30) + " GiB"; }

}  // namespace

std::string bytes_text(u128 n) {
  std::string digits;
  do {
    digits.insert(digits.begin(), static_cast<char>('0' + static_cast<int>(n % 10)));
    n /= 10;
  } while (n);
  return digits;
}

MemoryPlan plan_memory(const Config& c, const std::array<int, 3>& dims, bool solver_on_host, int node_ranks,
                       bool node_has_rank0) {
  MemoryPlan plan;
  plan.solver_on_host = solver_on_host;
  u128 padded = 1, local = 1, global = 1;
  int active_directions = 0;
  for (int d = 0; d < 3; ++d) {
    const bool active = c.n[d] > 1;
    const u128 largest = (static_cast<u128>(c.n[d]) + dims[d] - 1) / dims[d];  // the uneven split's larger part
    local *= largest;
    padded *= largest + (active ? 2 * kGhostLayers : 0);
    global *= static_cast<u128>(c.n[d]);
    active_directions += active;
  }
  const u128 real = c.precision == Precision::FP64 ? 8 : 4;
  u128 values = padded * kNumVars;  // SoA and AoS; AoSoA pads its last tile
  if (c.layout == LayoutKind::AoSoA) values = (padded + AoSoA::width - 1) / AoSoA::width * AoSoA::width * kNumVars;
  const bool flux_arrays = choose_kernels(c) == KernelStrategy::Split;                // app/select.cpp
  plan.solver_bytes = solver_arrays(active_directions, flux_arrays) * values * real;  // kernels/stencil.hpp
  // The driver keeps each rank's state as doubles; rank 0 also gathers the whole (a copy
  // even on one rank), makes its primitives for a snapshot, and builds each snapshot or
  // checkpoint file in memory before writing it (io/h5util.hpp).
  plan.node_ranks = node_ranks;
  plan.copies_bytes = kNumVars * 8 * (static_cast<u128>(node_ranks) * local + (node_has_rank0 ? 3 * global : 0));
  return plan;
}

void check_memory_plan(const MemoryPlan& plan) {
  const u128 host = plan.host_bytes();
  const u128 addressable = u128(1) << 62;  // far beyond any machine, far inside size_t
  const std::string ranks =
      plan.node_ranks > 1 ? " on each of the node's " + std::to_string(plan.node_ranks) + " ranks" : "";
  const std::string parts = bytes_text(plan.solver_bytes) + " bytes for the solver's arrays" + ranks +
                            (plan.solver_on_host ? "" : " (device memory)") + " and " + bytes_text(plan.copies_bytes) +
                            " bytes for the host copies of the state";
  if (plan.solver_bytes > addressable || host > addressable)
    throw ResourceError("this grid needs " + bytes_text(plan.solver_on_host ? host : plan.solver_bytes) + " bytes (" +
                        parts + "): more than a process can address");
  const std::uint64_t available = host_bytes_available();
  if (available > 0 && host > available)
    throw ResourceError("this grid needs " + bytes_text(host) + " bytes (" + gib(host) + ") of host memory (" + parts +
                        "); " + host_memory_text());
}

std::uint64_t host_bytes_available() {
  const std::uint64_t meminfo = available_host_bytes();
  const std::uint64_t left = address_space_left();
  if (meminfo == 0) return left == std::numeric_limits<std::uint64_t>::max() ? 0 : left;
  return std::min(meminfo, left);
}

std::string host_memory_text() {
  const std::uint64_t meminfo = available_host_bytes();
  std::string text = "the machine has " + bytes_text(meminfo) + " bytes (" + gib(meminfo) + ") available";
  const std::uint64_t left = address_space_left();
  if (left != std::numeric_limits<std::uint64_t>::max())
    text += "; ulimit -v leaves this process " + bytes_text(left) + " bytes (" + gib(left) + ")";
  return text;
}

}  // namespace halocline
