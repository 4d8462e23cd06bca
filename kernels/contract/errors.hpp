// The errors a backend raises that the command line turns into exit code 2 (app/failures.cpp).
#pragma once

#include <stdexcept>

namespace halocline {

// The machine cannot hold what the run needs (device or host memory): exit code 2, before
// any work.
struct ResourceError : std::runtime_error {
  using std::runtime_error::runtime_error;
};

// A choice that does not apply to this backend or build (an owner model on a host execution
// space, say): exit code 2 with the message, as bad input; app/select.cpp says so, and a
// bench lists the configuration as skipped.
struct NotApplicable : std::runtime_error {
  using std::runtime_error::runtime_error;
};

}  // namespace halocline
