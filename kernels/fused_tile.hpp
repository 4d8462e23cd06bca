// The fused stage's work on one tile and its march through the tile's planes, written once
// for every backend (kernels/hip/fused.hpp, kernels/kokkos/fused.hpp): a backend says how its
// threads run a phase and wait at a barrier (march_tile's team), and runs the march.
//
// A tile is Tile::kNx x Tile::kNy columns of cells; a block (a team) marches along z through
// a chunk of planes. Per plane, three phases, each reading only what the one before wrote:
//   recon:  the x slopes of the tile's cells and one more on each side in x, then the y ones
//           (limited_slopes: each slope made once; the split kernels make each twice, once
//           for each face it touches), kReconX + kReconY items;
//   faces:  the x and y face fluxes (kFaceX + kFaceY items), from the face states that the
//           two cells' slopes give (face_state, as muscl_cell makes them); and each
//           column reconstructs its next cell along z and makes the z face above its cell;
//   update: each column applies the stage to its cell, moves its cell of the next plane from
//           its lookahead into the filled plane, and converts the cell three planes up into
//           the lookahead; the team fills the next plane's halo (kHaloCells items).
// The filled plane is the plane with two cells of halo in x and y (a cross: no corners), each
// cell converted once to primitive variables (CellPrims: the pressure of each frame). Its
// tile part comes from the columns' lookaheads (the cells of the next two planes, converted
// when first loaded), so a plane loads and converts from memory only its halo; the first
// plane of a chunk, and every plane where z is inactive, is filled whole (kFill items).
// A column's z state (the flux below its cell, its cell's high z face state) is its own: one
// thread's registers on a GPU, or its slot of shared memory where the registers are too few
// (kernels/hip/fused.hpp), or its thread's slot of TeamInTurn on the host. The lookahead's
// slots, and the column's slot of the filled
// plane during the update, are the column's too: no barrier guards them.
//
// The arithmetic is the split kernels' (muscl_face is two muscl_cell halves, then
// riemann_flux; update_cell's sum in x, y, z order): the same bits in the strict-FP build.
#pragma once

#include <cstddef>
#include <string>
#include <type_traits>

#include "kernels/stencil.hpp"

