// Host memory Linux says is available now (MemAvailable of /proc/meminfo): what a backend in
// host memory checks its arrays against, and what the memory plan (app/resources.cpp)
// starts from. 0 where it is unknown (not Linux).
#pragma once

#include <cstdint>
#include <fstream>
#include <string>

namespace halocline {

// A /proc file's "Key: N kB" value in bytes; 0 when absent.
inline std::uint64_t proc_kib_bytes(const char* file, const std::string& wanted) {
  std::ifstream in(file);
  std::string key;
  std::uint64_t kib = 0;
  while (in >> key) {
    if (key == wanted && in >> kib) return kib * 1024;
    in.ignore(4096, '\n');
  }
  return 0;
}

inline std::uint64_t available_host_bytes() { return proc_kib_bytes("/proc/meminfo", "MemAvailable:"); }

}  // namespace halocline
