// The solver's kernels for the HIP backend: one thread per cell or face, each calling the
// same physics as every other backend (kernels/stencil.hpp). Every stage kernel first reads
// the planned time step from the device-resident controller and does nothing when it is 0,
// so a step the host asks for past a stop changes nothing (its stage 2 carries u0 over into
// the array that becomes u0: see StageUpdate in kernels/stencil.hpp).
#pragma once

#include "kernels/halo.hpp"
#include "kernels/hip/runtime.hpp"
#include "kernels/stencil.hpp"
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

// Index of interior cell (i, j, k) in the interior-ordered scratch arrays.
__device__ inline std::size_t interior_index(const Box& box, int i, int j, int k) {
  return (static_cast<std::size_t>(k - box.lo[2]) * (box.hi[1] - box.lo[1]) + (j - box.lo[1])) *
             (box.hi[0] - box.lo[0]) +
         (i - box.lo[0]);
}

// Ghost layers of direction d over the padded extent of the other two directions. Thread x
// runs along the other direction with the smaller stride (coalesced where it can be),
// thread y over the 2 ng layers, and the grid's z over the remaining direction.
HC_INLINE void ghost_directions(int d, int& fast, int& slow) {
  fast = d == 0 ? 1 : 0;
  slow = 3 - d - fast;
}

template <int D, class Real, class L>
__global__ void ghost_fill_kernel(Grid g, BoundaryFaces bc, StateRef<Real, L> u, const StepControl* control) {
  if (!step_planned(control)) return;
  constexpr int d = D;
  int fast, slow;
  ghost_directions(d, fast, slow);
  const int ia = static_cast<int>(blockIdx.x * blockDim.x + threadIdx.x);
  const int layer = static_cast<int>(blockIdx.y * blockDim.y + threadIdx.y);
  const int ib = static_cast<int>(blockIdx.z);
  const int n = g.n[d], ng = g.ng[d];
  if (layer >= 2 * ng || ia >= g.np[fast]) return;
  const int ghost = layer < ng ? layer : n + layer;  // low ghosts, then high ghosts
  if (!filled_by_boundary(ghost, ng, bc.face[d][0], bc.face[d][1])) return;
  bool flip = false;
  const int source = ghost_source(ghost, n, ng, bc.face[d][0], bc.face[d][1], flip);
  const std::size_t base = g.stride[fast] * ia + g.stride[slow] * ib;
  copy_ghost(u, base + g.stride[d] * ghost, base + g.stride[d] * source, d, flip);
}

// Halo messages of direction d (kernels/halo.hpp), both exchanged faces at once: thread x
// along the other direction of smaller stride, y over the layers, the grid's z over the
// last direction; all five variables per thread.
inline dim3 message_blocks(const Grid& g, int d) {
  int fast, slow;
  ghost_directions(d, fast, slow);
  return dim3((g.np[fast] + 63) / 64, (g.ng[d] + 3) / 4, g.np[slow]);
}

// Pack (Pack = true: ghost-adjacent interior cells -> messages) or unpack (messages ->
// ghosts) the faces `low` and `high` of direction d.
template <bool Pack, class Real, class L>
__global__ void halo_kernel(Grid g, StateRef<Real, L> u, int d, bool low, bool high, Real* message_low,
                            Real* message_high) {
  int fast, slow;
  ghost_directions(d, fast, slow);
  const int ia = static_cast<int>(blockIdx.x * blockDim.x + threadIdx.x);
  const int layer = static_cast<int>(blockIdx.y * blockDim.y + threadIdx.y);
  const int ib = static_cast<int>(blockIdx.z);
  if (ia >= g.np[fast] || layer >= g.ng[d]) return;
  halo_values<Pack>(g, u, d, low, high, layer, ia, ib, message_low, message_high);
}

// 256 threads per block (Box::threads) and at least 4 blocks per multiprocessor: caps the
// registers at 64 per thread so that half the warp slots can be filled (the HLLC flux
// otherwise takes ~68 and leaves only 3 blocks resident, too few to hide fp64 latency).
template <int D, class Real, class L>
__global__ void __launch_bounds__(256, 4)
    flux_kernel(Grid g, Box box, StateRef<Real, L> u, StateRef<Real, L> f, Real gamma, Limiter lim,
                RiemannSolver solver, const StepControl* control) {
  if (!step_planned(control)) return;
  int i, j, k;
  if (!box.cell(i, j, k)) return;
  face_flux<D>(u, f, g.index(i, j, k), g.stride[D], gamma, lim, solver);
}

template <class Real, class L>
struct FluxRefs {
  StateRef<Real, L> f[3];
};

template <class Real, class L>
__global__ void update_kernel(Grid g, Box box, StateRef<Real, L> u0, StateRef<Real, L> u1, StateRef<Real, L> out,
                              FluxRefs<Real, L> flux, int stage, const StepControl* control) {
  int i, j, k;
  if (!box.cell(i, j, k)) return;
  if (!step_planned(control)) {
    // A step past a stop carries u0 over; after a fault u0 is the last good state and
    // stays where it is.
    if (stage == 2 && !control->failed) carry_cell(u0, out, g.index(i, j, k));
    return;
  }
  StageUpdate st;
  st.stage = stage;
  for (int d = 0; d < 3; ++d) {
    st.active[d] = g.active(d);
    st.dt_over_dx[d] = st.active[d] ? control->dt / g.dx[d] : 0.0;
  }
  update_cell(u0, u1, out, flux.f, g.stride, st, g.index(i, j, k));
}

// The signal rate of every interior cell (cell_signal_rate, kernels/stencil.hpp), in
// interior order, for the device-wide max.
template <class Real, class L>
__global__ void signal_rate_kernel(Grid g, Box box, StateRef<Real, L> u, Real gamma, Real* rates) {
  int i, j, k;
  if (!box.cell(i, j, k)) return;
  Real inv_dx[3];
  bool active[3];
  for (int d = 0; d < 3; ++d) {
    inv_dx[d] = static_cast<Real>(1.0 / g.dx[d]);
    active[d] = g.active(d);
  }
  rates[interior_index(box, i, j, k)] = cell_signal_rate(u, g.index(i, j, k), gamma, inv_dx, active);
}

// One conserved variable of every interior cell, in interior order, for a device sum.
template <class Real, class L>
__global__ void gather_kernel(Grid g, Box box, StateRef<Real, L> u, int var, Real* out) {
  int i, j, k;
  if (!box.cell(i, j, k)) return;
  out[interior_index(box, i, j, k)] = u(var, g.index(i, j, k));
}

// The controller's own kernels: one thread each.
template <class Real>
__global__ void plan_step_kernel(StepControl* control, const Real* max_rate, int array) {
  plan_step(*control, static_cast<double>(*max_rate), array);
}

// Finishes the step and publishes the controller into host-mapped memory, where the host
// reads it after this step's event, with no copy call.
static __global__ void finish_step_kernel(StepControl* control, StepControl* published) {
  finish_step(*control);
  *published = *control;
}

static __global__ void set_stop_kernel(StepControl* control, double t_stop, long step_limit) {
  control->t_stop = t_stop;
  control->step_limit = step_limit;
}

}  // namespace halocline::hip
