// Launch shapes of the HIP kernels: a box of cells and the grid of thread blocks that covers
// it. Every stage kernel first reads the planned time step from the device-resident
// controller and does nothing when it is 0, so a step the host asks for past a stop changes
// nothing (its stage 2 carries u0 over into the array that becomes u0: see StageUpdate in
// kernels/stencil.hpp).
#pragma once

#include "base/grid.hpp"
#include "kernels/halo.hpp"
#include "kernels/hip/runtime.hpp"
#include "kernels/step_control.hpp"

namespace halocline::hip {

// A box of cells [lo, hi) and the launch shape that covers it: x in blocks of 64 threads
// (coalesced along the fastest index), 4 rows of y per block, z across the grid.
struct Box {
  int lo[3], hi[3];
  dim3 blocks() const { return dim3((hi[0] - lo[0] + 63) / 64, (hi[1] - lo[1] + 3) / 4, hi[2] - lo[2]); }
  static dim3 threads() { return dim3(64, 4, 1); }
  // The cell of this thread, or false when it falls outside the box.
  __device__ bool cell(int& i, int& j, int& k) const {
    i = lo[0] + static_cast<int>(blockIdx.x * blockDim.x + threadIdx.x);
    j = lo[1] + static_cast<int>(blockIdx.y * blockDim.y + threadIdx.y);
    k = lo[2] + static_cast<int>(blockIdx.z);
    return i < hi[0] && j < hi[1];
  }
};

// The cells of `cells`, extended by `extra` on the high side of direction d (the n + 1
// faces of d).
inline Box box_of(const CellBox& cells, int d = -1, int extra = 0) {
  Box b;
  for (int a = 0; a < 3; ++a) {
    b.lo[a] = cells.lo[a];
    b.hi[a] = cells.hi[a] + (a == d ? extra : 0);
  }
  return b;
}
inline Box interior_box(const Grid& g) { return box_of(interior_cells(g)); }

__device__ inline bool step_planned(const StepControl* control) { return control->dt > 0; }

}  // namespace halocline::hip
