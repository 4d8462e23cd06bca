// The errors a backend raises that the command line turns into exit code 2 (app/failures.cpp).
#pragma once

#include <cstdint>
#include <stdexcept>
#include <string>

namespace halocline {

// The machine cannot hold what the run needs (device or host memory): exit code 2, before
// any work.
struct ResourceError : std::runtime_error {
  explicit ResourceError(const std::string& what, std::uint64_t device_free_bytes = 0)
      : std::runtime_error(what), device_free(device_free_bytes) {}
  // A refusal for device memory: the bytes the device had free (0: the host's refusal), so
  // that the driver can name the largest grid that fits (app/resources.hpp).
  std::uint64_t device_free;
};

// A choice that does not apply to this backend or build (an owner model on a host execution
// space, say): exit code 2 with the message, as bad input; app/select.cpp says so, and a
// bench lists the configuration as skipped.
struct NotApplicable : std::runtime_error {
  using std::runtime_error::runtime_error;
};

}  // namespace halocline
