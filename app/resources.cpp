#include "app/resources.hpp"

#include <sys/resource.h>

#include <algorithm>
#include <fstream>
#include <limits>
#include <string>

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

// A number from the first line of a cgroup file; false for "max", a missing or unreadable file.
bool read_cgroup_number(const std::string& file, std::uint64_t& value) {
  std::ifstream in(file);
  std::string word;
  if (!(in >> word) || word == "max" || word.find_first_not_of("0123456789") != std::string::npos) return false;
  value = std::stoull(word);
  return true;
}

// The directory of this process's cgroup (v2: the "0::" line of /proc/self/cgroup), or the
// root of the hierarchy when that cannot be read.
std::string cgroup_dir() {
  std::ifstream in("/proc/self/cgroup");
  std::string line;
  while (std::getline(in, line))
    if (line.rfind("0::", 0) == 0) return "/sys/fs/cgroup" + line.substr(3);
  return "/sys/fs/cgroup";
}

// What the memory cgroup's limit leaves (v2 memory.max less memory.current; v1
// memory.limit_in_bytes less memory.usage_in_bytes); max when no limit is set.
std::uint64_t cgroup_bytes_left() {
  std::uint64_t limit = 0, used = 0;
  const std::string dir = cgroup_dir();
  if (read_cgroup_number(dir + "/memory.max", limit)) {
    read_cgroup_number(dir + "/memory.current", used);
  } else if (read_cgroup_number("/sys/fs/cgroup/memory/memory.limit_in_bytes", limit) && limit < (1ull << 60)) {
    read_cgroup_number("/sys/fs/cgroup/memory/memory.usage_in_bytes", used);
  } else {
    return std::numeric_limits<std::uint64_t>::max();
  }
  return limit > used ? limit - used : 0;
}

// True when `plan` fits `available` host bytes (0: unknown, so it fits) and the address space.
bool plan_fits(const MemoryPlan& plan, std::uint64_t available) {
  const u128 addressable = u128(1) << 62;  // far beyond any machine, far inside size_t
  if (plan.solver_bytes > addressable || plan.host_bytes() > addressable) return false;
  return available == 0 || plan.host_bytes() <= available;
}

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

std::array<int, 3> largest_fitting_grid(const Config& c, const std::array<int, 3>& dims, bool solver_on_host,
                                        int node_ranks, bool node_has_rank0, std::uint64_t available) {
  // The grid of size m along the largest active direction, the others scaled alike (integer
  // division: the same shape, rounded down). The plan grows with m: bisect on it.
  int largest = 1;
  for (int d = 0; d < 3; ++d) largest = std::max(largest, c.n[d]);
  auto scaled = [&](int m) {
    Config t = c;
    for (int d = 0; d < 3; ++d)
      if (c.n[d] > 1) t.n[d] = std::max(1, static_cast<int>(static_cast<long long>(c.n[d]) * m / largest));
    return t;
  };
  auto fits = [&](int m) {
    return plan_fits(plan_memory(scaled(m), dims, solver_on_host, node_ranks, node_has_rank0), available);
  };
  if (!fits(1)) return {0, 0, 0};
  int lo = 1, hi = largest + 1;  // fits(lo); hi does not, or is past the grid asked for
  while (hi - lo > 1) {
    const int mid = lo + (hi - lo) / 2;
    (fits(mid) ? lo : hi) = mid;
  }
  const Config best = scaled(lo);
  return {best.n[0], best.n[1], best.n[2]};
}

void check_memory(const Config& c, const std::array<int, 3>& dims, bool solver_on_host, int node_ranks,
                  bool node_has_rank0) {
  try {
    check_memory_plan(plan_memory(c, dims, solver_on_host, node_ranks, node_has_rank0));
  } catch (const ResourceError& e) {
    const std::array<int, 3> n =
        largest_fitting_grid(c, dims, solver_on_host, node_ranks, node_has_rank0, host_bytes_available());
    if (n[0] == 0) throw ResourceError(std::string(e.what()) + "; no grid of this shape fits");
    throw ResourceError(std::string(e.what()) + "; the largest grid of this shape that fits: " + std::to_string(n[0]) +
                        " x " + std::to_string(n[1]) + " x " + std::to_string(n[2]) + " cells");
  }
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
  const std::uint64_t left = std::min(address_space_left(), cgroup_bytes_left());
  if (meminfo == 0) return left == std::numeric_limits<std::uint64_t>::max() ? 0 : left;
  return std::min(meminfo, left);
}

std::string host_memory_text() {
  const std::uint64_t meminfo = available_host_bytes();
  std::string text = "the machine has " + bytes_text(meminfo) + " bytes (" + gib(meminfo) + ") available";
  const std::uint64_t left = address_space_left();
  if (left != std::numeric_limits<std::uint64_t>::max())
    text += "; ulimit -v leaves this process " + bytes_text(left) + " bytes (" + gib(left) + ")";
  const std::uint64_t cgroup = cgroup_bytes_left();
  if (cgroup != std::numeric_limits<std::uint64_t>::max())
    text += "; its memory cgroup leaves " + bytes_text(cgroup) + " bytes (" + gib(cgroup) + ")";
  return text;
}

}  // namespace halocline
