// The fused stage on Kokkos: one team per tile marching along z through a chunk of planes,
// each cell converted to primitive variables once (in all three frames), each cell's slopes
// made once per direction, each face flux made once, only the stage's result written (no flux
// arrays). The work on a tile is kernels/fused_tile.hpp's (FusedTileStage), shared with
// kernels/hip/fused.hpp. On the host one thread runs the team's threads in turn through the
// march of fused_tile.hpp (march_tile with TeamInTurn), each with its own column state; on a
// GPU each thread runs the same phases with a team_barrier between them (march_on_gpu), and
// its column's z state lives in its registers, or in fp64 on the tiles that say so in the
// team's scratch. The arithmetic is the split kernels' in the same order: the same bits.
//
// The tile is the largest of kFusedTiles whose FusedScratch (the plane, the slopes, the
// face fluxes and the columns' lookahead of two planes, all in the team's level-0 scratch) fits
// what Kokkos gives a team: on the host 28 x 8 (the HIP kernel's NVIDIA fp32 tile until it took 27 x 8); under CUDA,
// where Kokkos 4.6 gives a team 40,936 bytes, 24 x 8 in fp32 (37,456 bytes) and 16 x 6 in fp64
// (39,968 bytes, the columns' z states in registers). Stage 2 also folds the signal rate of every cell it writes into
// max_rate (a team max, then an atomic max: exact in any order), so that the next time step needs no pass over the
// state. Why this shape: docs/performance.md.
#pragma once

#include <string>
#include <type_traits>

#include "kernels/contract/errors.hpp"
#include "kernels/fused_tile.hpp"
#include "kernels/kokkos/policies.hpp"