namespace halocline {

// The items of a phase's list (count of them) that thread `rank` of a team of `threads` makes:
// its place counted from the last thread, so that a list longer than the team ends on the last
// warps, which own no column (or the fewest). A team of one thread makes them all, in order.
template <class F>
HC_INLINE void for_team_items(int rank, int threads, int count, const F& f) {
  for (int i = threads - 1 - rank; i < count; i += threads) f(i);
}

// The items of a list (count of them) that the last `spread` threads of a team make, counted
// from the last (for_team_items); the others make none. A team of one thread makes them all.
template <class F>
HC_INLINE void for_last_items(int rank, int threads, int spread, int count, const F& f) {
  const int first = threads - spread;
  if (rank >= first) for_team_items(rank - first, spread, count, f);
}

// A tile of Nx x Ny columns: what each phase's list holds.
template <int Nx, int Ny>
struct FusedTile {
  static constexpr int kNx = Nx, kNy = Ny, kHalo = kGhostLayers;
  static constexpr int kPitch = kNx + 2 * kHalo, kRows = kNy + 2 * kHalo;  // the filled plane
  static constexpr int kFill = kPitch * kRows;                             // its slots (corners unused)
  static constexpr int kHaloCells = 4 * (kNx + kNy);                       // its halo: 2 cells a side
  static constexpr int kReconX = (kNx + 2) * kNy, kReconY = kNx * (kNy + 2), kRecon = kReconX + kReconY;
  static constexpr int kFaceX = (kNx + 1) * kNy, kFaceY = kNx * (kNy + 1), kFaces = kFaceX + kFaceY;
  static constexpr int kColumns = kNx * kNy;
  // The threads that fill a plane's halo in a team of `threads`: those that own no column, or
  // more where that gives any of them more than two cells (the columns' own work in the update
  // phase is longer than two cells' loads and conversions). With `one_cell_each`, where those
  // with no column are too few for two cells each, one cell a thread over as many threads as
  // the halo has cells (a team with fewer threads than that, all of them): then no thread with a
  // column makes two, which the block would wait for.
  HC_HOST_DEVICE static constexpr int halo_threads(int threads, bool one_cell_each = false) {
    const int idle = threads - kColumns;
    if (one_cell_each && 2 * idle < kHaloCells) return threads < kHaloCells ? threads : kHaloCells;
    const int most = threads < (kHaloCells + 1) / 2 ? threads : (kHaloCells + 1) / 2;
    return idle > most ? idle : most;
  }
  // The filled plane's slot of cell (a, b) of the tile (a, b from -2), and of column col's cell.
  HC_HOST_DEVICE static constexpr int slot(int a, int b) { return (b + kHalo) * kPitch + a + kHalo; }
  HC_HOST_DEVICE static constexpr int own_slot(int col) { return slot(col % kNx, col / kNx); }
};

// How a backend runs the fused stage, in words, for the run's report (config.fused_shape): the
// tile's columns, the threads of a block (a team), the blocks per multiprocessor asked of the
// compiler (`per_multiprocessor`; 0 where that means nothing: the host, or AMD, where the
// launch bound counts waves), where the columns' states live between planes (`states_in`), and
// whether the update reads its lookahead's cell with the old values, whether the x and y
// faces have bodies of their own (FusedTileStage's FixedFrames), and whether the lists are in
// 16-byte chunks (its Chunked). Host code only.
inline std::string describe_fused_shape(int nx, int ny, int threads, int per_multiprocessor, const std::string& unit,
                                        const char* states_in, bool lookahead_loads_first, bool fixed_frames = false,
                                        bool chunked = false) {
  const auto count = [](int n, const std::string& what) {
    return std::to_string(n) + " " + what + (n == 1 ? "" : "s");
  };
  std::string s =
      std::to_string(nx) + " x " + std::to_string(ny) + " columns, " + count(threads, "thread") + " a " + unit;
  if (per_multiprocessor > 0) s += ", " + count(per_multiprocessor, unit) + " per multiprocessor";
  s += std::string(", column states in ") + states_in;
  if (lookahead_loads_first) s += ", lookahead read with the old values";
  if (fixed_frames) s += ", x and y faces in bodies of their own";
  if (chunked) s += ", lists in 16-byte chunks";
  return s;
}

// The frame a FusedTileStage body was given: an int, or a constant (std::integral_constant,
// whose own conversion is a host function to nvcc).
HC_INLINE constexpr int frame_of(int d) { return d; }
template <int D>
HC_INLINE constexpr int frame_of(std::integral_constant<int, D>) {
  return D;
}

// The first four values of each item of a list (a state's density and three velocities, a
// face flux's mass and momenta) in chunks of Per values, the chunks of one kind item after
// item (consecutive items, consecutive chunks: no two threads of a warp on one bank). Per = 1:
// an array for each value; Per = 16 / sizeof(Real): 16-byte chunks (a float's four in one, a
// double's in two), each one 128-bit shared-memory instruction on a GPU where separate arrays
// take an instruction a value. fp32's fused stage, bound by instruction issue, gained from
// chunks; fp64's, bound by latency, lost (docs/performance.md): a backend chooses by
// measurement (FusedTileStage's Chunked). `at` reads one value, for a frame known only at run
// time.
template <class Real, int N, int Per>
struct QuadList {
  static_assert(Per == 1 || Per * sizeof(Real) == 16, "an array a value, or 16-byte chunks");
  static constexpr int kPer = Per;  // values a chunk
  struct alignas(Per * sizeof(Real)) Chunk {
    Real v[kPer];
  };
  Chunk chunk[4 / kPer][N];
  HC_INLINE void put(int i, const Real (&x)[4]) {
    for (int j = 0; j < 4 / kPer; ++j) {
      Chunk c;
      for (int k = 0; k < kPer; ++k) c.v[k] = x[j * kPer + k];
      chunk[j][i] = c;
    }
  }
  HC_INLINE void get(int i, Real (&x)[4]) const {
    for (int j = 0; j < 4 / kPer; ++j) {
      const Chunk c = chunk[j][i];
      for (int k = 0; k < kPer; ++k) x[j * kPer + k] = c.v[k];
    }
  }
  HC_INLINE Real at(int v, int i) const { return chunk[v / kPer][i].v[v % kPer]; }
  HC_INLINE void set(int v, int i, Real x) { chunk[v / kPer][i].v[v % kPer] = x; }
};

// A list of primitive states: density and velocities in chunks (QuadList), the pressures apart.
template <class Real, int N, int Per>
struct PrimList {
  QuadList<Real, N, Per> head;  // rho, u[0], u[1], u[2]
  Real p[N];
  HC_INLINE void put(int i, const Prim<Real>& q) {
    head.put(i, {q.rho, q.u[0], q.u[1], q.u[2]});
    p[i] = q.p;
  }
  HC_INLINE Prim<Real> get(int i) const {
    Real x[4];
    head.get(i, x);
    return {x[0], {x[1], x[2], x[3]}, p[i]};
  }
};

// A list of face fluxes (in x, y, z order): mass and momenta in chunks, the energy apart (with
// chunks of one value, the specialization below).
template <class Real, int N, int Per>
struct FluxList {
  QuadList<Real, N, Per> head;
  Real energy[N];
  HC_INLINE void put(int i, const Cons<Real>& f) {
    head.put(i, {f.q[0], f.q[1], f.q[2], f.q[3]});
    energy[i] = f.q[4];
  }
  HC_INLINE void set(int v, int i, Real x) {
    if (v < 4)
      head.set(v, i, x);
    else
      energy[i] = x;
  }
  HC_INLINE Cons<Real> get(int i) const {
    Real x[4];
    head.get(i, x);
    return {{x[0], x[1], x[2], x[3], energy[i]}};
  }
  HC_INLINE Real value(int v, int i) const { return v < 4 ? head.at(v, i) : energy[i]; }
};
// An array for each value: a value's place is v * N + i, with no test of v.
template <class Real, int N>
struct FluxList<Real, N, 1> {
  Real q[kNumVars][N];
  HC_INLINE void put(int i, const Cons<Real>& f) {
    for (int v = 0; v < kNumVars; ++v) q[v][i] = f.q[v];
  }
  HC_INLINE void set(int v, int i, Real x) { q[v][i] = x; }
  HC_INLINE Cons<Real> get(int i) const {
    Cons<Real> f;
    for (int v = 0; v < kNumVars; ++v) f.q[v] = q[v][i];
    return f;
  }
  HC_INLINE Real value(int v, int i) const { return q[v][i]; }
};

// A list of cells' primitive states in all three frames (CellPrims): density and velocities
// (x, y, z order) in chunks, the pressure of each frame apart.
template <class Real, int N, int Per>
struct CellPrimsList {
  QuadList<Real, N, Per> head;  // rho, u[0], u[1], u[2]
  Real p[3][N];
  HC_INLINE void put(int i, const CellPrims<Real>& q) {
    head.put(i, {q.rho, q.u[0], q.u[1], q.u[2]});
    for (int d = 0; d < 3; ++d) p[d][i] = q.p[d];
  }
  HC_INLINE CellPrims<Real> get(int i) const {
    Real x[4];
    head.get(i, x);
    return {x[0], {x[1], x[2], x[3]}, {p[0][i], p[1][i], p[2][i]}};
  }
  // The primitive state of item i in frame d (in_frame(get(i), d), loading only that frame's
  // pressure): with d a constant, the chunks whole; with d known at run time, value by value
  // (relabelling the chunks' values by a run-time d would index registers).
  template <int D>
  HC_INLINE Prim<Real> frame(std::integral_constant<int, D>, int i) const {
    Real x[4];
    head.get(i, x);
    Prim<Real> q;
    q.rho = x[0];
    for (int c = 0; c < 3; ++c) q.u[c] = x[1 + rotated(D, c)];
    q.p = p[D][i];
    return q;
  }
  HC_INLINE Prim<Real> frame(int d, int i) const {
    Prim<Real> q;
    q.rho = head.at(0, i);
    for (int c = 0; c < 3; ++c) q.u[c] = head.at(1 + rotated(d, c), i);
    q.p = p[d][i];
    return q;
  }
};

// What a tile keeps in a block's shared memory (a team's scratch), its lists in chunks of Per
// values (QuadList).
template <class Real, class Tile, int Per = 1>
struct FusedScratch {
  static constexpr int kPer = Per;
  // The filled plane, cell (a, b) of the tile at Tile::slot(a, b).
  CellPrimsList<Real, Tile::kFill, Per> plane;
  // The x slopes of cell (a, b), a = -1 .. kNx, at slot b * (kNx + 2) + a + 1; then the y
  // ones, b = -1 .. kNy, at kReconX + (b + 1) * kNx + a. Slopes, not the two face states
  // they give: half the space (the faces make the states again, the same bits).
  PrimList<Real, Tile::kRecon, Per> slope;
  // The flux through the low x face of cell (a, b), a = 0 .. kNx, at slot b * (kNx + 1) + a;
  // then the low y faces, b = 0 .. kNy, at kFaceX + b * kNx + a (in x, y, z order).
  FluxList<Real, Tile::kFaces, Per> flux;
  // Each column's lookahead: while the filled plane is plane k, its cells of planes k + 1 and
  // k + 2, in ahead[(k + 1) % 2] and ahead[k % 2].
  CellPrimsList<Real, Tile::kColumns, Per> ahead[2];
};

// The scratch of a stage whose lists are in 16-byte chunks (Chunked) or an array a value.
template <class Real, class Tile, bool Chunked>
using FusedScratchOf = FusedScratch<Real, Tile, Chunked ? 16 / static_cast<int>(sizeof(Real)) : 1>;

// A column's own z state across planes: the flux through the low z face of its cell (in x, y,
// z order) and the high z face state of its cell.
template <class Real>
struct ColumnZ {
  Cons<Real> below;
  Prim<Real> high;
};

// One tile of one stage: the stage's inputs and where the tile lies. LookaheadLoadsFirst: the
// update reads the cell its lookahead takes with the stage's old values, before its stores,
// rather than after them (one wait on memory instead of two, for more registers held across the
// stage's arithmetic). FixedFrames: the x and y faces, and the x and y slopes, each have their
// own body, whose frame is a constant (fixed offsets for the frame's loads and the flux's
// stores, for a second copy of the code), rather than one body for both with the frame known
// at run time. Each backend
// chooses both per precision by measurement; the arithmetic and its bits are the same.
template <class Real, class L, class Tile, bool LookaheadLoadsFirst = false, bool FixedFrames = false,
          bool Chunked = false>
struct FusedTileStage {
  using Scratch = FusedScratchOf<Real, Tile, Chunked>;
  using Face = Cons<Real>;  // a face's flux
  static constexpr int kColumns = Tile::kColumns;
  Grid g;
  StateRef<Real, L> in, u0, out;  // in: u0 (stage 1) or u1 (stage 2); out: u1 or unew
  StageUpdate st;
  IdealGas<Real> gas;
  Limiter lim;
  RiemannSolver solver;
  RateScale<Real> scale;
  int x0, y0, nx, ny;  // the tile's first cell, and the cells it updates along x and y

