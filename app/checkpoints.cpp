#include "app/checkpoints.hpp"

#include <cmath>
#include <cstdio>
#include <filesystem>

#include "app/driver.hpp"
#include "io/checkpoint.hpp"
#include "io/output_error.hpp"

namespace halocline {

namespace {

std::string grid_text(const std::array<int, 3>& n) {
  return std::to_string(n[0]) + " x " + std::to_string(n[1]) + " x " + std::to_string(n[2]);
}

// Why a checkpoint cannot continue this run; empty when it can.
std::string mismatch(const CheckpointHeader& h, const Config& c) {
  if (h.grid != c.n)
    return "is for a grid of " + grid_text(h.grid) + " cells; the deck asks for " + grid_text(c.n);
  if (h.gamma != c.physics.gamma) {
    char text[96];
    std::snprintf(text, sizeof text, "has gamma = %.17g; the deck has %.17g", h.gamma, c.physics.gamma);
    return text;
  }
  if (h.precision != precision_name(c.precision))
    return "was written by an " + h.precision + " run; this run is " + precision_name(c.precision) +
           " (restart in the same precision)";
  return "";
}

}  // namespace

std::string checkpoint_dir(const Config& c) {
  return (std::filesystem::path(c.out_dir) / c.checkpoint.dir).string();
}

CheckpointHeader check_restart(const Config& c) {
  const CheckpointHeader h = read_checkpoint_header(c.restart_path);
  const std::string why = mismatch(h, c);
  if (!why.empty()) throw CheckpointError("checkpoint '" + c.restart_path + "' " + why);
  return h;
}

RestartPoint load_restart(const Config& c, const Comm& comm, const Grid& local, const Grid& global) {
  const std::string& path = c.restart_path;
  const CheckpointHeader h = check_restart(c);
  RestartPoint p;
  p.state = read_checkpoint_block(path, local);
  p.time = h.time;
  p.step = h.step;
  // The state must be what was written: rank 0 checks the whole against the checksum and
  // tells every rank, so that all refuse together.
  const std::vector<double> whole = comm.gather(p.state, local, global);
  std::string verdict;
  if (comm.root()) {
    const std::string sum = state_checksum(whole);
    if (sum != h.checksum)
      verdict = "checkpoint '" + path + "' is corrupted: its state's checksum is " + sum +
                ", the file says " + h.checksum;
  }
  verdict = comm.broadcast(verdict);
  if (!verdict.empty()) throw CheckpointError(verdict);
  return p;
}

std::string save_checkpoint(const Config& c, const Comm& comm, long step, double time,
                            const std::vector<double>& local, const Grid& local_grid,
                            const Grid& global) {
  const std::vector<double> whole = comm.gather(local, local_grid, global);
  const std::string dir = checkpoint_dir(c);
  const std::string path = checkpoint_path(dir, step);
  // Rank 0 writes; its outcome reaches every rank, the first character saying whether it
  // was a file that could not be written (OutputError) or something else.
  std::string error;
  if (comm.root()) {
    CheckpointHeader h;
    h.halocline_version = HALOCLINE_VERSION;
    h.step = step;
    h.time = time;
    h.grid = c.n;
    h.gamma = c.physics.gamma;
    h.precision = precision_name(c.precision);
    h.layout = layout_name(c.layout);
    h.backend = backend_name(c.backend);
    h.ranks_grid = comm.grid().dims;
    h.deck_text = c.deck_text;
    h.checksum = state_checksum(whole);
    try {
      std::error_code ec;
      std::filesystem::create_directories(dir, ec);
      if (ec) throw OutputError("cannot write checkpoint '" + path + "': cannot create its directory: " + ec.message());
      write_checkpoint(path, h, whole);
      prune_checkpoints(dir, c.checkpoint.keep);  // only now that the new one is in place
    } catch (const OutputError& e) {
      error = std::string("O") + e.what();
    } catch (const std::exception& e) {
      error = std::string("E") + e.what();
    }
  }
  error = comm.broadcast(error);  // every rank fails together, none hangs
  if (error.empty()) return path;
  if (error[0] == 'O') throw OutputError(error.substr(1));
  throw std::runtime_error("checkpoint at step " + std::to_string(step) + ": " + error.substr(1));
}

}  // namespace halocline
