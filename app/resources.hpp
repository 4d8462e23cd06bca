// What a run needs of the machine's memory, computed before any allocation in exact
// (128-bit) integer arithmetic, so that a grid too large for size_t or for the machine is
// refused with exit code 2 and the right byte counts instead of an overflow, an allocator's
// exception or the out-of-memory killer.
#pragma once

#include <array>
#include <cstdint>
#include <string>

#include "io/config.hpp"
#include "kernels/contract/footprint.hpp"

namespace halocline {

// Bytes a run of `config` on the process grid `ranks_grid` needs on one node: `node_ranks`
// ranks (each counted as the largest), rank 0 among them or not.
struct MemoryPlan {
  Footprint solver;                             // one rank's backend: its arrays, buffers and scratch (device or host)
  unsigned __int128 copies_bytes = 0;           // host copies of the state on the node, for files:
                                                // rank 0's file image, slab buffers, a restart's read
  unsigned __int128 largest_process_bytes = 0;  // what the node's largest rank holds (rank 0, where it is here)
  int node_ranks = 1;
  bool solver_on_host = true;  // the backend's arrays are in host memory
  // The most one rank's backend holds at once (Footprint::peak).
  unsigned __int128 solver_bytes() const { return solver.peak(); }
  unsigned __int128 host_bytes() const { return copies_bytes + (solver_on_host ? node_ranks * solver_bytes() : 0); }
};
MemoryPlan plan_memory(const Config& config, const std::array<int, 3>& ranks_grid, bool solver_on_host,
                       int node_ranks = 1, bool node_has_rank0 = true);

// What the host leaves a run, in bytes (0: unknown, or no limit): the node's, which its ranks
// share (MemAvailable, what the memory cgroups' limits leave), and each process's own (what
// ulimit -v leaves of its address space: a limit on each rank, not on their sum).
struct HostRoom {
  std::uint64_t node = 0;
  std::uint64_t process = 0;
};
HostRoom host_room();

// Throws ResourceError (exit code 2) when the plan cannot fit: more bytes than a process can
// address, more than the node has for all its ranks, or more than one process may take for
// the node's largest rank. Device memory is the GPU backend's own check.
void check_memory_plan(const MemoryPlan& plan, const HostRoom& room);

// check_memory_plan of the plan of `config`; a refusal also names the largest grid of the
// same shape (each active size scaled alike) that would fit (largest_fitting_grid).
void check_memory(const Config& config, const std::array<int, 3>& ranks_grid, bool solver_on_host, int node_ranks = 1,
                  bool node_has_rank0 = true);

// The largest grid of the shape of `config` (its active sizes scaled by one factor) whose
// plan fits the host's `room` (no limit but the address space where it knows none);
// {0, 0, 0} when none.
std::array<int, 3> largest_fitting_grid(const Config& config, const std::array<int, 3>& ranks_grid, bool solver_on_host,
                                        int node_ranks, bool node_has_rank0, const HostRoom& room);
// The same for one rank's device memory: its backend's footprint at its peak within
// `device_free` bytes.
std::array<int, 3> largest_fitting_device_grid(const Config& config, const std::array<int, 3>& ranks_grid,
                                               int node_ranks, bool node_has_rank0, std::uint64_t device_free);

// A backend's refusal for device memory (ResourceError::device_free set) as one line with
// both sides: the device's bytes needed and free, the host's plan and what it has, and the
// largest grid of this shape whose arrays fit the device.
std::string device_refusal(const std::string& backend_message, const Config& config,
                           const std::array<int, 3>& ranks_grid, int node_ranks, bool node_has_rank0,
                           std::uint64_t device_free);

// Host memory this process may still take, in bytes, where it runs alone: the smallest of
// host_room()'s node and process; 0 when none is known.
std::uint64_t host_bytes_available();

// "the machine has N bytes (G GiB) available[; ulimit -v leaves M bytes]", for messages.
std::string host_memory_text();

// N as decimal digits (a 128-bit count has no std::to_string).
std::string bytes_text(unsigned __int128 n);

// A size in GiB, MiB or KiB, the largest unit that gives at least 1, to three figures
// ("1.21 GiB", "293 MiB"): two sizes a message compares read apart.
std::string binary_size(unsigned __int128 bytes);

}  // namespace halocline