  // Column `col` (a = col % kNx, b = col / kNx) is one of the cells the tile updates.
  HC_INLINE bool owns(int col) const { return col < Tile::kColumns && col % Tile::kNx < nx && col / Tile::kNx < ny; }
  // A cell's index: in 32 bits in fp64 device code (Grid::index32). Every device index in 32 bits
  // made fp64 fused 2.1-2.4% faster and fp32 0.9-1.7% slower on an H100; this form, fp64's
  // alone, 2.2% faster in fp64 and fp32 as before (tests/data/h100/index32_ab.md).
  HC_INLINE std::size_t index(int i, int j, int k) const {
#if defined(__CUDA_ARCH__) || defined(__HIP_DEVICE_COMPILE__)
    if constexpr (sizeof(Real) == 8) return g.index32(i, j, k);
#endif
    return g.index(i, j, k);
  }
  HC_INLINE std::size_t cell(int col, int k) const { return index(x0 + col % Tile::kNx, y0 + col / Tile::kNx, k); }
  HC_INLINE CellPrims<Real> converted(std::size_t c) const { return cell_prims(load_cell(in, c), gas); }
  HC_INLINE CellPrims<Real> prims(int col, int k) const { return converted(cell(col, k)); }

  // Cell (a, b) of the plane: is it one the x or y stencils read (the tile's cells and their
  // halo along x and y, as far as the grid has ghost layers)?
  HC_INLINE bool read_by_stencils(int a, int b) const {
    const bool in_x = a >= 0 && a < nx, in_y = b >= 0 && b < ny;
    return (in_y && a >= -g.ng[0] && a < nx + g.ng[0]) || (in_x && b >= -g.ng[1] && b < ny + g.ng[1]);
  }
  HC_INLINE void fill_cell(Scratch& s, int k, int a, int b) const {
    s.plane.put(Tile::slot(a, b), converted(index(x0 + a, y0 + b, k)));
  }