namespace halocline::kokkos {

// The tiles this backend is compiled for, largest first, and the threads of a team on a GPU
// (the columns rounded up to whole groups of four warps). A stage runs on the first whose
// FusedScratch fits the team's level-0 scratch (fused_stage). The bytes a team asks for (its
// FusedScratch and 16 bytes more, to start it on a 16-byte boundary; in fp64 on a GPU 80 more a
// column where the tile keeps its columns' z states in the scratch, fp64_columns_in_scratch):
//   28 x 8: 86,768 in fp64, 43,392 in fp32 (the host's: its scratch is allocated memory);
//   24 x 8: 74,896 in fp64, 37,456 in fp32 (fp32 under CUDA: Kokkos 4.6 gives 40,936);
//   28 x 4: 48,656 in fp64, 24,336 in fp32;
//   16 x 6: 39,968 in fp64 (fp64 under CUDA), 19,992 in fp32;
//   16 x 4: 28,784 in fp64, 14,400 in fp32 (and 5,120 for the z states: 33,904).
// In fp32 under CUDA 24 x 8 (4 teams per SM) was 9% faster at 512^3 on the H200 than 28 x 4 (8
// teams per SM), and 12% at 256^3: about 2/3 of a halo cell loaded and converted per column and
// plane instead of 8/7, and 8 warps a team between barriers (docs/performance.md). 22 x 4
// (38,712 bytes, with the column states in registers) fits in fp64 under CUDA too and keeps three of the team's four
// warps busy in the column phases, where 16 x 4 leaves two idle; on the H200 it was 3% slower at 512^3 and 4% at 256^3,
// so it is not compiled. In fp64 under CUDA 16 x 6 with the z states in registers (96 columns:
// 2.08 filled cells a column and plane, against 16 x 4's 2.5) was 2.4% faster at 512^3 than 16 x 4
// with them in the scratch, with the lookahead read after the stores (1.2% at 256^3); 12 x 8 in
// registers was 4-6% slower, and 16 x 5 and 12 x 6 with the z states in the scratch (which still
// fit) 7.6-10% and 13-15% (tests/data/h200/fused/kokkos_fp64_tile_trial.md, the eleventh session).
struct FusedTileShape {
  int nx, ny, threads;
  bool fp64_columns_in_scratch;  // on a GPU: FusedStage::kColumnsInScratch
};
constexpr FusedTileShape kFusedTiles[] = {
    {28, 8, 256, true}, {24, 8, 256, true}, {28, 4, 128, true}, {16, 6, 128, false}, {16, 4, 128, true}};
constexpr int kFusedTileCount = sizeof(kFusedTiles) / sizeof(kFusedTiles[0]);
constexpr int kFusedChunkZ = 32;  // planes per team along z

// Teams per SM asked of the compiler on a GPU, which caps its registers per thread: 640 threads
// per SM in fp64 and 1,024 in fp32 (at most 102 and 64 registers), or fewer where no more teams
// fit the SM's shared memory anyway (228 KiB on the H200, sm_90; each team takes its scratch,
// Kokkos' team-reduction space of 8 bytes a thread and a little more, and the SM's 1 KiB per
// block). In fp32 24 x 8 fits 4 teams of 256 threads (64 registers, as the HIP kernel's fp32 tile).
// In fp64 16 x 4 with the column states in scratch (FusedStage) runs 5 teams, 8% faster at 512^3
// on the H200 than 4 teams with the states in registers (124 registers, no spill); 6 teams with
// them in registers (80 registers) were 4% slower, 4 with them in scratch 1.5% slower
// (docs/performance.md; measured with the z face above in the scratch too); 6 teams with the
// z face above in registers 7% slower (the eleventh session). fp64's 16 x 6 fits 5 teams by its
// scratch: 5 ran 2.1% faster at 512^3 than 4 (with the lookahead read first), although ptxas
// spills 348 bytes of stores at 5.
constexpr std::size_t kSharedMemoryPerSM = 228 * 1024;
template <class Real>
constexpr unsigned fused_teams_per_sm(int threads, std::size_t scratch_bytes) {
  const std::size_t by_registers = (sizeof(Real) == 8 ? 640 : 1024) / threads;
  const std::size_t by_scratch = kSharedMemoryPerSM / (scratch_bytes + 8 * threads + 2048);
  return static_cast<unsigned>(by_scratch < 1 ? 1 : by_scratch < by_registers ? by_scratch : by_registers);
}

// The stage on tiles of kFusedTiles[T].
template <class Real, class L, int T>
struct FusedStage {
  static constexpr FusedTileShape kShape = kFusedTiles[T];
  using Tile = FusedTile<kShape.nx, kShape.ny>;
  // On a GPU in fp64 each column's z state (ColumnZ) lives in the team's scratch after the
  // tile's where the tile says so (16 x 4 under CUDA; 28 x 4 on AMD, not measured there), not in
  // its thread's registers, which the faces phase then has for itself (as the HIP kernel's
  // kColumnZShared); 16 x 6, whose scratch under CUDA has no room for them, and fp32 keep it in
  // registers. The z face above the column's cell, made before the barrier that precedes its
  // update, stays in registers in both: with the z states in the scratch, that and the recon
  // and faces loops kept rolled (march_on_gpu's for_items) were 2% faster in fp64 at 512^3 on
  // the H200; each alone moved it less than 0.5% (docs/performance.md).
  static constexpr bool kColumnsInScratch = !kHostExecution && sizeof(Real) == 8 && kShape.fp64_columns_in_scratch;
  // The update reads the lookahead's cell with the stage's old values (FusedTileStage) on a GPU's
  // teams of 256 threads (fp32's 24 x 8 under CUDA, 1.3% faster there, as the HIP kernel's fp32 tile;
  // 28 x 8 where a team may have its scratch, not measured) and where the z states are in the
  // scratch (fp64 on 16 x 4, 2% faster at 512^3), and after its stores on the other teams of 128:
  // fp32 on 28 x 4 was 0.7% slower reading first, fp64 on 16 x 6 1.4% slower at 512^3
  // (docs/performance.md). The host takes the first form in fp64 and the second in fp32, so that
  // its tests check both forms' bits against the split kernels.
  static constexpr bool kLookaheadLoadsFirst =
      kHostExecution ? sizeof(Real) == 8 : kShape.threads == 256 || kColumnsInScratch;
  // The x and y faces in bodies of their own (FusedTileStage's FixedFrames) in fp32, as the HIP
  // kernel's on NVIDIA: under CUDA 0.6% faster on bench.toml at 512^3 and 3.3% on Sedov at
  // 256^3 (an H100; tests/data/h100/kokkos_fixed_frames_ab.md). fp64 keeps one body (HIP's
  // second copy of its longer flux code was 12% slower), and so does AMD, as the HIP kernel
  // there (not measured). The host takes it in fp32, so that its tests check both forms' bits.
#if defined(KOKKOS_ENABLE_CUDA)
  static constexpr bool kFixedFramesOnGpu = true;
#else
  static constexpr bool kFixedFramesOnGpu = false;
#endif
  static constexpr bool kFixedFrames = sizeof(Real) == 4 && (kHostExecution || kFixedFramesOnGpu);
  // The lists in 16-byte chunks (FusedTileStage's Chunked): the HIP kernel's fp32 form. Under
  // CUDA they made fp32 9-11% slower (an H100, with the faces in one body;
  // tests/data/h100/kokkos_chunks_ab.md), so only the host takes them, in fp32, so that its
  // tests check both forms' bits.
  static constexpr bool kChunked = kHostExecution && sizeof(Real) == 4;
  using Work = FusedTileStage<Real, L, Tile, kLookaheadLoadsFirst, kFixedFrames, kChunked>;
  using Scratch = typename Work::Scratch;
  static constexpr std::size_t kColumnBytes = kColumnsInScratch ? Tile::kColumns * sizeof(ColumnZ<Real>) : 0;
  // The team's scratch from a 16-byte boundary (QuadList's chunks): 16 bytes more than it holds.
  static constexpr std::size_t kScratchAlignment = 16;
  static constexpr unsigned kTeamsPerSM =
      fused_teams_per_sm<Real>(kShape.threads, sizeof(Scratch) + kColumnBytes + kScratchAlignment);
  using Policy = Kokkos::TeamPolicy<Exec, Kokkos::LaunchBounds<kShape.threads, kTeamsPerSM>>;
  using Team = typename Policy::member_type;
  using Reals = Kokkos::View<Real*, Exec::scratch_memory_space, Kokkos::MemoryTraits<Kokkos::Unmanaged>>;
  using MaxRate = Kokkos::View<Real, Exec::memory_space>;
  static_assert(Tile::kColumns <= kShape.threads, "a thread per column");
  static_assert(sizeof(Scratch) % sizeof(Real) == 0, "FusedScratch holds only Reals");

