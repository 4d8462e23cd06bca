// Everything a run needs, as read from a TOML deck (io/deck.cpp) and the command line.
// Plain data with defaults; io/deck.cpp documents and validates every key, and
// docs/decks.md lists them for users.
#pragma once

#include <array>
#include <string>

#include "kernels/boundary.hpp"
#include "kernels/contract/strategy.hpp"
#include "kernels/hydro.hpp"
#include "layouts/layouts.hpp"

namespace halocline {

enum class Precision { FP64, FP32 };
enum class BackendKind { Kokkos, Hip };

// The backend a run gets when neither deck nor command line names one: the first built in
// (Kokkos, else HIP; the build defines HALOCLINE_HAVE_KOKKOS for every file of the core).
inline BackendKind default_backend() {
#if defined(HALOCLINE_HAVE_KOKKOS)
  return BackendKind::Kokkos;
#else
  return BackendKind::Hip;
#endif
}
enum class ProblemKind { Riemann, IsentropicVortex, Sedov, KelvinHelmholtz, Uniform };

struct PrimState {
  double rho = 1.0, u = 0.0, v = 0.0, w = 0.0, p = 1.0;
};

struct RiemannSetup {
  std::string preset = "sod";  // sod, toro1 .. toro5, or "custom"
  PrimState left{1.0, 0.0, 0.0, 0.0, 1.0};
  PrimState right{0.125, 0.0, 0.0, 0.0, 0.1};
  double x0 = 0.5;    // interface position along `direction`
  int direction = 0;  // 0 = x, 1 = y, 2 = z
};

struct VortexSetup {
  double strength = 5.0;      // beta in Yee et al. (1999)
  double x0 = 0.0, y0 = 0.0;  // vortex centre at t = 0
  double u = 1.0, v = 1.0;    // background (advection) velocity
  double rho = 1.0, p = 1.0;  // background state
};

struct SedovSetup {
  double energy = 1.0;        // blast energy deposited in the central sphere
  double radius_cells = 2.0;  // deposit radius in cells of the coarsest direction
  double rho = 1.0;           // ambient density
  double p = 1.0e-5;          // ambient pressure
};

struct KelvinHelmholtzSetup {
  double rho_inner = 2.0, rho_outer = 1.0;  // density of the central and outer streams
  double velocity = 0.5;                    // inner stream moves at +velocity, outer at -velocity
  double p = 2.5;
  double width = 0.025;     // smoothing length of the shear layers
  double amplitude = 0.01;  // amplitude of the seeded v perturbation
};

struct UniformSetup {
  PrimState state{1.0, 0.0, 0.0, 0.0, 1.0};
  double perturbation = 0.0;  // relative amplitude of a deterministic density perturbation
  unsigned seed = 12345;
};

// When checkpoints are written (io/checkpoint.hpp); 0 turns a trigger off.
struct CheckpointSetup {
  long every_steps = 0;      // every N steps
  double every_seconds = 0;  // every T seconds of wall time (checked once a step)
  int keep = 2;              // the newest K are kept, older ones removed
  std::string dir;           // below the output directory; empty: the output directory
};

struct Config {
  std::string deck_path;  // the deck as given on the command line
  std::string deck_text;  // the deck's text, for the report and later for checkpoints
  ProblemKind problem = ProblemKind::Riemann;
  RiemannSetup riemann;
  VortexSetup vortex;
  SedovSetup sedov;
  KelvinHelmholtzSetup kh;
  UniformSetup uniform;

  std::array<int, 3> n{1, 1, 1};
  std::array<double, 3> lo{0.0, 0.0, 0.0};
  std::array<double, 3> hi{1.0, 1.0, 1.0};

  Physics physics;
  // Boundary per face: [direction][0 = low, 1 = high].
  std::array<std::array<Boundary, 2>, 3> boundary{{{Boundary::Outflow, Boundary::Outflow},
                                                   {Boundary::Outflow, Boundary::Outflow},
                                                   {Boundary::Outflow, Boundary::Outflow}}};

  double t_end = 0.2;
  long max_steps = 0;  // 0: no limit, run to t_end

  double output_interval = 0;  // simulation time between snapshots; 0: no snapshots
  bool output_final = true;    // write a snapshot of the final state
  // Several ranks with a parallel HDF5: all write one file together (false: rank 0
  // gathers and writes, the only way with a serial HDF5).
  bool output_collective = true;
  std::string out_dir = "out";
  std::string report_path;  // empty: <out_dir>/report.json
  CheckpointSetup checkpoint;
  std::string restart_path;  // --restart FILE: continue from this checkpoint

  LayoutKind layout = LayoutKind::SoA;
  Precision precision = Precision::FP64;
  BackendKind backend = default_backend();
  MemoryStrategy memory;  // owner model, host memory kind, prefetch (GPU backends)
  HaloStrategy halo = HaloStrategy::Auto;
  KernelStrategy kernels = KernelStrategy::Auto;  // auto: app/select.cpp's choose_kernels decides
  std::array<int, 3> ranks_grid{0, 0, 0};         // ranks per direction; all 0: MPI chooses
  // The Kokkos backend's cells per thread block (i, j, k) on a GPU (--kokkos-tile):
  // {0, 0, 0} auto (flat on a GPU, Kokkos' own tiling on the host), {-1, -1, -1} Kokkos'
  // own tiling, {-2, -2, -2} flat (one 1-D range over the cells, no tiles).
  std::array<int, 3> kokkos_tile{0, 0, 0};
};

// --kokkos-tile: "auto", "kokkos", "flat" or "AxBxC" (positive, at most 1024 cells) -> Config's form.
// DeckError (exit code 2) otherwise.
std::array<int, 3> parse_kokkos_tile(const std::string& text, const std::string& option);
std::string kokkos_tile_name(const std::array<int, 3>& tile);

const char* precision_name(Precision p);
const char* backend_name(BackendKind b);
const char* boundary_name(Boundary b);
const char* problem_name(ProblemKind p);
const char* limiter_name(Limiter l);
const char* riemann_name(RiemannSolver r);

}  // namespace halocline