  // Fill item i: slot i of plane k, if the x or y stencils read it.
  HC_INLINE void fill(Scratch& s, int k, int i) const {
    const int a = i % Tile::kPitch - Tile::kHalo, b = i / Tile::kPitch - Tile::kHalo;
    if (read_by_stencils(a, b)) fill_cell(s, k, a, b);
  }

  // Halo item i of plane k: the two cells on each side of a row, kNy rows (b = i / 4), then
  // the two rows below and above the tile (b = -2, -1, ny, ny + 1), a whole row of kNx cells
  // each (consecutive items, consecutive cells).
  HC_INLINE void fill_halo(Scratch& s, int k, int i) const {
    const bool along_x = i < 4 * Tile::kNy;
    const int j = along_x ? i : i - 4 * Tile::kNy;
    const int side = along_x ? j % 4 : j / Tile::kNx;  // 0, 1: below the tile; 2, 3: above it
    const int edge = side < 2 ? side - 2 : (along_x ? nx : ny) + side - 2;
    const int a = along_x ? edge : j % Tile::kNx, b = along_x ? j / 4 : edge;
    if (read_by_stencils(a, b)) fill_cell(s, k, a, b);
  }

  // The fill items of plane k that thread `rank` of a team of `threads` makes: with z active
  // only the halo (the columns bring the rest from their lookaheads), on the last threads
  // (halo_threads, with the backend's `one_cell_each`); otherwise the whole plane over the team
  // (for_team_items).
  HC_INLINE void fill_next(Scratch& s, int k, int rank, int threads, bool one_cell_each = false) const {
    if (st.active[2])
      for_last_items(rank, threads, Tile::halo_threads(threads, one_cell_each), Tile::kHaloCells,
                     [&](int i) { fill_halo(s, k, i); });
    else
      for_team_items(rank, threads, Tile::kFill, [&](int i) { fill(s, k, i); });
  }

