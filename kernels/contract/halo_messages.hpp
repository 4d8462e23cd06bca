// The messages of one direction of the halo exchange, as a backend hands them to the MPI
// layer (app/comm.cpp): the buffers MPI reads and writes and which faces exchange at all.
#pragma once

#include <cstddef>

namespace halocline {

// One direction's messages: the buffers MPI reads and writes (host staging buffers, or
// device buffers for GPU-aware MPI) and which of the two faces exchange at all.
struct HaloMessages {
  const void* send[2] = {nullptr, nullptr};  // from face 0 (low) and face 1 (high)
  void* receive[2] = {nullptr, nullptr};     // into the ghosts of face 0 and face 1
  std::size_t bytes = 0;                     // of each message
  bool exchanged[2] = {false, false};
};

}  // namespace halocline