  // The team's threads as the march sees them (march_tile), and those Kokkos gives it: on the
  // host one, which runs the others in turn (TeamInTurn), so that the host hands each phase's
  // items out over the threads exactly as a GPU does, and CI checks that distribution's bits.
  static constexpr int kThreads = kShape.threads, kLaunchThreads = kHostExecution ? 1 : kThreads;
  static constexpr int kScratchReals = (sizeof(Scratch) + kColumnBytes) / sizeof(Real);
  static std::size_t scratch_bytes() { return kScratchReals * sizeof(Real) + kScratchAlignment; }
  // This shape in words (the run's report: config.fused_shape).
  static std::string name() {
    return describe_fused_shape(Tile::kNx, Tile::kNy, kThreads, kHostExecution ? 0 : static_cast<int>(kTeamsPerSM),
                                kHostExecution ? "team (run in turn by one host thread)" : "team",
                                kColumnsInScratch ? "the team's scratch"
                                : kHostExecution  ? "a local array"
                                                  : "registers",
                                kLookaheadLoadsFirst, kFixedFrames, kChunked);
  }

  Work work;  // the stage's inputs; each team sets the tile's place in its copy
  CellBox box;
  int tiles_x, tiles_y;
  MaxRate max_rate;  // stage 2: the largest signal rate written, folded in

