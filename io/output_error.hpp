// A file the run writes could not be written (full disk, quota, permission, a path that is
// not a regular file): the command line turns it into exit code 4 with this one line, which
// names the file and the operating system's reason.
#pragma once

#include <stdexcept>
#include <string>

namespace halocline {

struct OutputError : std::runtime_error {
  using std::runtime_error::runtime_error;
};

}  // namespace halocline
