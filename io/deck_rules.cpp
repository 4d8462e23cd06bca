// The cross-key rules of a deck: what no single key's type can say.
#include "io/deck_rules.hpp"

#include <algorithm>
#include <climits>
#include <cmath>
#include <cstdio>
#include <cstdlib>

#include "base/grid.hpp"
#include "io/deck.hpp"

namespace halocline::deck_detail {

std::string num(double v) {
  char buf[40];
  for (int prec = 1; prec <= 17; ++prec) {
    std::snprintf(buf, sizeof buf, "%.*g", prec, v);
    if (std::strtod(buf, nullptr) == v) break;
  }
  return buf;
}

namespace {

// The rules' common forms over one deck: `where` names the place of a key, `single` says the
// run's precision (the state's range depends on it).
struct Rules {
  const Config& c;
  const Where& where;
  bool single = c.precision == Precision::FP32;

  [[noreturn]] void fail(std::initializer_list<const char*> keys, const std::string& msg) const {
    throw DeckError(where(keys) + ": " + msg);
  }
  // `ok` is written so that a NaN fails. The first of `keys` is the one named.
  void check(bool ok, std::initializer_list<const char*> keys, const std::string& rule, const std::string& got) const {
    if (!ok) fail(keys, "key '" + std::string(*keys.begin()) + "' " + rule + " (got " + got + ")");
  }
  void positive(double v, std::initializer_list<const char*> keys) const { check(v > 0, keys, "must be > 0", num(v)); }
  // A density or pressure lies in [1e-100, 1e100] (fp64) or [1e-12, 1e12] (fp32): inside the
  // cube root of the precision's range, so that the scheme's products of them (a density
  // times a speed squared, a pressure over a density times gamma) stay finite and normal. A
  // subnormal one (1e-320) broke step 0, and a pressure of 1e-300 (1e-28 in fp32) step 1.
  void state_value(double v, std::initializer_list<const char*> keys) const {
    const double least = single ? 1e-12 : 1e-100, most = single ? 1e12 : 1e100;
    check(v >= least && v <= most, keys,
          std::string("must be > 0, in [") + num(least) + ", " + num(most) + "] in " + (single ? "fp32" : "fp64"),
          num(v));
  }
};

void check_grid(const Rules& r) {
  const Config& c = r.c;
  for (int d = 0; d < 3; ++d) {
    r.check(c.n[d] >= 1, {kSizeKeys[d], "grid.n"}, "must be >= 1", std::to_string(c.n[d]));
    // Cells and ghost layers are counted in int along a direction (base/grid.hpp).
    r.check(c.n[d] <= INT_MAX - 2 * kGhostLayers, {kSizeKeys[d], "grid.n"},
            "must be <= " + std::to_string(INT_MAX - 2 * kGhostLayers), std::to_string(c.n[d]));
    r.check(c.hi[d] > c.lo[d], {kHiKeys[d], kLoKeys[d]},
            std::string("must be greater than '") + kLoKeys[d] + "' = " + num(c.lo[d]), num(c.hi[d]));
    // Cells must be sizes a double can tell apart at these coordinates, and the extent a
    // finite number: otherwise the time step is infinite or the run takes for ever.
    const double extent = c.hi[d] - c.lo[d], dx = extent / c.n[d];
    const double scale = std::max(std::fabs(c.lo[d]), std::fabs(c.hi[d]));
    if (!std::isfinite(extent) || !(dx >= 1e-12 * scale) || !std::isnormal(dx))
      r.fail({kHiKeys[d], kLoKeys[d], kSizeKeys[d], "grid.n"},
             std::string("the domain along ") + "xyz"[d] + ", [" + num(c.lo[d]) + ", " + num(c.hi[d]) + "] in " +
                 std::to_string(c.n[d]) + " cells, gives cells of " + num(dx) +
                 ": the extent must be finite and each cell at least 1e-12 of the coordinates' size");
  }
  // The scheme needs a direction of at least two cells to do anything at all.
  if (c.n[0] == 1 && c.n[1] == 1 && c.n[2] == 1)
    r.fail({"grid.n", "grid.nx", "grid.ny", "grid.nz"},
           "the grid has one cell (1 x 1 x 1): at least one of grid.nx, grid.ny, grid.nz must be >= 2");
}

void check_physics(const Rules& r) {
  // gamma - 1 divides the pressure (kernels/hydro.hpp), so it must stay above 1 once rounded
  // to the run's precision (fp32 rounds 1.0000000001 to 1: a step-0 failure). An ideal gas has
  // 1 < gamma <= 3; 10 leaves room and stops a typo (14 for 1.4) or a gamma so large that the
  // internal energy underflows (1e308: a failure at step 1, exit 3).
  const double gamma = r.c.physics.gamma;
  r.check(gamma > 1 && gamma <= kMaxGamma, {"physics.gamma"}, "must be in (1, " + std::to_string(kMaxGamma) + "]",
          num(gamma));
  r.check(!r.single || static_cast<float>(gamma) > 1.0f, {"physics.gamma"},
          "must stay above 1 once rounded to fp32 (1.0000001 does, 1.00000005 does not)", num(gamma));
  r.check(r.c.physics.cfl > 0 && r.c.physics.cfl <= 1, {"physics.cfl"}, "must be in (0, 1]", num(r.c.physics.cfl));
}

void check_time_and_outputs(const Rules& r) {
  const Config& c = r.c;
  r.positive(c.t_end, {"time.t_end"});
  r.check(c.max_steps >= 0, {"time.max_steps"}, "must be >= 0", std::to_string(c.max_steps));
  r.check(c.output_interval >= 0, {"output.interval"}, "must be >= 0", num(c.output_interval));
  r.check(c.checkpoint.every_steps >= 0, {"checkpoint.every_steps"}, "must be >= 0",
          std::to_string(c.checkpoint.every_steps));
  r.check(c.checkpoint.every_seconds >= 0, {"checkpoint.every_seconds"}, "must be >= 0",
          num(c.checkpoint.every_seconds));
  r.check(c.checkpoint.keep >= 1, {"checkpoint.keep"}, "must be >= 1", std::to_string(c.checkpoint.keep));
  r.check(c.checkpoint.keep <= kMaxOutputFiles, {"checkpoint.keep"}, "must be <= " + std::to_string(kMaxOutputFiles),
          std::to_string(c.checkpoint.keep));
  // A run writes at most kMaxOutputFiles snapshots: an interval that would write more is
  // almost surely a typo (1e-300 for 1e-3), and would fill a disk with files. Each snapshot
  // after the first ends a step (steps land on output times), so a step limit under the
  // bound keeps a fresh run under it whatever t_end says (bench.toml's t_end of 1e9 means
  // "never"); a restart's snapshots are numbered by the output times before its checkpoint
  // too, so it keeps the bound on t_end.
  const bool steps_bound_it = c.max_steps > 0 && c.max_steps < kMaxOutputFiles && c.restart_path.empty();
  if (c.output_interval > 0 && c.t_end / c.output_interval > kMaxOutputFiles && !steps_bound_it)
    r.fail({"output.interval"}, "key 'output.interval' = " + num(c.output_interval) + " would write " +
                                    num(c.t_end / c.output_interval) + " snapshots up to time.t_end = " + num(c.t_end) +
                                    "; at most " + std::to_string(kMaxOutputFiles) +
                                    " are allowed (output.interval >= " + num(c.t_end / kMaxOutputFiles) + ")");
}

// A periodic face wraps onto the opposite face, so both must say so.
void check_boundaries(const Rules& r) {
  for (int d = 0; d < 3; ++d) {
    const bool lo = r.c.boundary[d][0] == Boundary::Periodic;
    const bool hi = r.c.boundary[d][1] == Boundary::Periodic;
    if (lo == hi) continue;
    const int s = lo ? 0 : 1;  // the periodic face
    r.fail({kFaceKeys[d][s], kFaceKeys[d][1 - s], "boundary.all"},
           std::string("key '") + kFaceKeys[d][s] + "' is periodic but '" + kFaceKeys[d][1 - s] + "' is " +
               boundary_name(r.c.boundary[d][1 - s]) + "; periodic must be set on both faces of a direction");
  }
}

void check_riemann(const Rules& r) {
  const Config& c = r.c;
  r.state_value(c.riemann.left.rho, {"riemann.left.rho", "riemann.preset"});
  r.state_value(c.riemann.left.p, {"riemann.left.p", "riemann.preset"});
  r.state_value(c.riemann.right.rho, {"riemann.right.rho", "riemann.preset"});
  r.state_value(c.riemann.right.p, {"riemann.right.p", "riemann.preset"});
  const int d = c.riemann.direction;
  if (d < 0 || d > 2) r.fail({"riemann.direction"}, "key 'riemann.direction' must be x, y or z");
  const char* axis = d == 0 ? "x" : d == 1 ? "y" : "z";
  if (c.n[d] < 2)
    r.fail({"riemann.direction", kSizeKeys[d], "grid.n"},
           std::string("key 'riemann.direction' is '") + axis + "' but " + kSizeKeys[d] + " = " +
               std::to_string(c.n[d]) + "; a Riemann problem needs more than one cell along its direction");
  if (!(c.riemann.x0 > c.lo[d] && c.riemann.x0 < c.hi[d]))
    r.fail({"riemann.x0", "riemann.preset"}, "key 'riemann.x0' (" + num(c.riemann.x0) +
                                                 ") must lie inside the domain along " + axis + ", (" + num(c.lo[d]) +
                                                 ", " + num(c.hi[d]) + ")");
}

void check_vortex(const Rules& r) {
  r.state_value(r.c.vortex.rho, {"isentropic_vortex.rho"});
  r.state_value(r.c.vortex.p, {"isentropic_vortex.p"});
  // The vortex leaves through one side and must come back through the other.
  for (int d = 0; d < 2; ++d)
    for (int s = 0; s < 2; ++s)
      if (r.c.boundary[d][s] != Boundary::Periodic)
        r.fail({kFaceKeys[d][s], "boundary.all", "problem.type"},
               std::string("problem 'isentropic_vortex' needs periodic x and y boundaries") + " but '" +
                   kFaceKeys[d][s] + "' is " + boundary_name(r.c.boundary[d][s]));
}

// What the deck's problem needs of its own keys.
void check_problem(const Rules& r) {
  const Config& c = r.c;
  switch (c.problem) {
    case ProblemKind::Riemann: return check_riemann(r);
    case ProblemKind::IsentropicVortex: return check_vortex(r);
    case ProblemKind::Sedov:
      r.state_value(c.sedov.rho, {"sedov.rho"});
      r.state_value(c.sedov.p, {"sedov.p"});
      r.positive(c.sedov.energy, {"sedov.energy"});
      r.positive(c.sedov.radius_cells, {"sedov.radius_cells"});
      return;
    case ProblemKind::KelvinHelmholtz:
      r.state_value(c.kh.rho_inner, {"kelvin_helmholtz.rho_inner"});
      r.state_value(c.kh.rho_outer, {"kelvin_helmholtz.rho_outer"});
      r.state_value(c.kh.p, {"kelvin_helmholtz.p"});
      r.positive(c.kh.width, {"kelvin_helmholtz.width"});
      return;
    case ProblemKind::Uniform:
      r.state_value(c.uniform.state.rho, {"uniform.rho"});
      r.state_value(c.uniform.state.p, {"uniform.p"});
      // Below 1 so that rho * (1 +- perturbation) stays positive.
      r.check(c.uniform.perturbation >= 0 && c.uniform.perturbation < 1, {"uniform.perturbation"}, "must be in [0, 1)",
              num(c.uniform.perturbation));
      return;
  }
}

}  // namespace

// In the order a deck reads: the grid, the physics, time and outputs, boundaries, the problem.
void validate_rules(const Config& c, const Where& where) {
  const Rules rules{c, where};
  check_grid(rules);
  check_physics(rules);
  check_time_and_outputs(rules);
  check_boundaries(rules);
  check_problem(rules);
}

}  // namespace halocline::deck_detail
