// The fused stage: one kernel per SSP-RK2 stage that makes each face flux once, on chip,
// uses it for both cells it bounds, and writes only the stage's result (no flux arrays).
//
// A thread block of kTileX x kTileY threads marches along z through a chunk of planes; each
// thread stands on one cell of the plane. The block updates the (kTileX - 1) x (kTileY - 1)
// cells of its tile: the last column and row of threads only make faces, so that every
// thread makes at most one x, one y and one z face per plane, all in one interval between
// two barriers (a tile whose faces outnumber its threads needs a second, mostly idle pass
// for the remainder, which is what limited the first form of this kernel: docs/performance.md).
//
// Each plane of the stage's input, with two cells of halo in x and y, is read into shared
// memory and converted to primitive variables once (cell_prims); x and y face fluxes go
// through shared memory to the cells on both sides. Along z each thread keeps its column's
// last four cells and the flux of the face below its cell in registers, so each z face is
// made once as well. The arithmetic is that of the split kernels (face_flux, update_cell in
// kernels/stencil.hpp) in the same order: the results are the same bit for bit (in the
// strict-FP build).
#pragma once

#include "kernels/hip/policies.hpp"
#include "kernels/hip/step_control.hpp"
#include "kernels/stencil.hpp"

namespace halocline::hip {

constexpr int kTileX = 32, kTileY = 8;                                          // threads per block, one per cell
constexpr int kFusedCellsX = kTileX - 1, kFusedCellsY = kTileY - 1;             // cells a block updates
constexpr int kFusedChunkZ = 32;                                                // planes per block along z
constexpr int kPitch = kFusedCellsX + 2 * kGhostLayers;                         // a shared plane's row, with halo
constexpr int kPlane = kPitch * (kFusedCellsY + 2 * kGhostLayers);              // a shared plane's cells
constexpr int kFillSlots = (kPlane + kTileX * kTileY - 1) / (kTileX * kTileY);  // of them per thread

// Blocks per SM the compiler is asked to fit, which caps its registers per thread (65536 /
// (256 x blocks) on NVIDIA: 85 for 3, 64 for 4). Measured on the H200 (docs/performance.md):
// in fp64, 3 blocks (80 registers and a few spilled bytes) beat 2 (114 registers, no
// spills) by 1.18 x and 4 (64 registers, 600 bytes spilled); in fp32 4 blocks are best.
// (On AMD the second bound is waves per execution unit; 3 or 4 there leaves 128 or more
// vector registers per thread.)
template <class Real>
constexpr int kFusedBlocksPerSM = sizeof(Real) == 8 ? 3 : 4;

// Launch shape of the fused kernel over the cells of `box`.
inline dim3 fused_blocks(const Box& box) {
  return dim3((box.hi[0] - box.lo[0] + kFusedCellsX - 1) / kFusedCellsX,
              (box.hi[1] - box.lo[1] + kFusedCellsY - 1) / kFusedCellsY,
              (box.hi[2] - box.lo[2] + kFusedChunkZ - 1) / kFusedChunkZ);
}
inline dim3 fused_threads() { return dim3(kTileX, kTileY, 1); }

// The tile of plane k in shared memory: primitives in x, y, z order, the pressures of the x
// and y frames (z fluxes come from the registers), and the tile's x and y face fluxes in x,
// y, z order (the low face of the cell under thread (tx, ty) at [v][ty][tx]).
template <class Real>
struct SharedPlane {
  Real rho[kPlane], u[3][kPlane], p[2][kPlane];
  Real flux[2][kNumVars][kTileY][kTileX];
  __device__ void put(int at, const CellPrims<Real>& s) {
    rho[at] = s.rho;
    for (int c = 0; c < 3; ++c) u[c][at] = s.u[c];
    p[0][at] = s.p[0];
    p[1][at] = s.p[1];
  }
  // The primitive state of frame d (0: x, 1: y) of the cell at `at`.
  __device__ Prim<Real> frame(int d, int at) const {
    Prim<Real> q;
    q.rho = rho[at];
    for (int c = 0; c < 3; ++c) q.u[c] = u[rotated(d, c)][at];
    q.p = p[d][at];
    return q;
  }
};

// Index in the shared plane of the cell (a, b) of the tile (from -2 to the tile's size + 1).
__device__ inline int plane_at(int a, int b) { return (b + kGhostLayers) * kPitch + a + kGhostLayers; }

// Stage `stage` over the cells of `box`: reads `in` (u0 in stage 1, u1 in stage 2) and u0,
// writes `out` (u1, or unew). Ghosts of `in` are filled. Does nothing when no step is
// planned, except that stage 2 then carries u0 over into `out` (see update_kernel). Stage 2
// also folds the signal rate of each cell it writes into *max_bits (block_max_into): the next
// step's time step then needs no pass over the state.
template <class Real, class L>
__global__ void __launch_bounds__(kTileX* kTileY, kFusedBlocksPerSM<Real>)
    fused_stage_kernel(Grid g, Box box, StateRef<Real, L> in, StateRef<Real, L> u0, StateRef<Real, L> out,
                       IdealGas<Real> gas, Limiter lim, RiemannSolver solver, int stage, const StepControl* control,
                       RateBits<Real>* max_bits) {
  __shared__ SharedPlane<Real> plane;
  const int x0 = box.lo[0] + blockIdx.x * kFusedCellsX, y0 = box.lo[1] + blockIdx.y * kFusedCellsY;
  const int nx = min(kFusedCellsX, box.hi[0] - x0), ny = min(kFusedCellsY, box.hi[1] - y0);
  const int k0 = box.lo[2] + blockIdx.z * kFusedChunkZ, k1 = min(k0 + kFusedChunkZ, box.hi[2]);
  const int tx = threadIdx.x, ty = threadIdx.y;
  const bool mine = tx < nx && ty < ny;  // this thread's cell is one the block updates
  const RateScale<Real> scale = rate_scale<Real>(g);
  Real most = 0;  // the largest signal rate this thread wrote (stage 2)
  if (!step_planned(control)) {
    if (stage == 2 && !control->failed) {
      if (mine)
        for (int k = k0; k < k1; ++k) {
          const std::size_t c = g.index(x0 + tx, y0 + ty, k);
          carry_cell(u0, out, c);
          const Real rate = cell_signal_rate(out, c, gas, scale);
          if (rate > most) most = rate;
        }
      block_max_into<Real, kTileX * kTileY>(max_bits, most);
    }
    return;
  }
  const StageUpdate st = stage_update(stage, control->dt, g);
  const int hx = g.ng[0], hy = g.ng[1];
  const bool z = st.active[2];
  const std::size_t sz = g.stride[2];
  // The flux through the low z face of cell c, from cells c - 2 .. c + 1 along z read again
  // (from cache) and converted: cheaper than keeping a window of four cells in registers,
  // which would halve the blocks an SM runs at once (docs/performance.md).
  const auto z_face = [&](std::size_t c) {
    Prim<Real> q[4];
    for (int w = 0; w < 4; ++w) q[w] = in_frame(cell_prims(load_cell(in, c + (w - 2) * sz), gas), 2);
    return from_frame(flux_of_prims(q[0], q[1], q[2], q[3], gas, lim, solver), 2);
  };
  // The faces this thread makes: the low x face of its cell for x = 0 .. nx, the low y face
  // for y = 0 .. ny (the last ones are the high faces of the tile's last cells).
  const bool face_x = st.active[0] && ty < ny && tx <= nx, face_y = st.active[1] && tx < nx && ty <= ny;

  // The cells of each plane this thread converts into shared memory (shared index t: the
  // tile with its halo, not its corners, which no flux reads), worked out once: the same in
  // every plane. -1 where a slot has none.
  int fill_at[kFillSlots];
  std::ptrdiff_t fill_offset[kFillSlots];  // from cell (x0, y0) of the plane
  for (int s = 0; s < kFillSlots; ++s) {
    const int t = ty * kTileX + tx + s * kTileX * kTileY;
    const int a = t % kPitch - kGhostLayers, b = t / kPitch - kGhostLayers;
    const bool in_x = a >= 0 && a < nx, in_y = b >= 0 && b < ny;
    const bool wanted = t < kPlane && a >= -hx && a < nx + hx && b >= -hy && b < ny + hy && (in_x || in_y);
    fill_at[s] = wanted ? t : -1;
    fill_offset[s] = a + b * static_cast<std::ptrdiff_t>(g.stride[1]);
  }

  // The flux of the z face below this thread's cell (in x, y, z order), carried up the
  // column: each z face is made once.
  Cons<Real> below;
  if (z && mine) below = z_face(g.index(x0 + tx, y0 + ty, k0));

  for (int k = k0; k < k1; ++k) {
    // The plane with its halo, converted once. The barrier at the end of the last plane's
    // faces guarantees nobody reads it any more.
    const std::size_t corner = g.index(x0, y0, k);
    for (int s = 0; s < kFillSlots; ++s)
      if (fill_at[s] >= 0) plane.put(fill_at[s], cell_prims(load_cell(in, corner + fill_offset[s]), gas));
    __syncthreads();
    // This thread's x and y faces (one copy of the flux code for both: the frame is read
    // from shared memory), then its z face.
#pragma unroll 1
    for (int d = 0; d < 2; ++d) {
      if (!(d == 0 ? face_x : face_y)) continue;
      const int at = plane_at(tx, ty), step = d == 0 ? 1 : kPitch;
      const Cons<Real> w = from_frame(flux_of_prims(plane.frame(d, at - 2 * step), plane.frame(d, at - step),
                                                    plane.frame(d, at), plane.frame(d, at + step), gas, lim, solver),
                                      d);
      for (int v = 0; v < kNumVars; ++v) plane.flux[d][v][ty][tx] = w.q[v];
    }
    const std::size_t c = g.index(x0 + tx, y0 + ty, k);
    Cons<Real> above;
    if (z && mine) above = z_face(c + sz);
    __syncthreads();
    if (!mine) continue;
    // The cell's old values, all read before the first store below (which may alias them, so
    // the compiler would otherwise wait for each load in turn). Read before the barrier, they
    // would pass its wait but spill in fp64 (ptxas: 540 bytes; 62.3 against 53.8 ms a step).
    Real in0[kNumVars], in1[kNumVars];
    for (int v = 0; v < kNumVars; ++v) {
      in0[v] = u0(v, c);
      in1[v] = stage == 1 ? Real(0) : in(v, c);
    }
    // dt times the flux divergence, summed over x, y, z in that order (as update_cell).
    Real div[kNumVars];
    for (int v = 0; v < kNumVars; ++v) {
      div[v] = Real(0);
      if (st.active[0])
        div[v] = add_flux_difference(div[v], st.dt_over_dx[0], plane.flux[0][v][ty][tx + 1], plane.flux[0][v][ty][tx]);
      if (st.active[1])
        div[v] = add_flux_difference(div[v], st.dt_over_dx[1], plane.flux[1][v][ty + 1][tx], plane.flux[1][v][ty][tx]);
      if (z) div[v] = add_flux_difference(div[v], st.dt_over_dx[2], above.q[v], below.q[v]);
    }
    if (z) below = above;
    Cons<Real> w;
    for (int v = 0; v < kNumVars; ++v) {
      w.q[v] = stage_value(st, in0[v], in1[v], div[v]);
      out(v, c) = w.q[v];
    }
    if (stage == 2) {
      const Real rate = state_signal_rate(w, gas, scale);
      if (rate > most) most = rate;
    }
  }
  if (stage == 2) block_max_into<Real, kTileX * kTileY>(max_bits, most);
}

}  // namespace halocline::hip
