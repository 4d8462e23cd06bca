// The fused stage on Kokkos: one team per tile marching along z through a chunk of planes,
// each face flux made once and used by both its cells, only the stage's result written (no
// flux arrays). The shape of the HIP kernel's third form (docs/performance.md), not of its
// fourth (kernels/fused_tile.hpp), whose tile needs 106 KB of shared memory in fp64 and 53 KB
// in fp32: Kokkos 4.6 gives a CUDA team 40,936 bytes of level-0 scratch (measured on the
// H200), and this form 39 KB. A tile of kTileX x kTileY cell positions, of which the team
// updates the first (kTileX - 1) x (kTileY - 1); each position makes at most one x, one y and
// one z face per plane. The plane and the tile's x and y face fluxes live in the team's scratch memory; the
// flux of the z face below and above each position's cell in a ColumnState, which on a GPU
// (a team per block, a thread per position) is the thread's own, in registers, and on the
// host (a team of one thread, whose loops run in turn) an array of one per position. The
// arithmetic is the split kernels' in the same order: the same bits. Stage 2 also folds the
// signal rate of every cell it writes into max_rate (a team max, then an atomic max: exact in
// any order), so that the next time step needs no pass over the state.
#pragma once

#include <string>

#include "kernels/contract/errors.hpp"
#include "kernels/kokkos/policies.hpp"
#include "kernels/stencil.hpp"

namespace halocline::kokkos {

constexpr int kTileX = 32, kTileY = 8, kFusedChunkZ = 32;            // cell positions of a tile
constexpr int kFusedCellsX = kTileX - 1, kFusedCellsY = kTileY - 1;  // cells a team updates
constexpr int kPositions = kTileX * kTileY;
constexpr int kPitch = kFusedCellsX + 2 * kGhostLayers;             // a scratch plane's row, with halo
constexpr int kPlane = kPitch * (kFusedCellsY + 2 * kGhostLayers);  // a scratch plane's cells
// The z fluxes below and above a position's cell k, in x, y, z order.
template <class Real>
struct ColumnState {
  Cons<Real> below, above;
};
// How many a team keeps: one per thread on a GPU, one per position on the host.
constexpr int kColumnStates = kHostExecution ? kPositions : 1;

// Blocks per SM asked of the compiler on a GPU, as the HIP kernel's kFusedBlocksPerSM.
template <class Real>
constexpr unsigned kFusedTeamsPerSM = sizeof(Real) == 8 ? 3 : 4;

template <class Real, class L>
struct FusedStage {
  using Policy = Kokkos::TeamPolicy<Exec, Kokkos::LaunchBounds<kPositions, kFusedTeamsPerSM<Real>>>;
  using Team = typename Policy::member_type;
  using Scratch = Kokkos::View<Real*, Exec::scratch_memory_space, Kokkos::MemoryTraits<Kokkos::Unmanaged>>;
  using MaxRate = Kokkos::View<Real, Exec::memory_space>;

  Grid g;
  CellBox box;
  StateRef<Real, L> in, u0, out;  // in: u0 (stage 1) or u1 (stage 2); out: u1 or unew
  StageUpdate st;
  IdealGas<Real> gas;
  Limiter lim;
  RiemannSolver solver;
  int tiles_x, tiles_y;
  RateScale<Real> scale;
  MaxRate max_rate;  // stage 2: the largest signal rate written, folded in

  // The team's scratch, in Reals: the plane's primitives (rho, u x y z, p of the x and y
  // frames), then the tile's x and y face fluxes (5 per position each: the low face of the
  // position's cell). 39 KB in fp64: within the 48 KB a CUDA block gets without asking.
  KOKKOS_INLINE_FUNCTION static constexpr int flux_offset(int d) { return 6 * kPlane + d * kNumVars * kPositions; }
  static constexpr int kScratchReals = 6 * kPlane + 2 * kNumVars * kPositions;
  using Columns = ColumnState<Real>[kColumnStates];
  static std::size_t scratch_bytes() { return Scratch::shmem_size(kScratchReals); }

  // The tile's place: its first cell and how many cells it updates along x and y.
  struct Tile {
    int x0, y0, nx, ny;
  };