  // f(d) for the x (along_x) or y direction of a face: d a constant with FixedFrames (a body
  // for each; frame_of gives its int), an int otherwise (one body for both).
  template <class F>
  HC_INLINE void along(bool along_x, const F& f) const {
    if constexpr (FixedFrames) {
      if (along_x)
        f(std::integral_constant<int, 0>{});
      else
        f(std::integral_constant<int, 1>{});
    } else {
      f(along_x ? 0 : 1);
    }
  }

  // Recon item i: the slopes of cell a = -1 .. nx along x, then of b = -1 .. ny along y (with
  // FixedFrames a body for each, whose frame's loads have fixed offsets, as the faces').
  HC_INLINE void recon(Scratch& s, int i) const {
    along(i < Tile::kReconX, [&](auto direction) HC_HOT_LAMBDA {
      const int d = frame_of(direction);  // a constant with FixedFrames
      const int j = d == 0 ? i : i - Tile::kReconX;
      const int a = d == 0 ? j % (Tile::kNx + 2) - 1 : j % Tile::kNx;
      const int b = d == 0 ? j / (Tile::kNx + 2) : j / Tile::kNx - 1;
      if (!(d == 0 ? st.active[0] && b < ny && a <= nx : st.active[1] && a < nx && b <= ny)) return;
      const int at = Tile::slot(a, b), step = d == 0 ? 1 : Tile::kPitch;
      s.slope.put(i, limited_slopes(s.plane.frame(direction, at - step), s.plane.frame(direction, at),
                                    s.plane.frame(direction, at + step), lim));
    });
  }

