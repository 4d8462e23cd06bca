// Host loops split over threads. The passes over a whole state outside the time-step loop
// (the initial state, layout conversions, conserved totals) touch every cell once; on one
// core they take about a second each at 256^3, while a GPU step takes milliseconds, so a
// benchmark sweep would spend most of its time in them.
//
// Every pass split here writes each element from exactly one thread and reduces nothing
// across threads, so its result does not depend on the thread count.
#pragma once

#include <algorithm>
#include <cstddef>
#include <cstdlib>
#include <string>
#include <thread>
#include <vector>

namespace halocline {

// The ranks sharing this node (the driver sets it from MPI): they share its cores.
inline int& ranks_on_node() {
  static int n = 1;
  return n;
}

// Threads for host passes: HALOCLINE_HOST_THREADS if set, otherwise the node's hardware
// threads shared among the node's ranks; at least 1.
inline int host_threads() {
  if (const char* env = std::getenv("HALOCLINE_HOST_THREADS")) {
    const int n = std::atoi(env);
    if (n > 0) return n;
  }
  const int hardware = static_cast<int>(std::thread::hardware_concurrency());
  return std::max(1, hardware / std::max(1, ranks_on_node()));
}

// Calls body(begin, end) on contiguous parts of [0, n) on up to host_threads() threads,
// each part at least min_part items long (short loops run on the calling thread), and
// returns when all parts are done. body must not throw.
template <class F>
void parallel_for(std::size_t n, F&& body, std::size_t min_part = 1) {
  const std::size_t most = n / std::max<std::size_t>(1, min_part);
  const std::size_t parts = std::min<std::size_t>(static_cast<std::size_t>(host_threads()), most);
  if (parts <= 1) {
    if (n > 0) body(std::size_t{0}, n);
    return;
  }
  std::vector<std::thread> threads;
  threads.reserve(parts - 1);
  for (std::size_t p = 1; p < parts; ++p)
    threads.emplace_back([&body, n, p, parts] { body(n * p / parts, n * (p + 1) / parts); });
  body(std::size_t{0}, n / parts);
  for (std::thread& t : threads) t.join();
}

}  // namespace halocline