  KOKKOS_INLINE_FUNCTION void operator()(const Team& team) const {
    const Scratch s(team.team_scratch(0), kScratchReals);
    const int tile = team.league_rank();
    const int bx = tile % tiles_x, by = (tile / tiles_x) % tiles_y, bz = tile / (tiles_x * tiles_y);
    Tile t;
    t.x0 = box.lo[0] + bx * kFusedCellsX;
    t.y0 = box.lo[1] + by * kFusedCellsY;
    t.nx = min_of(kFusedCellsX, box.hi[0] - t.x0);
    t.ny = min_of(kFusedCellsY, box.hi[1] - t.y0);
    const int k0 = box.lo[2] + bz * kFusedChunkZ, k1 = min_of(k0 + kFusedChunkZ, box.hi[2]);
    Columns cols;
    Real most = 0;  // the largest signal rate this thread wrote (stage 2)
    if (st.active[2])
      for_positions(team, [&](int p) {
        if (updates(t, p)) cols[state_of(p)].below = z_flux(cell_of(t, p, k0));
      });
    for (int k = k0; k < k1; ++k) plane_of(team, s, cols, t, k, most);
    if (st.stage == 2) {
      team.team_reduce(Kokkos::Max<Real>(most));
      if (team.team_rank() == 0) Kokkos::atomic_fetch_max(&max_rate(), most);
    }
  }

  // f(p) for every position p of the tile: each by its own thread on a GPU (the team has a
  // thread per position), in turn on the host. Keeps a position's state with one thread.
  template <class F>
  KOKKOS_INLINE_FUNCTION static void for_positions(const Team& team, const F& f) {
    if (kHostExecution) {
      for (int p = 0; p < kPositions; ++p) f(p);
    } else {
      f(team.team_rank());
    }
  }
  KOKKOS_INLINE_FUNCTION static int state_of(int p) { return kHostExecution ? p : 0; }
  KOKKOS_INLINE_FUNCTION static int min_of(int a, int b) { return a < b ? a : b; }
  KOKKOS_INLINE_FUNCTION static bool updates(const Tile& t, int p) { return p % kTileX < t.nx && p / kTileX < t.ny; }
  KOKKOS_INLINE_FUNCTION std::size_t cell_of(const Tile& t, int p, int k) const {
    return g.index(t.x0 + p % kTileX, t.y0 + p / kTileX, k);
  }
  // Index in the scratch plane of the cell (a, b) of the tile (from -2 to its size + 1).
  KOKKOS_INLINE_FUNCTION static int plane_at(int a, int b) { return (b + kGhostLayers) * kPitch + a + kGhostLayers; }

  // The flux of the low z face of cell c, from cells c - 2 .. c + 1 along z read again and
  // converted (as the HIP kernel: cheaper than a window of four cells in registers).
  KOKKOS_INLINE_FUNCTION Cons<Real> z_flux(std::size_t c) const {
    Prim<Real> q[4];
    for (int w = 0; w < 4; ++w) q[w] = in_frame(cell_prims(load_cell(in, c + (w - 2) * g.stride[2]), gas), 2);
    return from_frame(flux_of_prims(q[0], q[1], q[2], q[3], gas, lim, solver), 2);
  }

