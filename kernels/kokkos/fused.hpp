// The fused stage on Kokkos: one team per tile of kTileX x kTileY columns marching along z
// through a chunk of planes, each face flux made once and used by both its cells, only the
// stage's result written (no flux arrays). The shape of kernels/hip/fused.hpp: the plane and
// the tile's face fluxes in the team's scratch memory; each column's z window and the flux of
// the face below its cell in a ColumnState, which on a GPU (a team per block, a thread per
// column) is the thread's own, in registers, and on the host (a team of one thread, whose
// loops run in turn) an array of one per column. The arithmetic is the split kernels' in the
// same order: the same bits.
#pragma once

#include <string>

#include "kernels/contract/errors.hpp"
#include "kernels/kokkos/policies.hpp"
#include "kernels/stencil.hpp"

namespace halocline::kokkos {

constexpr int kTileX = 32, kTileY = 8, kFusedChunkZ = 32;
constexpr int kColumns = kTileX * kTileY;
constexpr int kPitch = kTileX + 2 * kGhostLayers;             // a scratch plane's row, with halo
constexpr int kPlane = kPitch * (kTileY + 2 * kGhostLayers);  // a scratch plane's cells
constexpr int kFacesX = (kTileX + 1) * kTileY, kFacesY = kTileX * (kTileY + 1);
// A column's state as the plane loop goes up: frame-z primitives of its cells k-2 .. k+1
// (cell k at slot(k)), and the z fluxes below and above its cell k.
template <class Real>
struct ColumnState {
  Prim<Real> window[4];
  Cons<Real> below, above;
};
// How many a team keeps: one per thread on a GPU, one per column on the host.
constexpr int kColumnStates = kHostExecution ? kColumns : 1;

template <class Real, class L>
struct FusedStage {
  using Team = typename Kokkos::TeamPolicy<Exec>::member_type;
  using Scratch = Kokkos::View<Real*, Exec::scratch_memory_space, Kokkos::MemoryTraits<Kokkos::Unmanaged>>;

  Grid g;
  CellBox box;
  StateRef<Real, L> in, u0, out;  // in: u0 (stage 1) or u1 (stage 2); out: u1 or unew
  StageUpdate st;
  Real gamma;
  Limiter lim;
  RiemannSolver solver;
  int tiles_x, tiles_y;

  // The team's scratch, in Reals: the plane's primitives (rho, u x y z, p of the x and y
  // frames), then the tile's x and y face fluxes (5 each). 42.8 KB in fp64: within the
  // 48 KB a CUDA block gets without asking.
  static constexpr int kFxOffset = 6 * kPlane, kFyOffset = kFxOffset + 5 * kFacesX,
                       kScratchReals = kFyOffset + 5 * kFacesY;
  using Columns = ColumnState<Real>[kColumnStates];
  static std::size_t scratch_bytes() { return Scratch::shmem_size(kScratchReals); }

  KOKKOS_INLINE_FUNCTION void operator()(const Team& team) const {
    const Scratch s(team.team_scratch(0), kScratchReals);
    const int tile = team.league_rank();
    const int bx = tile % tiles_x, by = (tile / tiles_x) % tiles_y, bz = tile / (tiles_x * tiles_y);
    const int x0 = box.lo[0] + bx * kTileX, y0 = box.lo[1] + by * kTileY;
    const int nx = min_of(kTileX, box.hi[0] - x0), ny = min_of(kTileY, box.hi[1] - y0);
    const int k0 = box.lo[2] + bz * kFusedChunkZ, k1 = min_of(k0 + kFusedChunkZ, box.hi[2]);
    Columns cols;
    if (st.active[2])
      for_columns(team, nx * ny, [&](int col) { start_column(cols[state_of(col)], col, nx, x0, y0, k0); });
    for (int k = k0; k < k1; ++k) plane_of(team, s, cols, nx, ny, x0, y0, k);
  }

  // f(col) for the columns 0 .. n-1 of the tile: each by its own thread on a GPU (the team
  // has a thread per column), in turn on the host. Keeps a column's state with one thread.
  template <class F>
  KOKKOS_INLINE_FUNCTION static void for_columns(const Team& team, int n, const F& f) {
    if (kHostExecution) {
      for (int col = 0; col < n; ++col) f(col);
    } else if (team.team_rank() < n) {
      f(team.team_rank());
    }
  }
  KOKKOS_INLINE_FUNCTION static int state_of(int col) { return kHostExecution ? col : 0; }