  KOKKOS_INLINE_FUNCTION void operator()(const Team& team) const {
    const Reals reals(
        static_cast<Real*>(team.team_scratch(0).get_shmem_aligned(kScratchReals * sizeof(Real), kScratchAlignment)),
        kScratchReals);
    Scratch& s = *reinterpret_cast<Scratch*>(reals.data());
    const int tile = team.league_rank();
    const int bx = tile % tiles_x, by = (tile / tiles_x) % tiles_y, bz = tile / (tiles_x * tiles_y);
    Work w = work;
    w.x0 = box.lo[0] + bx * Tile::kNx;
    w.y0 = box.lo[1] + by * Tile::kNy;
    w.nx = min_of(Tile::kNx, box.hi[0] - w.x0);
    w.ny = min_of(Tile::kNy, box.hi[1] - w.y0);
    const int k0 = box.lo[2] + bz * kFusedChunkZ, k1 = min_of(k0 + kFusedChunkZ, box.hi[2]);
    Real most = 0;  // the largest signal rate written (stage 2): this thread's, or the team's on the host
    if constexpr (kHostExecution) {
      TeamInTurn<Real, kThreads> threads([&](int rank) { return w.owns(rank); });
      march_tile(w, s, threads, k0, k1, false);
      most = threads.most();
    } else {
      ColumnZ<Real> own;
      ColumnZ<Real>* column = &own;  // or this thread's column's z state in the scratch
      if (kColumnsInScratch)
        column = reinterpret_cast<ColumnZ<Real>*>(reals.data() + sizeof(Scratch) / sizeof(Real)) +
                 min_of(team.team_rank(), Tile::kColumns - 1);
      march_on_gpu(team, w, s, column, k0, k1, most);
    }
    if (w.st.stage == 2) {
      team.team_reduce(Kokkos::Max<Real>(most));
      if (team.team_rank() == 0) Kokkos::atomic_fetch_max(&max_rate(), most);
    }
  }

  // On a GPU, march_tile's phases and barriers for this thread, written out with this backend's
  // own loops: march_tile itself (run by a one-thread team type, as the HIP kernel runs it)
  // compiles under nvcc 13 to more spills in the tiles Kokkos runs on the H200 (ptxas: 456
  // bytes stored and 468 loaded in fp64's 16 x 6 against 292 and 292 here, 104 bytes loaded
  // against 84 in fp32's 24 x 8, also with start_phase's fill kept rolled), and on the HIP
  // kernel, with the same spills as its own loops, it ran fp64 0.7-0.9% slower on the H200
  // (tests/data/h200/fused/march_tile_trial.md): this form stays. The GPU suite checks its bits.
  KOKKOS_INLINE_FUNCTION void march_on_gpu(const Team& team, const Work& w, Scratch& s, ColumnZ<Real>* column, int k0,
                                           int k1, Real& most) const {
    const bool z = w.st.active[2];
    const int col = team.team_rank();
    Cons<Real> above;  // the z face above the column's cell
    if (z && w.owns(col)) w.column_start(s, col, k0, *column);
    for_items(team, Tile::kFill, [&](int i) { w.fill(s, k0, i); });
    for (int k = k0; k < k1; ++k) {
      team.team_barrier();
      for_items(team, Tile::kRecon, [&](int i) { w.recon(s, i); });
      team.team_barrier();
      for_items(team, Tile::kFaces, [&](int i) { w.face(s, i); });
      if (z && w.owns(col)) above = w.column_face_above(s, col, k, *column);
      team.team_barrier();
      if (w.owns(col)) w.column_update(s, col, k, k1, above, *column, most);
      if (k + 1 < k1) w.fill_next(s, k + 1, col, kThreads);
    }
  }

