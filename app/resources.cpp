#include "app/resources.hpp"

#include <sys/resource.h>

#include <algorithm>
#include <cstdio>
#include <fstream>
#include <limits>
#include <string>

#include "app/problems.hpp"
#include "app/select.hpp"
#include "base/grid.hpp"
#include "io/snapshot.hpp"
#include "kernels/contract/backend.hpp"
#include "kernels/contract/host_memory.hpp"
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

// A number from the first line of a cgroup file; false for "max", a missing or unreadable file.
bool read_cgroup_number(const std::string& file, std::uint64_t& value) {
  std::ifstream in(file);
  std::string word;
  if (!(in >> word) || word == "max" || word.find_first_not_of("0123456789") != std::string::npos) return false;
  value = std::stoull(word);
  return true;
}

// The path of this process's cgroup in the v2 hierarchy (the "0::" line of /proc/self/cgroup)
// or in v1's memory controller (its ":memory:" line); empty when there is none.
std::string cgroup_path(bool v2) {
  std::ifstream in("/proc/self/cgroup");
  std::string line;
  while (std::getline(in, line)) {
    if (v2 && line.rfind("0::", 0) == 0) return line.substr(3);
    const std::size_t at = line.find(":memory:");
    if (!v2 && at != std::string::npos) return line.substr(at + 8);
  }
  return "";
}

// A field of a cgroup's memory.stat (0 when absent).
std::uint64_t memory_stat(const std::string& dir, const std::string& field) {
  std::ifstream in(dir + "/memory.stat");
  std::string name;
  std::uint64_t value = 0;
  while (in >> name >> value)
    if (name == field) return value;
  return 0;
}

// What one cgroup's limit leaves: the limit less what it uses, not counting the page cache
// the kernel would drop first (inactive files); max when it sets no limit.
std::uint64_t cgroup_dir_left(const std::string& dir, const char* limit_file, const char* usage_file,
                              const char* inactive_field) {
  std::uint64_t limit = 0, used = 0;
  if (!read_cgroup_number(dir + "/" + limit_file, limit) || limit >= (1ull << 60))
    return std::numeric_limits<std::uint64_t>::max();
  read_cgroup_number(dir + "/" + usage_file, used);
  used -= std::min(used, memory_stat(dir, inactive_field));
  return limit > used ? limit - used : 0;
}

// What the memory cgroups' limits leave: the least over this process's cgroup and every
// cgroup above it (v2 memory.max less memory.current; v1 memory.limit_in_bytes less
// memory.usage_in_bytes); max when none sets a limit.
std::uint64_t cgroup_bytes_left() {
  std::uint64_t left = std::numeric_limits<std::uint64_t>::max();
  for (const bool v2 : {true, false}) {
    const std::string root = v2 ? "/sys/fs/cgroup" : "/sys/fs/cgroup/memory";
    std::string path = cgroup_path(v2);
    if (path.empty() && !v2) continue;
    for (;;) {
      const std::string dir = root + (path == "/" ? "" : path);
      left = std::min(
          left, v2 ? cgroup_dir_left(dir, "memory.max", "memory.current", "inactive_file")
                   : cgroup_dir_left(dir, "memory.limit_in_bytes", "memory.usage_in_bytes", "total_inactive_file"));
      const std::size_t slash = path.find_last_of('/');
      if (path.empty() || path == "/" || slash == std::string::npos) break;
      path = slash == 0 ? "/" : path.substr(0, slash);
    }
  }
  return left;
}

// "; the largest grid of this shape that fits[ where]: A x B x C cells", or that none does.
std::string largest_grid_clause(const std::array<int, 3>& n, const std::string& where) {
  if (n[0] == 0) return "; no grid of this shape fits" + where;
  return "; the largest grid of this shape that fits" + where + ": " + std::to_string(n[0]) + " x " +
         std::to_string(n[1]) + " x " + std::to_string(n[2]) + " cells";
}