  // Face item i: the low x face of cell a = 0 .. nx (the last, the high face of the tile's
  // last cell), then the low y face of b = 0 .. ny: from the high state of the cell below the
  // face and the low state of the cell above it. (HC_HOT_LAMBDA: a host compiler keeps the body
  // in the march, base/portability.hpp.)
  HC_INLINE void face(Scratch& s, int i) const {
    along(i < Tile::kFaceX, [&](auto direction) HC_HOT_LAMBDA {
      const int d = frame_of(direction);  // a constant with FixedFrames
      const int j = d == 0 ? i : i - Tile::kFaceX;
      const int a = d == 0 ? j % (Tile::kNx + 1) : j % Tile::kNx, b = d == 0 ? j / (Tile::kNx + 1) : j / Tile::kNx;
      if (!(d == 0 ? st.active[0] && b < ny && a <= nx : st.active[1] && a < nx && b <= ny)) return;
      const int below = d == 0 ? b * (Tile::kNx + 2) + a : Tile::kReconX + b * Tile::kNx + a;
      const int above = below + (d == 0 ? 1 : Tile::kNx);
      const int at = Tile::slot(a, b);  // the cell above
      const Prim<Real> left =
          face_state(s.plane.frame(direction, at - (d == 0 ? 1 : Tile::kPitch)), s.slope.get(below), Real(1));
      const Prim<Real> right = face_state(s.plane.frame(direction, at), s.slope.get(above), Real(-1));
      const Cons<Real> flux = riemann_flux(left, right, gas, solver);
      // To the list in x, y, z order: with a run-time frame value by value (a local Cons
      // relabelled by it would index registers), with a constant one in chunks.
      if constexpr (std::is_same_v<decltype(direction), int>)
        put_in_xyz_order(flux, d, [&](int v, Real x) { s.flux.set(v, i, x); });
      else
        s.flux.put(i, from_frame(flux, d));
    });
  }

  // Before plane k0 (z active): the column's z state at k0, and its lookahead (planes k0 + 1
  // and k0 + 2). (Plane k0's cell is loaded here too: other threads fill the plane.)
  HC_INLINE void column_start(Scratch& s, int col, int k0, ColumnZ<Real>& z) const {
    const CellPrims<Real> next = prims(col, k0 + 1), after = prims(col, k0 + 2);
    const Prim<Real> qm2 = in_frame(prims(col, k0 - 2), 2), qm1 = in_frame(prims(col, k0 - 1), 2),
                     q0 = in_frame(prims(col, k0), 2);
    const FaceStates<Real> here = muscl_cell(qm1, q0, in_frame(next, 2), lim);
    z.below = from_frame(riemann_flux(muscl_cell(qm2, qm1, q0, lim).high, here.low, gas, solver), 2);
    z.high = here.high;
    s.ahead[(k0 + 1) % 2].put(col, next);
    s.ahead[k0 % 2].put(col, after);
  }

  // The flux through the z face above the column's cell k (in x, y, z order): the cell above
  // reconstructed from the filled plane's cell and the lookahead (planes k .. k + 2), its low
  // state against this cell's high.
  HC_INLINE Cons<Real> column_face_above(const Scratch& s, int col, int k, ColumnZ<Real>& z) const {
    const std::integral_constant<int, 2> z_frame;
    const FaceStates<Real> next =
        muscl_cell(s.plane.frame(z_frame, Tile::own_slot(col)), s.ahead[(k + 1) % 2].frame(z_frame, col),
                   s.ahead[k % 2].frame(z_frame, col), lim);
    const Cons<Real> above = from_frame(riemann_flux(z.high, next.low, gas, solver), 2);
    z.high = next.high;
    return above;
  }

