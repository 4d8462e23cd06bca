// The fused stage on Kokkos: one team per tile of kTileX x kTileY columns marching along z
// through a chunk of planes, each face flux made once and used by both its cells, only the
// stage's result written (no flux arrays). The shape of kernels/hip/fused.hpp, with what the
// HIP kernel keeps in a thread's registers (a column's z window and the flux of the face
// below its cell) in the team's scratch memory, so that one code runs with a team of one
// thread on the host (Serial, OpenMP: the team's loops run in turn) and a team per block on
// a GPU. The arithmetic is the split kernels' in the same order: the same bits.
#pragma once

#include "kernels/kokkos/policies.hpp"
#include "kernels/stencil.hpp"

namespace halocline::kokkos {

constexpr int kTileX = 32, kTileY = 8, kFusedChunkZ = 32;
constexpr int kColumns = kTileX * kTileY;
constexpr int kPitch = kTileX + 2 * kGhostLayers;                  // a scratch plane's row, with halo
constexpr int kPlane = kPitch * (kTileY + 2 * kGhostLayers);       // a scratch plane's cells
constexpr int kFacesX = (kTileX + 1) * kTileY, kFacesY = kTileX * (kTileY + 1);

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
  // frames), each column's z window (4 cells x rho, u normal, u t1, u t2, p of the z frame),
  // the fluxes of the faces below and above each column's cell (5 + 5), and the tile's x and
  // y face fluxes.
  static constexpr int kPlaneOffset = 0, kWindowOffset = 6 * kPlane, kBelowOffset = kWindowOffset + 20 * kColumns,
                       kAboveOffset = kBelowOffset + 5 * kColumns, kFxOffset = kAboveOffset + 5 * kColumns,
                       kFyOffset = kFxOffset + 5 * kFacesX, kScratchReals = kFyOffset + 5 * kFacesY;
  static std::size_t scratch_bytes() { return Scratch::shmem_size(kScratchReals); }

  KOKKOS_INLINE_FUNCTION void operator()(const Team& team) const {
    const Scratch s(team.team_scratch(0), kScratchReals);
    const int tile = team.league_rank();
    const int bx = tile % tiles_x, by = (tile / tiles_x) % tiles_y, bz = tile / (tiles_x * tiles_y);
    const int x0 = box.lo[0] + bx * kTileX, y0 = box.lo[1] + by * kTileY;
    const int nx = min_of(kTileX, box.hi[0] - x0), ny = min_of(kTileY, box.hi[1] - y0);
    const int k0 = box.lo[2] + bz * kFusedChunkZ, k1 = min_of(k0 + kFusedChunkZ, box.hi[2]);
    const bool z = st.active[2];
    if (z) {
      Kokkos::parallel_for(Kokkos::TeamThreadRange(team, nx * ny), [&](int col) { start_column(s, col, nx, x0, y0, k0); });
      team.team_barrier();
    }
    for (int k = k0; k < k1; ++k) plane_of(team, s, nx, ny, x0, y0, k);
  }

  KOKKOS_INLINE_FUNCTION static int min_of(int a, int b) { return a < b ? a : b; }
  KOKKOS_INLINE_FUNCTION static int slot(int cell_k) { return ((cell_k % 4) + 4) % 4; }  // in the z window

  KOKKOS_INLINE_FUNCTION Cons<Real> load_cell(std::size_t cell) const {
    Cons<Real> w;
    for (int v = 0; v < kNumVars; ++v) w.q[v] = in(v, cell);
    return w;
  }
  // The z window of column `col`: cell k's frame-z primitives at slot(k).
  KOKKOS_INLINE_FUNCTION void put_window(const Scratch& s, int col, int k, const Prim<Real>& q) const {
    Real* w = &s(kWindowOffset + 5 * (slot(k) * kColumns + col));
    w[0] = q.rho, w[1] = q.u[0], w[2] = q.u[1], w[3] = q.u[2], w[4] = q.p;
  }
  KOKKOS_INLINE_FUNCTION Prim<Real> window(const Scratch& s, int col, int k) const {
    const Real* w = &s(kWindowOffset + 5 * (slot(k) * kColumns + col));
    return Prim<Real>{w[0], {w[1], w[2], w[3]}, w[4]};
  }
  // The flux of the z face below cell k of column `col`, from cells k-2 .. k+1.
  KOKKOS_INLINE_FUNCTION Cons<Real> z_flux(const Scratch& s, int col, int k) const {
    return flux_of_prims(window(s, col, k - 2), window(s, col, k - 1), window(s, col, k), window(s, col, k + 1), gamma,
                         lim, solver);
  }
  KOKKOS_INLINE_FUNCTION void put_flux(const Scratch& s, int offset, int f, const Cons<Real>& w) const {
    for (int v = 0; v < kNumVars; ++v) s(offset + 5 * f + v) = w.q[v];
  }