// True when `plan` fits the host's room (a side it does not know fits) and the address space.
bool plan_fits(const MemoryPlan& plan, const HostRoom& room) {
  const u128 addressable = u128(1) << 62;  // far beyond any machine, far inside size_t
  if (plan.solver_bytes() > addressable || plan.host_bytes() > addressable) return false;
  return (room.node == 0 || plan.host_bytes() <= room.node) &&
         (room.process == 0 || plan.largest_process_bytes <= room.process);
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

// A limit of 300 MB is "286 MiB", not "0 GiB".
std::string binary_size(u128 bytes) {
  int shift = 30;
  const char* unit = "GiB";
  if (bytes < (u128(1) << 30)) shift = 20, unit = "MiB";
  if (bytes < (u128(1) << 20)) shift = 10, unit = "KiB";
  const double value = static_cast<double>(bytes) / static_cast<double>(u128(1) << shift);
  if (value >= 100) return bytes_text((bytes + (u128(1) << (shift - 1))) >> shift) + " " + unit;
  char text[32];
  std::snprintf(text, sizeof text, "%.*f", value >= 10 ? 1 : 2, value);
  std::string digits = text;
  while (digits.back() == '0') digits.pop_back();  // "3.00" -> "3", "1.50" -> "1.5"
  if (digits.back() == '.') digits.pop_back();
  return digits + " " + unit;
}

namespace {

// The halo the largest rank, the first, sets up (choose_halo, app/select.cpp, decides from its
// neighbours): its strategy, and its faces with a neighbour, another rank or itself across
// periodic faces (every rank of a direction split among ranks or periodic has one there).
HaloSetup planned_halo(const Config& c, const std::array<int, 3>& dims) {
  HaloSetup h;
  h.strategy = resolved_halo(c.halo, dims[0] * dims[1] * dims[2]);
  if (h.strategy == HaloStrategy::None) return h;
  const std::array<bool, 3> periodic = periodic_directions(c);
  for (int d = 0; d < 3; ++d) {  // the first rank's faces: its low one wraps, its high one may meet a rank
    h.exchanged[d][0] = c.n[d] > 1 && periodic[d];
    h.exchanged[d][1] = c.n[d] > 1 && (dims[d] > 1 || periodic[d]);
  }
  return h;
}

}  // namespace

MemoryPlan plan_memory(const Config& c, const std::array<int, 3>& dims, bool solver_on_host, int node_ranks,
                       bool node_has_rank0) {
  MemoryPlan plan;
  plan.solver_on_host = solver_on_host;
  const int origin[3] = {0, 0, 0}, ranks[3] = {dims[0], dims[1], dims[2]};
  const Grid largest = grid_of(c, ranks, origin);  // the first rank's part is the largest (split_axis)
  u128 padded = 1, local = 1, global = 1;
  for (int d = 0; d < 3; ++d) {
    local *= static_cast<u128>(largest.n[d]);
    padded *= static_cast<u128>(largest.np[d]);
    global *= static_cast<u128>(c.n[d]);
  }
  const std::size_t real = c.precision == Precision::FP64 ? 8 : 4;
  const bool flux_arrays = choose_kernels(c, dims) == KernelStrategy::Split;  // app/select.cpp
  const HaloSetup halo = planned_halo(c, dims);
  plan.solver = footprint_of(largest, c.layout, real, flux_arrays, {halo.any(0), halo.any(1), halo.any(2)},
                             halo.staged(), backend_scratch(c.backend, real));  // kernels/contract/footprint.hpp
  // The state comes to the host for files only (snapshots, checkpoints, a restart's read),
  // slab by slab (Backend::read_state): rank 0 builds each file in memory before writing it
  // (io/h5util.hpp says why), so it holds the file's bytes (doubles for a checkpoint, the
  // run's precision for a snapshot); with collective snapshots every rank holds its block of
  // primitives instead. The staged halo strategies hold host copies of the halo buffers
  // (Footprint::host_halo_buffers). Each rank holds a few slab buffers (the backend's two, their doubles,
  // their primitives); a restart reads its state through such buffers too
  // (Backend::write_state). The host owner model holds a GPU backend's staging buffer (its
  // layout and precision) all the time: it is its state.
  const bool snapshots = c.output_interval > 0 || c.output_final;
  const bool checkpoints = c.checkpoint.every_steps > 0 || c.checkpoint.every_seconds > 0;
  const bool restart = !c.restart_path.empty();
  const bool collective =
      snapshots && c.output_collective && dims[0] * dims[1] * dims[2] > 1 && SnapshotWriter::collective_available();
  const u128 value_bytes = kNumVars * 8;
  u128 rank0_file = 0, per_rank = 0;
  if (checkpoints) rank0_file = global * value_bytes;
  if (snapshots && !collective) rank0_file = std::max(rank0_file, global * kNumVars * real);
  if (collective) per_rank += local * value_bytes;
  if (snapshots || checkpoints || restart) {
    u128 plane = value_bytes, planes = 1;
    for (int d = 0; d < 2; ++d) plane *= (static_cast<u128>(c.n[d]) + dims[d] - 1) / dims[d];
    planes = std::max<u128>(1, std::min<u128>(SlabPlan::kSlabBytes / plane, local * value_bytes / plane));
    per_rank += 4 * plane * planes;
  }
  const bool staging = !solver_on_host && c.memory.owner == Owner::Host;
  const u128 each_rank =
      per_rank + plan.solver.host_halo_buffers + (staging ? storage_values(c.layout, padded) * real : 0);
  plan.node_ranks = node_ranks;
  plan.copies_bytes = (node_has_rank0 ? rank0_file : 0) + static_cast<u128>(node_ranks) * each_rank;
  plan.largest_process_bytes =
      (node_has_rank0 ? rank0_file : 0) + each_rank + (solver_on_host ? plan.solver_bytes() : 0);
  return plan;
}

namespace {

// The largest m in [lo, hi) for which holds(m), given holds(lo) and that on [lo, hi) it holds up
// to some m and not beyond (bisection).
template <class Holds>
int last_holding(int lo, int hi, const Holds& holds) {
  while (hi - lo > 1) {
    const int mid = lo + (hi - lo) / 2;
    (holds(mid) ? lo : hi) = mid;
  }
  return lo;
}

// The largest grid of the shape of `c` whose plan (solver_on_host as given) `fits`.
template <class Fits>
std::array<int, 3> largest_grid_where(const Config& c, const std::array<int, 3>& dims, bool solver_on_host,
                                      int node_ranks, bool node_has_rank0, const Fits& fits_plan) {
  // The grid of size m along the largest active direction, the others scaled alike (integer
  // division: the same shape, rounded down), each active one kept active and large enough
  // for its ranks' ghost layers. The plan grows with m: bisect on it.
  int largest = 1;
  for (int d = 0; d < 3; ++d) largest = std::max(largest, c.n[d]);
  auto scaled = [&](int m) {
    Config t = c;
    for (int d = 0; d < 3; ++d)
      if (c.n[d] > 1)
        t.n[d] = std::max(std::max(2, kGhostLayers * dims[d]),
                          static_cast<int>(static_cast<long long>(c.n[d]) * m / largest));
    return t;
  };
  auto fits = [&](int m) {
    return fits_plan(plan_memory(scaled(m), dims, solver_on_host, node_ranks, node_has_rank0));
  };
  if (!fits(1)) return {0, 0, 0};
  int lo = 1, hi = largest + 1;  // fits(lo); hi does not, or is past the grid asked for
  // `--kernels auto` may switch from split to fused as the grid grows (choose_kernels), and the
  // plan drops there (no flux arrays): it grows with m on each side of the switch, so bisect on
  // the side above it where its first grid fits, else below.
  const KernelStrategy large = choose_kernels(scaled(largest), dims);
  if (choose_kernels(scaled(1), dims) != large) {
    const int first = 1 + last_holding(1, largest, [&](int m) { return choose_kernels(scaled(m), dims) != large; });
    (fits(first) ? lo : hi) = first;
  }
  const Config best = scaled(last_holding(lo, hi, fits));
  return {best.n[0], best.n[1], best.n[2]};
}

}  // namespace

std::array<int, 3> largest_fitting_grid(const Config& c, const std::array<int, 3>& dims, bool solver_on_host,
                                        int node_ranks, bool node_has_rank0, const HostRoom& room) {
  return largest_grid_where(c, dims, solver_on_host, node_ranks, node_has_rank0,
                            [&](const MemoryPlan& plan) { return plan_fits(plan, room); });
}

std::array<int, 3> largest_fitting_device_grid(const Config& c, const std::array<int, 3>& dims, int node_ranks,
                                               bool node_has_rank0, std::uint64_t device_free) {
  return largest_grid_where(c, dims, false, node_ranks, node_has_rank0,
                            [&](const MemoryPlan& plan) { return plan.solver_bytes() <= device_free; });
}

void check_memory(const Config& c, const std::array<int, 3>& dims, bool solver_on_host, int node_ranks,
                  bool node_has_rank0) {
  const HostRoom room = host_room();  // read once: the check and the advice agree
  try {
    check_memory_plan(plan_memory(c, dims, solver_on_host, node_ranks, node_has_rank0), room);
  } catch (const ResourceError& e) {
    throw ResourceError(
        std::string(e.what()) +
        largest_grid_clause(largest_fitting_grid(c, dims, solver_on_host, node_ranks, node_has_rank0, room), ""));
  }
}

std::string device_refusal(const std::string& message, const Config& c, const std::array<int, 3>& dims, int node_ranks,
                           bool node_has_rank0, std::uint64_t device_free) {
  const MemoryPlan plan = plan_memory(c, dims, false, node_ranks, node_has_rank0);
  return message + "; the host needs " + bytes_text(plan.host_bytes()) + " bytes, " + host_memory_text() +
         largest_grid_clause(largest_fitting_device_grid(c, dims, node_ranks, node_has_rank0, device_free),
                             " the device");
}

void check_memory_plan(const MemoryPlan& plan, const HostRoom& room) {
  const u128 host = plan.host_bytes();
  const u128 addressable = u128(1) << 62;  // far beyond any machine, far inside size_t
  const std::string ranks =
      plan.node_ranks > 1 ? " on each of the node's " + std::to_string(plan.node_ranks) + " ranks" : "";
  const std::string parts = bytes_text(plan.solver_bytes()) + " bytes for the solver's arrays and buffers" + ranks +
                            (plan.solver_on_host ? "" : " (device memory)") + " and " + bytes_text(plan.copies_bytes) +
                            " bytes for the host copies of the state";
  if (plan.solver_bytes() > addressable || host > addressable)
    throw ResourceError("this grid needs " + bytes_text(plan.solver_on_host ? host : plan.solver_bytes()) + " bytes (" +
                        parts + "): more than a process can address");
  if (room.node > 0 && host > room.node)
    throw ResourceError("this grid needs " + bytes_text(host) + " bytes (" + binary_size(host) + ") of host memory (" +
                        parts + "); " + host_memory_text());
  const u128 process = plan.largest_process_bytes;
  if (room.process > 0 && process > room.process)
    throw ResourceError("this grid needs " + bytes_text(process) + " bytes (" + binary_size(process) +
                        ") of host memory in its largest process (of the node's " + bytes_text(host) +
                        " bytes: " + parts + "); " + host_memory_text());
}

HostRoom host_room() {
  const std::uint64_t none = std::numeric_limits<std::uint64_t>::max();
  const std::uint64_t meminfo = available_host_bytes(), cgroup = cgroup_bytes_left(), process = address_space_left();
  HostRoom room;
  room.node = meminfo == 0 ? (cgroup == none ? 0 : cgroup) : std::min(meminfo, cgroup);
  room.process = process == none ? 0 : std::max<std::uint64_t>(process, 1);  // 0 left is still a limit
  return room;
}

std::uint64_t host_bytes_available() {
  const HostRoom room = host_room();
  if (room.node == 0 || room.process == 0) return std::max(room.node, room.process);
  return std::min(room.node, room.process);
}

std::string host_memory_text() {
  const std::uint64_t meminfo = available_host_bytes();
  std::string text = "the machine has " + bytes_text(meminfo) + " bytes (" + binary_size(meminfo) + ") available";
  const std::uint64_t left = address_space_left();
  if (left != std::numeric_limits<std::uint64_t>::max())
    text += "; ulimit -v leaves this process " + bytes_text(left) + " bytes (" + binary_size(left) + ")";
  const std::uint64_t cgroup = cgroup_bytes_left();
  if (cgroup != std::numeric_limits<std::uint64_t>::max())
    text += "; its memory cgroup leaves " + bytes_text(cgroup) + " bytes (" + binary_size(cgroup) + ")";
  return text;
}

}  // namespace halocline