  // The stage applied to the column's cell k: dt div F summed over x, y, z in that order (as
  // update_cell), with `above` the z face made for it; the face above becomes the one below.
  // Stage 2 keeps the largest signal rate written in `most`. Then (k + 1 < k1) the column's
  // cell of plane k + 1 moves from the lookahead into the filled plane, and the cell three
  // planes up takes its place in the lookahead.
  HC_INLINE void column_update(Scratch& s, int col, int k, int k1, const Cons<Real>& above, ColumnZ<Real>& z,
                               Real& most) const {
    const std::size_t c = cell(col, k);
    const bool look = st.active[2] && k + 1 < k1;  // the lookahead takes the cell three planes up
    // The cell's old values (and with LookaheadLoadsFirst the cell the lookahead takes), all
    // read before the first store below (which may alias them, so the compiler would otherwise
    // wait for each load in turn).
    Real in0[kNumVars], in1[kNumVars];
    for (int v = 0; v < kNumVars; ++v) {
      in0[v] = u0(v, c);
      in1[v] = st.stage == 1 ? Real(0) : in(v, c);
    }
    Cons<Real> up;
    if (LookaheadLoadsFirst && look) up = load_cell(in, cell(col, k + 3));
    const int a = col % Tile::kNx, b = col / Tile::kNx;
    const int fx = b * (Tile::kNx + 1) + a, fy = Tile::kFaceX + b * Tile::kNx + a;
    // The cell's x and y faces' fluxes: each face's whole where the list is in chunks, else
    // value by value as the sum takes them (fewer registers held: fp64 lost 6-7% otherwise).
    Cons<Real> x_low{}, x_high{}, y_low{}, y_high{};
    if constexpr (Chunked) {
      if (st.active[0]) x_low = s.flux.get(fx), x_high = s.flux.get(fx + 1);
      if (st.active[1]) y_low = s.flux.get(fy), y_high = s.flux.get(fy + Tile::kNx);
    }
    const auto flux = [&](const Cons<Real>& whole, int v, int i) { return Chunked ? whole.q[v] : s.flux.value(v, i); };
    Cons<Real> w;
    for (int v = 0; v < kNumVars; ++v) {
      Real div = Real(0);
      if (st.active[0]) div = add_flux_difference(div, st.dt_over_dx[0], flux(x_high, v, fx + 1), flux(x_low, v, fx));
      if (st.active[1])
        div = add_flux_difference(div, st.dt_over_dx[1], flux(y_high, v, fy + Tile::kNx), flux(y_low, v, fy));
      if (st.active[2]) div = add_flux_difference(div, st.dt_over_dx[2], above.q[v], z.below.q[v]);
      w.q[v] = stage_value(st, in0[v], in1[v], div);
      out(v, c) = w.q[v];
    }
    if (st.stage == 2) {
      const Real rate = state_signal_rate(w, gas, scale);
      if (rate > most) most = rate;
    }
    if (!st.active[2]) return;
    z.below = above;
    if (!look) return;
    auto& next = s.ahead[(k + 1) % 2];
    s.plane.put(Tile::own_slot(col), next.get(col));
    next.put(col, LookaheadLoadsFirst ? cell_prims(up, gas) : prims(col, k + 3));
  }

