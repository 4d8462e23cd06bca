#include "app/checkpoints.hpp"

#include <cmath>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <random>

#include "app/bad_cells.hpp"
#include "app/driver.hpp"
#include "app/failures.hpp"
#include "io/checkpoint.hpp"
#include "io/deck_rules.hpp"
#include "io/output_error.hpp"

namespace halocline {

namespace {

std::string grid_text(const std::array<int, 3>& n) {
  return std::to_string(n[0]) + " x " + std::to_string(n[1]) + " x " + std::to_string(n[2]);
}

// Shortest text that reads back as the same double: domains differ in their last bits too.
std::string number(double x) {
  char buf[32];
  std::snprintf(buf, sizeof buf, "%.15g", x);
  if (std::strtod(buf, nullptr) != x) std::snprintf(buf, sizeof buf, "%.17g", x);
  return buf;
}

std::array<std::string, 6> boundary_names(const Config& c) {
  std::array<std::string, 6> names;
  for (int d = 0; d < 3; ++d)
    for (int side = 0; side < 2; ++side) names[2 * d + side] = boundary_name(c.boundary[d][side]);
  return names;
}

// Why the checkpoint's run differs from the deck's in what a restart may not change (the
// table in docs/reliability.md); empty when it does not.
std::string mismatch(const CheckpointHeader& h, const Config& c) {
  if (h.problem != problem_name(c.problem))
    return "is for problem '" + h.problem + "'; the deck's problem.type is '" + problem_name(c.problem) + "'";
  for (int d = 0; d < 3; ++d)
    if (h.lo[d] != c.lo[d] || h.hi[d] != c.hi[d])
      return std::string("has domain ") + "xyz"[d] + " in [" + number(h.lo[d]) + ", " + number(h.hi[d]) +
             "]; the deck has [" + number(c.lo[d]) + ", " + number(c.hi[d]) + "]";
  const std::array<std::string, 6> deck = boundary_names(c);
  static const char* const faces[6] = {"x_lo", "x_hi", "y_lo", "y_hi", "z_lo", "z_hi"};
  for (int f = 0; f < 6; ++f)
    if (h.boundaries[f] != deck[f])
      return std::string("has boundary.") + faces[f] + " = " + h.boundaries[f] + "; the deck has " + deck[f];
  if (h.grid != c.n) return "is for a grid of " + grid_text(h.grid) + " cells; the deck asks for " + grid_text(c.n);
  if (h.gamma != c.physics.gamma) return "has gamma = " + number(h.gamma) + "; the deck has " + number(c.physics.gamma);
  if (h.precision != precision_name(c.precision))
    return "was written by an " + h.precision + " run; this run is " + precision_name(c.precision) +
           " (restart in the same precision)";
  if (h.time >= c.t_end)
    return "is at t = " + number(h.time) + ", at or past the deck's time.t_end = " + number(c.t_end) +
           ": nothing to run";
  if (c.max_steps > 0 && h.step >= c.max_steps)
    return "is at step " + std::to_string(h.step) +
           ", at or past the step limit (--steps or time.max_steps = " + std::to_string(c.max_steps) +
           ", counted from the run's start): nothing to run";
  return "";
}

// A restart writes its checkpoints into checkpoint_dir(c): ones there after the restart
// point belong to a run that went on from it, and would mix with (and be pruned by) this
// one's. Empty when there are none.
std::string newer_checkpoints(const CheckpointHeader& h, const Config& c) {
  const std::vector<CheckpointFile> found = list_checkpoints(checkpoint_dir(c));
  if (found.empty() || found.back().step <= h.step) return "";
  std::error_code ec;
  if (std::filesystem::equivalent(found.back().path, c.restart_path, ec)) return "";  // renamed by hand
  std::string dir = checkpoint_dir(c);
  if (dir.size() > 1 && dir.back() == '/') dir.pop_back();  // "out/" when checkpoint.dir is empty
  return "is at step " + std::to_string(h.step) + ", but the run's checkpoint directory '" + dir +
         "' already holds later ones (the newest: '" + found.back().path +
         "'): their runs would mix; use another --out, or remove the checkpoints after step " + std::to_string(h.step);
}

}  // namespace

std::string new_series() {
  std::random_device entropy;
  const std::uint64_t id = (static_cast<std::uint64_t>(entropy()) << 32) ^ entropy();
  char hex[20];
  std::snprintf(hex, sizeof hex, "%016llx", static_cast<unsigned long long>(id));
  return hex;
}

std::string checkpoint_dir(const Config& c) { return (std::filesystem::path(c.out_dir) / c.checkpoint.dir).string(); }

std::vector<std::string> other_runs_checkpoints(const Config& c) {
  const bool fresh = c.restart_path.empty();  // a series of its own, in no file yet
  const std::string own = fresh ? "" : checkpoint_series(c.restart_path).value_or("");
  std::vector<std::string> others;
  for (const CheckpointFile& f : list_checkpoints(checkpoint_dir(c)))
    if (fresh || checkpoint_series(f.path) != own) others.push_back(f.path);
  return others;
}

CheckpointHeader check_restart(const Config& c) {
  const CheckpointHeader h = read_checkpoint_header(c.restart_path);
  std::string why = mismatch(h, c);
  if (why.empty()) why = newer_checkpoints(h, c);
  if (!why.empty()) throw CheckpointError("checkpoint '" + c.restart_path + "' " + why);
  return h;
}

std::optional<std::vector<std::string>> restart_changes(const CheckpointHeader& h, const Config& c) {
  if (h.format < 5) return std::nullopt;
  std::vector<std::string> changes;
  const auto changed = [&](const char* key, const std::string& before, const std::string& now) {
    if (before != now) changes.push_back(std::string(key) + " (" + before + " -> " + now + ")");
  };
  if (h.cfl != c.physics.cfl) changed("physics.cfl", deck_detail::num(h.cfl), deck_detail::num(c.physics.cfl));
  changed("physics.limiter", h.limiter, limiter_name(c.physics.limiter));
  changed("physics.riemann", h.riemann, riemann_name(c.physics.riemann));
  return changes;
}

std::string restart_changes_note(const std::optional<std::vector<std::string>>& changes) {
  if (!changes || changes->empty()) return "";
  std::string changed;
  for (const std::string& change : *changes) changed += (changed.empty() ? "" : ", ") + change;
  return "this restart changes " + changed + " from the run it continues (the report's restarted_from.changed)";
}

RestartPoint load_restart(const Config& c, const Comm& comm, const Grid& local, Backend& backend) {
  CheckpointHeader h;
  // Each rank reads its own block: one that cannot (a node that does not see the file)
  // ends every rank together (app/failures.hpp).
  agreed([&] {
    h = check_restart(c);
    CheckpointReader reader(c.restart_path, local.n_global);
    backend.write_state([&](const CellBlock& block, double* values) { reader.read_block(block, values); });
  });
  const std::string sum = state_checksum(comm, backend);
  agreed([&] {
    if (sum != h.checksum)  // the same on every rank
      throw CheckpointError("checkpoint '" + c.restart_path + "' is corrupted: its state's checksum is " + sum +
                            ", the file says " + h.checksum);
  });
  return RestartPoint{h.time, h.step, h.series, restart_changes(h, c)};
}

namespace {

CheckpointHeader header_of(const Config& c, const Comm& comm, const std::string& series, long step, double time,
                           const std::string& checksum) {
  CheckpointHeader h;
  h.halocline_version = HALOCLINE_VERSION;
  h.step = step;
  h.time = time;
  h.problem = problem_name(c.problem);
  for (int d = 0; d < 3; ++d) h.lo[d] = c.lo[d], h.hi[d] = c.hi[d];
  h.boundaries = boundary_names(c);
  h.grid = c.n;
  h.gamma = c.physics.gamma;
  h.precision = precision_name(c.precision);
  h.layout = layout_name(c.layout);
  h.backend = backend_name(c.backend);
  h.ranks_grid = comm.grid().dims;
  h.deck_text = c.deck_text;
  h.series = series;
  h.cfl = c.physics.cfl;
  h.limiter = limiter_name(c.physics.limiter);
  h.riemann = riemann_name(c.physics.riemann);
  h.checksum = checksum;
  return h;
}

// The outcome of a step of rank 0 for every rank: empty, or the first character saying
// whether it was a file that could not be written (OutputError) or something else.
template <class F>
void note_failure(std::string& error, const F& f) {
  if (!error.empty()) return;
  try {
    f();
  } catch (const OutputError& e) {
    error = std::string("O") + e.what();
  } catch (const std::exception& e) {
    error = std::string("E") + e.what();
  }
}

}  // namespace

std::string save_checkpoint(const Config& c, const Comm& comm, const Provenance& provenance, const std::string& series,
                            long step, double time, Backend& backend) {
  const std::string checksum = state_checksum(comm, backend);
  const std::string dir = checkpoint_dir(c);
  const std::string path = checkpoint_path(dir, step);
  std::unique_ptr<CheckpointImage> image;
  std::string error;
  if (comm.root()) {
    note_failure(error, [&] {
      std::error_code ec;
      std::filesystem::create_directories(dir, ec);
      if (ec) throw OutputError("cannot write checkpoint '" + path + "': cannot create its directory: " + ec.message());
      image = std::make_unique<CheckpointImage>(path, header_of(c, comm, series, step, time, checksum), provenance);
    });
  }
  // Every rank takes part in the funnel whatever happened before, so that none waits for
  // ever; rank 0 then drops the blocks when it has no file to put them in.
  bool broken = false;
  std::string handed;  // how handing the state over failed, if it did
  note_failure(handed, [&] {
    comm.funnel(
        [&](const Comm::BlockSink& give) {
          backend.read_state([&](const StateSlab& slab) {
            const std::size_t cells = slab.block.cells();
            broken = broken || first_bad_cell(slab.values, cells, c.physics.gamma) < cells;
            give(slab.block, slab.values);
          });
        },
        [&](const CellBlock& block, const double* values) {
          if (image) image->write_block(block, values);
        });
  });
  if (error.empty()) error = handed;
  // A rank that could not hand its state over leaves the file incomplete: nobody writes it.
  const double worst = comm.max(!error.empty() ? 2.0 : broken ? 1.0 : 0.0);
  if (worst == 2.0) {
    const std::vector<std::string> errors = comm.gather(error);  // rank 0 says the first
    for (const std::string& e : errors)
      if (error.empty()) error = e;
  }
  broken = worst == 1.0;
  if (comm.root() && worst == 0.0) {
    note_failure(error, [&] {
      if (!image) return;
      image->finish();
      // Only now that the new one is in place; never the one this run started from.
      prune_checkpoints(dir, c.checkpoint.keep, step, c.restart_path, &series);
    });
  }
  error = comm.broadcast(error);  // every rank fails together, none hangs
  if (!error.empty()) {
    if (error[0] == 'O') throw OutputError(error.substr(1));
    throw std::runtime_error("checkpoint at step " + std::to_string(step) + ": " + error.substr(1));
  }
  return broken ? "" : path;
}

}  // namespace halocline