  KOKKOS_INLINE_FUNCTION static int min_of(int a, int b) { return a < b ? a : b; }
  KOKKOS_INLINE_FUNCTION static int slot(int cell_k) { return ((cell_k % 4) + 4) % 4; }  // in the z window

  // The flux of the z face below cell k of a column, from its cells k-2 .. k+1, in x, y, z order.
  KOKKOS_INLINE_FUNCTION Cons<Real> z_flux(const ColumnState<Real>& c, int k) const {
    return from_frame(flux_of_prims(c.window[slot(k - 2)], c.window[slot(k - 1)], c.window[slot(k)],
                                    c.window[slot(k + 1)], gamma, lim, solver),
                      2);
  }
  KOKKOS_INLINE_FUNCTION void put_flux(const Scratch& s, int offset, int f, const Cons<Real>& w) const {
    for (int v = 0; v < kNumVars; ++v) s(offset + 5 * f + v) = w.q[v];
  }

  KOKKOS_INLINE_FUNCTION void start_column(ColumnState<Real>& state, int col, int nx, int x0, int y0, int k0) const {
    const std::size_t c = g.index(x0 + col % nx, y0 + col / nx, k0);
    for (int k = k0 - 2; k < k0 + 2; ++k)
      state.window[slot(k)] = in_frame(cell_prims(load_cell(in, c + (k - k0) * g.stride[2]), gamma), 2);
    state.below = z_flux(state, k0);
  }

  // The plane's primitives with their halo (not the corners, which no flux reads) into the
  // scratch plane, converted once.
  KOKKOS_INLINE_FUNCTION void put_plane(const Scratch& s, int nx, int ny, int x0, int y0, int k, int t) const {
    const int hx = g.ng[0], hy = g.ng[1], wide = nx + 2 * hx;
    const int a = t % wide - hx, b = t / wide - hy;
    if ((a < 0 || a >= nx) && (b < 0 || b >= ny)) return;
    const CellPrims<Real> p = cell_prims(load_cell(in, g.index(x0 + a, y0 + b, k)), gamma);
    const int at = (b + kGhostLayers) * kPitch + a + kGhostLayers;
    s(at) = p.rho;
    for (int c = 0; c < 3; ++c) s((1 + c) * kPlane + at) = p.u[c];
    s(4 * kPlane + at) = p.p[0];
    s(5 * kPlane + at) = p.p[1];
  }
  template <int D>
  KOKKOS_INLINE_FUNCTION Prim<Real> frame(const Scratch& s, int at) const {
    Prim<Real> q;
    q.rho = s(at);
    for (int c = 0; c < 3; ++c) q.u[c] = s((1 + rotated(D, c)) * kPlane + at);
    q.p = s((4 + D) * kPlane + at);
    return q;
  }
  // The flux of the face below the plane's cell `at` along D (0: x, 1: y), in x, y, z order.
  template <int D>
  KOKKOS_INLINE_FUNCTION Cons<Real> plane_flux(const Scratch& s, int at) const {
    constexpr int step = D == 0 ? 1 : kPitch;
    return from_frame(flux_of_prims(frame<D>(s, at - 2 * step), frame<D>(s, at - step), frame<D>(s, at),
                                    frame<D>(s, at + step), gamma, lim, solver),
                      D);
  }

  KOKKOS_INLINE_FUNCTION void plane_of(const Team& team, const Scratch& s, Columns& cols, int nx, int ny, int x0,
                                       int y0, int k) const {
    const int wide = nx + 2 * g.ng[0], high = ny + 2 * g.ng[1];
    Kokkos::parallel_for(Kokkos::TeamThreadRange(team, wide * high),
                         [&](int t) { put_plane(s, nx, ny, x0, y0, k, t); });
    if (st.active[2])  // the window moves up by one cell: cell k+2 in, then the face above k
      for_columns(team, nx * ny, [&](int col) {
        ColumnState<Real>& state = cols[state_of(col)];
        const std::size_t c = g.index(x0 + col % nx, y0 + col / nx, k + 2);
        state.window[slot(k + 2)] = in_frame(cell_prims(load_cell(in, c), gamma), 2);
        state.above = z_flux(state, k + 1);
      });
    team.team_barrier();
    if (st.active[0])  // x face f of row r at r * (nx + 1) + f
      Kokkos::parallel_for(Kokkos::TeamThreadRange(team, (nx + 1) * ny), [&](int t) {
        const int f = t % (nx + 1), r = t / (nx + 1);
        put_flux(s, kFxOffset, t, plane_flux<0>(s, (r + kGhostLayers) * kPitch + f + kGhostLayers));
      });
    if (st.active[1])  // y face f of column c at f * nx + c
      Kokkos::parallel_for(Kokkos::TeamThreadRange(team, nx * (ny + 1)), [&](int t) {
        const int c = t % nx, f = t / nx;
        put_flux(s, kFyOffset, t, plane_flux<1>(s, (f + kGhostLayers) * kPitch + c + kGhostLayers));
      });
    team.team_barrier();
    for_columns(team, nx * ny, [&](int col) { update_column(s, cols[state_of(col)], col, nx, x0, y0, k); });
    team.team_barrier();
  }