  // The march's phases (march_tile) as thread `rank` of a team of `threads` makes them: its
  // column is `rank`, which it updates if `mine` (owns(rank)). Each phase reads only what the
  // phases before it wrote, so a barrier between two phases is all a team needs.
  // Before the first plane: the column's z state and lookahead, and plane k0's fill items.
  HC_INLINE void start_phase(Scratch& s, int rank, int threads, bool mine, int k0, ColumnZ<Real>& z) const {
    if (st.active[2] && mine) column_start(s, rank, k0, z);
    for_team_items(rank, threads, Tile::kFill, [&](int i) { fill(s, k0, i); });
  }
  HC_INLINE void recon_phase(Scratch& s, int rank, int threads) const {
    HC_KEEP_ROLLED
    for (int i = threads - 1 - rank; i < Tile::kRecon; i += threads) recon(s, i);
  }
  // The x and y faces, and the z face above the column's cell (into `above`).
  HC_INLINE void faces_phase(Scratch& s, int rank, int threads, bool mine, int k, ColumnZ<Real>& z,
                             Cons<Real>& above) const {
    HC_KEEP_ROLLED
    for (int i = threads - 1 - rank; i < Tile::kFaces; i += threads) face(s, i);
    if (st.active[2] && mine) above = column_face_above(s, rank, k, z);
  }
  // The column's cell updated, and plane k + 1's halo (fill_next, with the backend's rule).
  HC_INLINE void update_phase(Scratch& s, int rank, int threads, bool mine, int k, int k1, const Cons<Real>& above,
                              ColumnZ<Real>& z, Real& most, bool halo_one_cell_each) const {
    if (mine) column_update(s, rank, k, k1, above, z, most);
    if (k + 1 < k1) fill_next(s, k + 1, rank, threads, halo_one_cell_each);
  }
};

// What a thread of a team carries from phase to phase of the march: its rank (its column),
// whether the tile updates that column, where the column's z state lives (the thread's
// registers, or its slot of shared memory) and, in stage 2, the largest signal rate it wrote.
template <class Real>
struct TeamThread {
  int rank;
  bool mine;
  ColumnZ<Real>* z;
  Real most;
};

// The march of a team through planes k0 .. k1 - 1 of its tile, in the phases of the file's
// head, a barrier between each two (the HIP kernel and the Kokkos host run it; Kokkos on a GPU
// runs the same phases in loops of its own, kernels/kokkos/fused.hpp's march_on_gpu, which
// spilled less under nvcc 13). A team type says how its threads run a phase: `team.each(f)` calls f(TeamThread&, here)
// for each of the kHere threads this code stands for (here: 0 .. kHere - 1; on a GPU one, itself; on the host every
// thread of the team in turn: TeamInTurn), and `team.barrier()` waits for all of them. `halo_one_cell_each`:
// fill_next's rule.
template <class Stage, class Team>
HC_INLINE void march_tile(const Stage& w, typename Stage::Scratch& s, Team& team, int k0, int k1,
                          bool halo_one_cell_each) {
  constexpr int threads = Team::kThreads;
  static_assert(Stage::kColumns <= threads, "a thread per column");
  team.each([&](auto& t, int) { w.start_phase(s, t.rank, threads, t.mine, k0, *t.z); });
  for (int k = k0; k < k1; ++k) {
    team.barrier();
    team.each([&](auto& t, int) { w.recon_phase(s, t.rank, threads); });
    team.barrier();
    typename Stage::Face above[Team::kHere];  // the z face above each one's cell: the faces make it
    team.each([&](auto& t, int here) { w.faces_phase(s, t.rank, threads, t.mine, k, *t.z, above[here]); });
    team.barrier();
    team.each([&](auto& t, int here) {
      w.update_phase(s, t.rank, threads, t.mine, k, k1, above[here], *t.z, t.most, halo_one_cell_each);
    });
  }
}

// A team of Threads threads that one host thread runs: each phase's threads one after another,
// in rank order or (`reversed`, for tests) the other way. Between two phases the barrier has
// nothing to wait for; it counts the phases that ran with none before them (`unguarded`), which
// march_tile never does. Each thread's state is its own, as a GPU thread's registers are.
template <class Real, int Threads>
struct TeamInTurn {
  static constexpr int kThreads = Threads, kHere = Threads;
  TeamThread<Real> thread[Threads];
  ColumnZ<Real> z[Threads];
  bool reversed = false;
  bool waited = true;  // a barrier since the last phase (or no phase yet)
  int unguarded = 0;

  // The team of a tile that updates the columns for which owns(rank) is true: each thread's
  // column, no z state yet, no signal rate.
  template <class Owns>
  HC_INLINE explicit TeamInTurn(const Owns& owns, bool reverse = false) : reversed(reverse) {
    for (int r = 0; r < Threads; ++r) thread[r] = TeamThread<Real>{r, owns(r), &z[r], Real(0)};
  }
  TeamInTurn(const TeamInTurn&) = delete;  // its threads point at its own z states
  TeamInTurn& operator=(const TeamInTurn&) = delete;
  HC_INLINE void barrier() { waited = true; }
  template <class F>
  HC_INLINE void each(const F& f) {
    if (!waited) ++unguarded;
    waited = false;
    for (int n = 0; n < Threads; ++n) {
      const int r = reversed ? Threads - 1 - n : n;
      f(thread[r], r);
    }
  }
  // The largest signal rate any of them wrote.
  HC_INLINE Real most() const {
    Real m = 0;
    for (const TeamThread<Real>& t : thread)
      if (t.most > m) m = t.most;
    return m;
  }
};

}  // namespace halocline