  // f(i) for the items of a phase's list that this thread makes: those of for_team_items
  // (counted from the last thread), in a loop kept rolled. With the z face above in registers
  // (kColumnsInScratch) 2% faster in fp64 at 512^3 on the H200; each change alone moved it
  // less than 0.5% (docs/performance.md).
  template <class F>
  KOKKOS_INLINE_FUNCTION static void for_items(const Team& team, int count, const F& f) {
#if defined(__CUDA_ARCH__) || defined(__HIP_DEVICE_COMPILE__)
#pragma unroll 1
#endif
    for (int i = kThreads - 1 - team.team_rank(); i < count; i += kThreads) f(i);
  }
  KOKKOS_INLINE_FUNCTION static int min_of(int a, int b) { return a < b ? a : b; }
};

// What a stage reads and writes, whatever its tile.
template <class Real, class L>
struct FusedStageArgs {
  Grid g;
  CellBox box;
  StageUpdate st;
  Physics ph;
  StateRef<Real, L> in, u0, out;  // in: u0 (stage 1) or u1 (stage 2); out: u1 or unew
  Kokkos::View<Real, Exec::memory_space> max_rate;
};

// f(tag) for the stage on tiles of kFusedTiles[T], or of the first later one, whose scratch
// fits the `most` bytes a GPU team may have (the host's scratch is allocated memory, whatever
// scratch_size_max says there: the first tile); tag is a null FusedStage<Real, L, T'>*, which
// names the chosen stage. None fits: one line, ResourceError (exit 2).
template <class Real, class L, int T = 0, class F>
auto with_fitting_stage(std::size_t most, const F& f) {
  using Stage = FusedStage<Real, L, T>;
  if (!kHostExecution && Stage::scratch_bytes() > most) {
    if constexpr (T + 1 < kFusedTileCount) {
      return with_fitting_stage<Real, L, T + 1>(most, f);
    } else {
      throw ResourceError("the fused kernels: a team needs " + std::to_string(Stage::scratch_bytes()) +
                          " bytes of scratch memory; " + Exec::name() + " gives " + std::to_string(most));
    }
  }
  return f(static_cast<Stage*>(nullptr));
}

// The level-0 scratch a team of the fused stage may have.
template <class Real, class L>
std::size_t fused_scratch_max() {
  return FusedStage<Real, L, 0>::Policy::scratch_size_max(0);
}

// Launches the stage on the tiles of Stage.
template <class Stage, class Real, class L>
void launch_stage(const Launch& on, const FusedStageArgs<Real, L>& a) {
  using Tile = typename Stage::Tile;
  const int tiles_x = (a.box.hi[0] - a.box.lo[0] + Tile::kNx - 1) / Tile::kNx;
  const int tiles_y = (a.box.hi[1] - a.box.lo[1] + Tile::kNy - 1) / Tile::kNy;
  const int tiles_z = (a.box.hi[2] - a.box.lo[2] + kFusedChunkZ - 1) / kFusedChunkZ;
  const typename Stage::Work work{a.g,
                                  a.in,
                                  a.u0,
                                  a.out,
                                  a.st,
                                  IdealGas<Real>(static_cast<Real>(a.ph.gamma)),
                                  a.ph.limiter,
                                  a.ph.riemann,
                                  rate_scale<Real>(a.g),
                                  0,
                                  0,
                                  0,
                                  0};
  const Stage stage{work, a.box, tiles_x, tiles_y, a.max_rate};
  Kokkos::parallel_for("fused_stage",
                       typename Stage::Policy(on.exec, tiles_x * tiles_y * tiles_z, Stage::kLaunchThreads)
                           .set_scratch_size(0, Kokkos::PerTeam(Stage::scratch_bytes())),
                       stage);
}

// Stage `st.stage` over the cells of `box` in one pass (see FusedStage); stage 2 folds the
// signal rates of the cells it writes into max_rate.
template <class Real, class L>
void fused_stage(const Launch& on, const Grid& g, const CellBox& box, const StageUpdate& st, const Physics& ph,
                 const StateRef<Real, L>& in, const StateRef<Real, L>& u0, const StateRef<Real, L>& out,
                 const Kokkos::View<Real, Exec::memory_space>& max_rate) {
  if (box.empty()) return;
  const FusedStageArgs<Real, L> args{g, box, st, ph, in, u0, out, max_rate};
  with_fitting_stage<Real, L>(fused_scratch_max<Real, L>(),
                              [&](auto* chosen) { launch_stage<std::remove_pointer_t<decltype(chosen)>>(on, args); });
}

// The shape the stage runs on, in words (the run's report: config.fused_shape).
template <class Real, class L>
std::string fused_shape_name() {
  return with_fitting_stage<Real, L>(fused_scratch_max<Real, L>(),
                                     [](auto* chosen) { return std::remove_pointer_t<decltype(chosen)>::name(); });
}

}  // namespace halocline::kokkos
