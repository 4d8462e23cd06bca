// The one place where the run-time choices of backend, layout and precision become types.
#pragma once

#include <memory>

#include "app/backend.hpp"
#include "app/config.hpp"
#include "kernels/grid.hpp"

namespace halocline {

std::unique_ptr<Backend> make_backend(const Config& config, const Grid& grid);

}  // namespace halocline
