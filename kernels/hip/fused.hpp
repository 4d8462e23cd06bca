// The fused stage: one kernel per SSP-RK2 stage that makes each face flux once, on chip,
// uses it for both cells it bounds, and writes only the stage's result (no flux arrays).
//
// A thread block owns a tile of kTileX x kTileY columns of cells and marches along z through
// a chunk of planes. Each plane of the stage's input, with two cells of halo in x and y, is
// read into shared memory and converted to primitive variables once (cell_prims); the x and
// y face fluxes of the tile go through shared memory to the cells on both sides. Along z each
// thread keeps its column's last four cells and the flux of the face below its cell in
// registers, so each z face is made once as well. The arithmetic is that of the split kernels
// (face_flux, update_cell in kernels/stencil.hpp) in the same order: the results are the
// same bit for bit (in the strict-FP build).
#pragma once

#include "kernels/hip/policies.hpp"
#include "kernels/stencil.hpp"

namespace halocline::hip {

constexpr int kTileX = 32, kTileY = 8;                        // threads per block: one column of cells each
constexpr int kFusedChunkZ = 32;                              // planes per block along z
constexpr int kPitch = kTileX + 2 * kGhostLayers;             // a shared plane's row, with halo
constexpr int kPlane = kPitch * (kTileY + 2 * kGhostLayers);  // a shared plane's cells
constexpr int kFaces = (kTileX + 1) * (kTileY + 1);           // enough for x or y faces

// Launch shape of the fused kernel over the cells of `box`.
inline dim3 fused_blocks(const Box& box) {
  return dim3((box.hi[0] - box.lo[0] + kTileX - 1) / kTileX, (box.hi[1] - box.lo[1] + kTileY - 1) / kTileY,
              (box.hi[2] - box.lo[2] + kFusedChunkZ - 1) / kFusedChunkZ);
}
inline dim3 fused_threads() { return dim3(kTileX, kTileY, 1); }

// The tile of plane k in shared memory: primitives in x, y, z order, the pressures of the x
// and y frames (p[2] is not needed from the plane: z fluxes come from the registers).
template <class Real>
struct SharedPlane {
  Real rho[kPlane], u[3][kPlane], p[2][kPlane];
  __device__ void put(int at, const CellPrims<Real>& s) {
    rho[at] = s.rho;
    for (int c = 0; c < 3; ++c) u[c][at] = s.u[c];
    p[0][at] = s.p[0];
    p[1][at] = s.p[1];
  }
  // The primitive state of frame D (0: x, 1: y) of the cell at `at`.
  template <int D>
  __device__ Prim<Real> frame(int at) const {
    Prim<Real> q;
    q.rho = rho[at];
    for (int c = 0; c < 3; ++c) q.u[c] = u[rotated(D, c)][at];
    q.p = p[D][at];
    return q;
  }
};

// Face fluxes of the tile along D (0: x, 1: y) from the shared plane, into `flux` (in x, y,
// z order): face f of row r at flux[v][r * (width + 1) + f] for D = 0, face f of column c at
// flux[v][f * width + c] for D = 1 (the low face of cell f; f = width is the last high face).
template <int D, class Real>
__device__ void tile_fluxes(const SharedPlane<Real>& plane, Real (*flux)[kFaces], int nx, int ny, Real gamma,
                            Limiter lim, RiemannSolver solver) {
  const int across = D == 0 ? nx + 1 : nx, along = D == 0 ? ny : ny + 1;
  const int step = D == 0 ? 1 : kPitch;  // between neighbours along D in the plane
  for (int f = threadIdx.y * kTileX + threadIdx.x; f < across * along; f += kTileX * kTileY) {
    const int a = f % across, b = f / across;  // D = 0: face a of row b; D = 1: column a, face b
    const int at = (b + kGhostLayers) * kPitch + a + kGhostLayers;
    const Cons<Real> w =
        from_frame(flux_of_prims(plane.template frame<D>(at - 2 * step), plane.template frame<D>(at - step),
                                 plane.template frame<D>(at), plane.template frame<D>(at + step), gamma, lim, solver),
                   D);
    for (int v = 0; v < kNumVars; ++v) flux[v][f] = w.q[v];
  }
}

// Stage `stage` over the cells of `box`: reads `in` (u0 in stage 1, u1 in stage 2) and u0,
// writes `out` (u1, or unew). Ghosts of `in` are filled. Does nothing when no step is
// planned, except that stage 2 then carries u0 over into `out` (see update_kernel).
template <class Real, class L>
__global__ void __launch_bounds__(kTileX* kTileY)
    fused_stage_kernel(Grid g, Box box, StateRef<Real, L> in, StateRef<Real, L> u0, StateRef<Real, L> out, Real gamma,
                       Limiter lim, RiemannSolver solver, int stage, const StepControl* control) {
  __shared__ SharedPlane<Real> plane;
  __shared__ Real flux[kNumVars][kFaces];
  const int x0 = box.lo[0] + blockIdx.x * kTileX, y0 = box.lo[1] + blockIdx.y * kTileY;
  const int nx = min(kTileX, box.hi[0] - x0), ny = min(kTileY, box.hi[1] - y0);
  const int k0 = box.lo[2] + blockIdx.z * kFusedChunkZ, k1 = min(k0 + kFusedChunkZ, box.hi[2]);
  const int tx = threadIdx.x, ty = threadIdx.y;
  const bool mine = tx < nx && ty < ny;  // this thread's column is in the box
  if (!step_planned(control)) {
    if (stage == 2 && !control->failed && mine)
      for (int k = k0; k < k1; ++k) carry_cell(u0, out, g.index(x0 + tx, y0 + ty, k));
    return;
  }
  const StageUpdate st = stage_update(stage, control->dt, g);
  const int hx = g.ng[0], hy = g.ng[1];
  const bool z = st.active[2];
  const std::size_t sz = g.stride[2];

  // The column's z window: frame-z primitives of cells k-2 .. k+1, and the flux of face k
  // (in x, y, z order).
  Prim<Real> window[4];
  Cons<Real> below;
  if (z && mine) {
    const std::size_t c = g.index(x0 + tx, y0 + ty, k0);
    for (int w = 0; w < 4; ++w) window[w] = in_frame(cell_prims(load_cell(in, c + (w - 2) * sz), gamma), 2);
    below = from_frame(flux_of_prims(window[0], window[1], window[2], window[3], gamma, lim, solver), 2);
  }

  for (int k = k0; k < k1; ++k) {
    __syncthreads();  // the last plane's readers are done
    // The plane with its halo (not its corners, which no flux reads), converted once.
    const int wide = nx + 2 * hx, high = ny + 2 * hy;
    for (int t = ty * kTileX + tx; t < wide * high; t += kTileX * kTileY) {
      const int a = t % wide - hx, b = t / wide - hy;
      if ((a < 0 || a >= nx) && (b < 0 || b >= ny)) continue;
      plane.put((b + kGhostLayers) * kPitch + a + kGhostLayers,
                cell_prims(load_cell(in, g.index(x0 + a, y0 + b, k)), gamma));
    }
    __syncthreads();
    Real div[kNumVars];
    for (int v = 0; v < kNumVars; ++v) div[v] = Real(0);
    if (st.active[0]) {
      tile_fluxes<0>(plane, flux, nx, ny, gamma, lim, solver);
      __syncthreads();
      const Real a = Real(st.dt_over_dx[0]);
      if (mine)
        for (int v = 0; v < kNumVars; ++v)
          div[v] += a * (flux[v][ty * (nx + 1) + tx + 1] - flux[v][ty * (nx + 1) + tx]);
      __syncthreads();
    }
    if (st.active[1]) {
      tile_fluxes<1>(plane, flux, nx, ny, gamma, lim, solver);
      __syncthreads();
      const Real a = Real(st.dt_over_dx[1]);
      if (mine)
        for (int v = 0; v < kNumVars; ++v) div[v] += a * (flux[v][(ty + 1) * nx + tx] - flux[v][ty * nx + tx]);
    }
    if (!mine) continue;
    const std::size_t c = g.index(x0 + tx, y0 + ty, k);
    if (z) {
      for (int w = 0; w < 3; ++w) window[w] = window[w + 1];
      window[3] = in_frame(cell_prims(load_cell(in, c + 2 * sz), gamma), 2);
      const Cons<Real> above =
          from_frame(flux_of_prims(window[0], window[1], window[2], window[3], gamma, lim, solver), 2);
      const Real a = Real(st.dt_over_dx[2]);
      for (int v = 0; v < kNumVars; ++v) div[v] += a * (above.q[v] - below.q[v]);
      below = above;
    }
    for (int v = 0; v < kNumVars; ++v) out(v, c) = stage_value(st, u0(v, c), stage == 1 ? Real(0) : in(v, c), div[v]);
  }
}

}  // namespace halocline::hip