  // Entry `at` of the scratch plane, if it is one of the tile's cells or their halo (not the
  // corners, which no flux reads): its primitives, converted once. The entries' positions
  // are divided by the compile-time pitch (a run-time width costs a GPU a dozen integer
  // instructions per division: docs/performance.md).
  KOKKOS_INLINE_FUNCTION void put_plane(const Scratch& s, const Tile& t, int k, int at) const {
    const int a = at % kPitch - kGhostLayers, b = at / kPitch - kGhostLayers;
    const bool in_x = a >= 0 && a < t.nx, in_y = b >= 0 && b < t.ny;
    if (a < -g.ng[0] || a >= t.nx + g.ng[0] || b < -g.ng[1] || b >= t.ny + g.ng[1] || !(in_x || in_y)) return;
    const CellPrims<Real> p = cell_prims(load_cell(in, g.index(t.x0 + a, t.y0 + b, k)), gas);
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
  // The flux of the low face along D (0: x, 1: y) of position p's cell, into the scratch.
  template <int D>
  KOKKOS_INLINE_FUNCTION void plane_flux(const Scratch& s, int p) const {
    constexpr int step = D == 0 ? 1 : kPitch;
    const int at = plane_at(p % kTileX, p / kTileX);
    const Cons<Real> w = from_frame(flux_of_prims(frame<D>(s, at - 2 * step), frame<D>(s, at - step), frame<D>(s, at),
                                                  frame<D>(s, at + step), gas, lim, solver),
                                    D);
    for (int v = 0; v < kNumVars; ++v) s(flux_offset(D) + v * kPositions + p) = w.q[v];
  }

  KOKKOS_INLINE_FUNCTION void plane_of(const Team& team, const Scratch& s, Columns& cols, const Tile& t, int k,
                                       Real& most) const {
    Kokkos::parallel_for(Kokkos::TeamThreadRange(team, kPlane), [&](int at) { put_plane(s, t, k, at); });
    team.team_barrier();
    // Each position's faces: the low x face for x = 0 .. nx, the low y face for y = 0 .. ny
    // (the last ones are the high faces of the tile's last cells), the z face above its cell.
    for_positions(team, [&](int p) {
      const int px = p % kTileX, py = p / kTileX;
      if (st.active[0] && py < t.ny && px <= t.nx) plane_flux<0>(s, p);
      if (st.active[1] && px < t.nx && py <= t.ny) plane_flux<1>(s, p);
      if (st.active[2] && updates(t, p)) cols[state_of(p)].above = z_flux(cell_of(t, p, k + 1));
    });
    team.team_barrier();
    for_positions(team, [&](int p) {
      if (updates(t, p)) update_cell_of(s, cols[state_of(p)], p, cell_of(t, p, k), most);
    });
  }

  // dt div F of position p's cell summed over x, y, z in that order (as update_cell does),
  // the stage applied, and the face above becomes the face below. Stage 2 keeps the largest
  // signal rate written in `most`.
  KOKKOS_INLINE_FUNCTION void update_cell_of(const Scratch& s, ColumnState<Real>& state, int p, std::size_t c,
                                             Real& most) const {
    // The cell's old values, all read before the first store (which may alias them; as the
    // HIP kernel).
    Real in0[kNumVars], in1[kNumVars];
    for (int v = 0; v < kNumVars; ++v) {
      in0[v] = u0(v, c);
      in1[v] = st.stage == 1 ? Real(0) : in(v, c);
    }
    Cons<Real> w;
    for (int v = 0; v < kNumVars; ++v) {
      const int fx = flux_offset(0) + v * kPositions + p, fy = flux_offset(1) + v * kPositions + p;
      Real div = Real(0);
      if (st.active[0]) div = add_flux_difference(div, st.dt_over_dx[0], s(fx + 1), s(fx));
      if (st.active[1]) div = add_flux_difference(div, st.dt_over_dx[1], s(fy + kTileX), s(fy));
      if (st.active[2]) div = add_flux_difference(div, st.dt_over_dx[2], state.above.q[v], state.below.q[v]);
      w.q[v] = stage_value(st, in0[v], in1[v], div);
      out(v, c) = w.q[v];
    }
    if (st.active[2]) state.below = state.above;
    if (st.stage == 2) {
      const Real rate = state_signal_rate(w, gas, scale);
      if (rate > most) most = rate;
    }
  }
};

// Stage `st.stage` over the cells of `box` in one pass (see FusedStage); stage 2 folds the
// signal rates of the cells it writes into max_rate.
template <class Real, class L>
void fused_stage(const Launch& on, const Grid& g, const CellBox& box, const StageUpdate& st, const Physics& ph,
                 const StateRef<Real, L>& in, const StateRef<Real, L>& u0, const StateRef<Real, L>& out,
                 const Kokkos::View<Real, Exec::memory_space>& max_rate) {
  if (box.empty()) return;
  using Stage = FusedStage<Real, L>;
  const int tiles_x = (box.hi[0] - box.lo[0] + kFusedCellsX - 1) / kFusedCellsX;
  const int tiles_y = (box.hi[1] - box.lo[1] + kFusedCellsY - 1) / kFusedCellsY;
  const int tiles_z = (box.hi[2] - box.lo[2] + kFusedChunkZ - 1) / kFusedChunkZ;
  const Stage stage{g,
                    box,
                    in,
                    u0,
                    out,
                    st,
                    IdealGas<Real>(static_cast<Real>(ph.gamma)),
                    ph.limiter,
                    ph.riemann,
                    tiles_x,
                    tiles_y,
                    rate_scale<Real>(g),
                    max_rate};
  const int team = kHostExecution ? 1 : kPositions;
  // A GPU's shared memory per block is a hard limit (the host's scratch is allocated memory,
  // whatever scratch_size_max says there).
  const std::size_t most = Stage::Policy::scratch_size_max(0);
  if (!kHostExecution && Stage::scratch_bytes() > most)
    throw ResourceError("--kernels fused: a team needs " + std::to_string(Stage::scratch_bytes()) +
                        " bytes of scratch memory; " + Exec::name() + " gives " + std::to_string(most));
  Kokkos::parallel_for("fused_stage",
                       typename Stage::Policy(on.exec, tiles_x * tiles_y * tiles_z, team)
                           .set_scratch_size(0, Kokkos::PerTeam(Stage::scratch_bytes())),
                       stage);
}

}  // namespace halocline::kokkos