  KOKKOS_INLINE_FUNCTION void start_column(const Scratch& s, int col, int nx, int x0, int y0, int k0) const {
    const std::size_t c = g.index(x0 + col % nx, y0 + col / nx, k0);
    for (int k = k0 - 2; k < k0 + 2; ++k)
      put_window(s, col, k, in_frame(cell_prims(load_cell(c + (k - k0) * g.stride[2]), gamma), 2));
    put_flux(s, kBelowOffset, col, z_flux(s, col, k0));
  }

  // The plane's primitives with their halo (not the corners, which no flux reads) into the
  // scratch plane, converted once.
  KOKKOS_INLINE_FUNCTION void put_plane(const Scratch& s, int nx, int ny, int x0, int y0, int k, int t) const {
    const int hx = g.ng[0], hy = g.ng[1], wide = nx + 2 * hx;
    const int a = t % wide - hx, b = t / wide - hy;
    if ((a < 0 || a >= nx) && (b < 0 || b >= ny)) return;
    const CellPrims<Real> p = cell_prims(load_cell(g.index(x0 + a, y0 + b, k)), gamma);
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
    const Cons<Real> w = flux_of_prims(frame<D>(s, at - 2 * step), frame<D>(s, at - step), frame<D>(s, at),
                                       frame<D>(s, at + step), gamma, lim, solver);
    Cons<Real> f;
    f.q[kRho] = w.q[0];
    for (int c = 0; c < 3; ++c) f.q[kMomX + rotated(D, c)] = w.q[1 + c];
    f.q[kEnergy] = w.q[4];
    return f;
  }

  KOKKOS_INLINE_FUNCTION void plane_of(const Team& team, const Scratch& s, int nx, int ny, int x0, int y0, int k) const {
    const int wide = nx + 2 * g.ng[0], high = ny + 2 * g.ng[1];
    Kokkos::parallel_for(Kokkos::TeamThreadRange(team, wide * high),
                         [&](int t) { put_plane(s, nx, ny, x0, y0, k, t); });
    if (st.active[2])  // the window moves up by one cell: cell k+2 in, then the face above k
      Kokkos::parallel_for(Kokkos::TeamThreadRange(team, nx * ny), [&](int col) {
        const std::size_t c = g.index(x0 + col % nx, y0 + col / nx, k + 2);
        put_window(s, col, k + 2, in_frame(cell_prims(load_cell(c), gamma), 2));
        put_flux(s, kAboveOffset, col, z_flux(s, col, k + 1));
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
    Kokkos::parallel_for(Kokkos::TeamThreadRange(team, nx * ny), [&](int col) { update_column(s, col, nx, x0, y0, k); });
    team.team_barrier();
  }

  // dt div F of the column's cell summed over x, y, z in that order (as update_cell does),
  // the stage applied, and the face above becomes the face below.
  KOKKOS_INLINE_FUNCTION void update_column(const Scratch& s, int col, int nx, int x0, int y0, int k) const {
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
      // The z fluxes are in the z frame (normal momentum first): back to x, y, z order.
      const Real a = Real(st.dt_over_dx[2]);
      for (int v = 0; v < kNumVars; ++v) {
        const int q = v == kRho || v == kEnergy ? v : 1 + (v - kMomX + 1) % 3;  // rotated(2, q - 1) == v - kMomX
        div[v] += a * (s(kAboveOffset + 5 * col + q) - s(kBelowOffset + 5 * col + q));
      }
      for (int q = 0; q < kNumVars; ++q) s(kBelowOffset + 5 * col + q) = s(kAboveOffset + 5 * col + q);
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
  const Stage stage{g,   box, in, u0, out, st, static_cast<Real>(ph.gamma), ph.limiter, ph.riemann, tiles_x,
                    tiles_y};
  const int team = kHostExecution ? 1 : kColumns;
  Kokkos::parallel_for("fused_stage",
                       Kokkos::TeamPolicy<Exec>(on.exec, tiles_x * tiles_y * tiles_z, team)
                           .set_scratch_size(0, Kokkos::PerTeam(Stage::scratch_bytes())),
                       stage);
}

}  // namespace halocline::kokkos