  // dt div F of the column's cell summed over x, y, z in that order (as update_cell does),
  // the stage applied, and the face above becomes the face below.
  KOKKOS_INLINE_FUNCTION void update_column(const Scratch& s, ColumnState<Real>& state, int col, int nx, int x0, int y0,
                                            int k) const {
    const int tx = col % nx, ty = col / nx;
    Real div[kNumVars];
    for (int v = 0; v < kNumVars; ++v) div[v] = Real(0);
    if (st.active[0]) {
      const Real a = Real(st.dt_over_dx[0]);
      const int f = ty * (nx + 1) + tx;
      for (int v = 0; v < kNumVars; ++v) div[v] += a * (s(kFxOffset + 5 * (f + 1) + v) - s(kFxOffset + 5 * f + v));
    }
    if (st.active[1]) {
      const Real a = Real(st.dt_over_dx[1]);
      const int f = ty * nx + tx;
      for (int v = 0; v < kNumVars; ++v) div[v] += a * (s(kFyOffset + 5 * (f + nx) + v) - s(kFyOffset + 5 * f + v));
    }
    if (st.active[2]) {
      const Real a = Real(st.dt_over_dx[2]);
      for (int v = 0; v < kNumVars; ++v) div[v] += a * (state.above.q[v] - state.below.q[v]);
      state.below = state.above;
    }
    const std::size_t c = g.index(x0 + tx, y0 + ty, k);
    for (int v = 0; v < kNumVars; ++v)
      out(v, c) = stage_value(st, u0(v, c), st.stage == 1 ? Real(0) : in(v, c), div[v]);
  }
};

// Stage `st.stage` over the cells of `box` in one pass (see FusedStage).
template <class Real, class L>
void fused_stage(const Launch& on, const Grid& g, const CellBox& box, const StageUpdate& st, const Physics& ph,
                 const StateRef<Real, L>& in, const StateRef<Real, L>& u0, const StateRef<Real, L>& out) {
  if (box.empty()) return;
  using Stage = FusedStage<Real, L>;
  const int tiles_x = (box.hi[0] - box.lo[0] + kTileX - 1) / kTileX;
  const int tiles_y = (box.hi[1] - box.lo[1] + kTileY - 1) / kTileY;
  const int tiles_z = (box.hi[2] - box.lo[2] + kFusedChunkZ - 1) / kFusedChunkZ;
  const Stage stage{g, box, in, u0, out, st, static_cast<Real>(ph.gamma), ph.limiter, ph.riemann, tiles_x, tiles_y};
  const int team = kHostExecution ? 1 : kColumns;
  // A GPU's shared memory per block is a hard limit (the host's scratch is allocated memory,
  // whatever scratch_size_max says there).
  const std::size_t most = Kokkos::TeamPolicy<Exec>::scratch_size_max(0);
  if (!kHostExecution && Stage::scratch_bytes() > most)
    throw ResourceError("--kernels fused: a team needs " + std::to_string(Stage::scratch_bytes()) +
                        " bytes of scratch memory; " + Exec::name() + " gives " + std::to_string(most));
  Kokkos::parallel_for("fused_stage",
                       Kokkos::TeamPolicy<Exec>(on.exec, tiles_x * tiles_y * tiles_z, team)
                           .set_scratch_size(0, Kokkos::PerTeam(Stage::scratch_bytes())),
                       stage);
}

}  // namespace halocline::kokkos
