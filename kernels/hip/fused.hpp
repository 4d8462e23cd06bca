// The fused stage on HIP: one kernel per SSP-RK2 stage that converts each cell to primitive
// variables once, makes each cell's limited slopes once per direction, makes each face
// flux once, and writes only the stage's result (no flux arrays in device memory). The work
// on a tile is kernels/fused_tile.hpp's, shared with the Kokkos backend; here a block of
// FusedShape<Real>::kThreads threads hands its phases' items out and puts a barrier between phases. Why
// this shape, and what it measured: docs/performance.md.
#pragma once

#include <string>
#include <type_traits>

#include "kernels/fused_tile.hpp"
#include "kernels/hip/policies.hpp"
#include "kernels/hip/step_control.hpp"

namespace halocline::hip {

// The tile a block updates, the block's threads, the blocks per SM asked of the compiler
// (which caps its registers per thread at 65536 / (threads x blocks) on NVIDIA), and whether
// the columns keep their z state (ColumnZ) in shared memory between planes rather than in
// registers, per precision. On NVIDIA (the H200: 228 KiB of shared memory and 64 Ki registers
// per SM), each chosen by measurement among others built beside it (docs/performance.md):
//   fp64: 20 x 8 columns, 256 threads, 3 blocks, z state in shared memory: 74.0 KiB a block
//         (three fit an SM with 1 KiB each for the runtime), 80 registers. fp64 waits on its
//         dependent results, and a third block hides more of that than its spills cost; with
//         the z state (10 values a column) out of the registers the faces phase spills about
//         half as much, 8% faster at 512^3 than 24 x 8 with the z state in registers;
//   fp32: 27 x 8 columns, 256 threads, 4 blocks, 64 registers (16 bytes spilled, ptxas of nvcc 13.0
//         on 1b218ac), z state in
//         registers (2% faster than in shared memory): with the columns' lookahead 3.5% faster
//         than 5 blocks of 48 registers, which spilled (before the lookahead 5 blocks were 1%
//         faster). 27 rather than 28 (5% faster at 256^3 and 512^3): its slopes are 502 items,
//         two for each of the 256 threads (28 x 8's 520 left the last warp a third round while
//         the block waited at the barrier), and 19 tiles span 512 cells with one column to
//         spare (28's 19 tiles left 20 columns idle).
// The update reads its lookahead's cell with the stage's old values (kLookaheadLoadsFirst) in
// fp32, 2% faster at 512^3; in fp64 that spilled more and was 3% slower. The x and y faces have
// a body each, with the frame a constant (kFixedFrames), in fp32: 1.4-1.9% faster at 256^3 and
// 512^3; fp64's second copy of its longer flux code was 12% slower at 512^3. The slopes have a
// body for each frame too: 1% slower in fp32 on the H200 in an earlier form (the fourteenth
// session), 0.7% faster in fp32 at 512^3 in today's (an H100, the twenty-first session, where
// fp64, whose frame stays a run-time value, came out 0.4% faster too:
// tests/data/h100/recon_fixed_frames_ab.md). The next plane's halo goes one cell a thread
// where the threads with no column are too few for two cells each (kHaloOneCellEach, asked in both precisions; the rule
// of FusedTile::halo_threads then changes only fp32's spread): in fp32 140 cells on 140 threads, 3.3-4.1% faster
// (bench.toml 256^3, 512^3, Sedov) than two cells a thread on 70 (30 of which also update a column); fp64's 96 threads
// with no column keep its 112 cells (spread over 112 threads, 16 columns' threads taking one, it was 4.8-6.0% slower).
// fp32's shared-memory lists are in 16-byte chunks (kChunked: one 128-bit access for four values), 1.7-1.8%
// faster on an H100 at 256^3, 512^3 and on Sedov; fp64's in chunks of two were 6-7% slower, with its faces in
// bodies of their own as well 7-11% (tests/data/h100/chunked_lists_ab.md, the twenty-second session).
// On AMD 28 x 4 with 128 threads in both, z state in registers, whose shared memory fits
// 64 KiB of LDS in fp64.
template <class Real>
struct FusedShape {
#if defined(HALOCLINE_HIP_NVIDIA)
  using Tile = std::conditional_t<sizeof(Real) == 8, FusedTile<20, 8>, FusedTile<27, 8>>;
  static constexpr int kThreads = 256, kBlocksPerSM = sizeof(Real) == 8 ? 3 : 4;
  static constexpr bool kColumnZShared = sizeof(Real) == 8, kLookaheadLoadsFirst = sizeof(Real) == 4;
  static constexpr bool kFixedFrames = sizeof(Real) == 4, kHaloOneCellEach = true, kChunked = sizeof(Real) == 4;
#else
  using Tile = FusedTile<28, 4>;
  static constexpr int kThreads = 128, kBlocksPerSM = sizeof(Real) == 8 ? 2 : 4;
  static constexpr bool kColumnZShared = false, kLookaheadLoadsFirst = false, kFixedFrames = false,
                        kHaloOneCellEach = false, kChunked = false;
#endif
  using Scratch = FusedScratchOf<Real, Tile, kChunked>;
  // The block's dynamic shared memory: the tile's scratch, then the columns' z states if shared.
  static constexpr std::size_t kSharedBytes =
      sizeof(Scratch) + (kColumnZShared ? Tile::kColumns * sizeof(ColumnZ<Real>) : 0);
#if defined(HALOCLINE_HIP_NVIDIA)
  static_assert(kBlocksPerSM * (kSharedBytes + 1024) <= 228 * 1024,
                "the blocks per SM asked for do not fit an H200 SM's shared memory");
#else
  static_assert(kSharedBytes <= 65536, "the fused tile over 64 KiB of LDS");
#endif
  static_assert(sizeof(Scratch) % alignof(ColumnZ<Real>) == 0, "the z states after the scratch are aligned");
  static_assert(Tile::kColumns <= kThreads, "a thread per column");
  static_assert(Tile::kRecon >= kThreads, "block_max_into in the slopes' space");
};
constexpr int kFusedChunkZ = 32;  // planes per block along z

// The shape above in words (the run's report: config.fused_shape).
template <class Real>
inline std::string fused_shape_name() {
  using Shape = FusedShape<Real>;
#if defined(HALOCLINE_HIP_NVIDIA)
  constexpr int per_sm = Shape::kBlocksPerSM;
#else
  constexpr int per_sm = 0;  // hipcc reads the launch bound's second number as waves per execution unit
#endif
  return describe_fused_shape(Shape::Tile::kNx, Shape::Tile::kNy, Shape::kThreads, per_sm, "block",
                              Shape::kColumnZShared ? "shared memory" : "registers", Shape::kLookaheadLoadsFirst,
                              Shape::kFixedFrames, Shape::kChunked);
}

// Launch shape of the fused kernel over the cells of `box`, and the shared memory it needs.
template <class Real>
inline dim3 fused_blocks(const Box& box) {
  using Tile = typename FusedShape<Real>::Tile;
  return dim3((box.hi[0] - box.lo[0] + Tile::kNx - 1) / Tile::kNx, (box.hi[1] - box.lo[1] + Tile::kNy - 1) / Tile::kNy,
              (box.hi[2] - box.lo[2] + kFusedChunkZ - 1) / kFusedChunkZ);
}
template <class Real>
inline dim3 fused_threads() {
  return dim3(FusedShape<Real>::kThreads, 1, 1);
}
template <class Real>
constexpr std::size_t fused_shared_bytes() {
  return FusedShape<Real>::kSharedBytes;
}

// This thread as its block's team in march_tile: each phase runs for itself alone, and the
// barrier is the block's.
template <class Real, int Threads>
struct BlockThread {
  static constexpr int kThreads = Threads, kHere = 1;
  TeamThread<Real> thread;
  __device__ void barrier() const { __syncthreads(); }
  template <class F>
  __device__ void each(const F& f) {
    f(thread, 0);
  }
};

// Stage `stage` over the cells of `box`: reads `in` (u0 in stage 1, u1 in stage 2) and u0,
// writes `out` (u1, or unew). Ghosts of `in` are filled. Does nothing when no step is
// planned, except that stage 2 then carries u0 over into `out` (see update_kernel). Stage 2
// also folds the signal rate of each cell it writes into *max_bits (block_max_into): the next
// step's time step then needs no pass over the state. Needs fused_shared_bytes<Real>() of
// dynamic shared memory.
template <class Real, class L>
__global__ void __launch_bounds__(FusedShape<Real>::kThreads, FusedShape<Real>::kBlocksPerSM)
    fused_stage_kernel(Grid g, Box box, StateRef<Real, L> in, StateRef<Real, L> u0, StateRef<Real, L> out,
                       IdealGas<Real> gas, Limiter lim, RiemannSolver solver, int stage, const StepControl* control,
                       RateBits<Real>* max_bits) {
  using Tile = typename FusedShape<Real>::Tile;
  constexpr int kThreads = FusedShape<Real>::kThreads;
  extern __shared__ __attribute__((aligned(16))) unsigned char fused_shared_memory[];  // for QuadList's chunks
  auto& s = *reinterpret_cast<typename FusedShape<Real>::Scratch*>(fused_shared_memory);
  const int x0 = box.lo[0] + blockIdx.x * Tile::kNx, y0 = box.lo[1] + blockIdx.y * Tile::kNy;
  const int k0 = box.lo[2] + blockIdx.z * kFusedChunkZ, k1 = min(k0 + kFusedChunkZ, box.hi[2]);
  const int col = threadIdx.x;  // the column this thread owns, if the tile updates it
  using Shape = FusedShape<Real>;
  using Stage = FusedTileStage<Real, L, Tile, Shape::kLookaheadLoadsFirst, Shape::kFixedFrames, Shape::kChunked>;
  Stage tile{g,
             in,
             u0,
             out,
             {},
             gas,
             lim,
             solver,
             rate_scale<Real>(g),
             x0,
             y0,
             min(Tile::kNx, box.hi[0] - x0),
             min(Tile::kNy, box.hi[1] - y0)};
  const bool mine = tile.owns(col);
  if (!step_planned(control)) {
    if (stage == 2 && !control->failed) {
      Real most = 0;  // the largest signal rate this thread wrote
      if (mine)
        for (int k = k0; k < k1; ++k) {
          const std::size_t c = tile.cell(col, k);
          carry_cell(u0, out, c);
          const Real rate = cell_signal_rate(out, c, gas, tile.scale);
          if (rate > most) most = rate;
        }
      block_max_into<Real, kThreads>(max_bits, most, s.slope.p);
    }
    return;
  }
  tile.st = stage_update(stage, control->dt, g);
  // The column's z state: in registers, or (kColumnZShared) in the shared memory after the
  // scratch, where each use loads and stores it and the faces phase does not hold it.
  ColumnZ<Real> own;
  auto* shared_z = reinterpret_cast<ColumnZ<Real>*>(fused_shared_memory + sizeof(s));
  BlockThread<Real, kThreads> me{
      {col, mine, FusedShape<Real>::kColumnZShared ? &shared_z[min(col, Tile::kColumns - 1)] : &own, Real(0)}};
  march_tile(tile, s, me, k0, k1, FusedShape<Real>::kHaloOneCellEach);
  // The block's max in the slopes' space: no thread reads the slopes after the last faces.
  if (stage == 2) block_max_into<Real, kThreads>(max_bits, me.thread.most, s.slope.p);
}

}  // namespace halocline::hip
