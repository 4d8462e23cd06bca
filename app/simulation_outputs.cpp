// What a run writes and says inside its loop and at its end (app/simulation.hpp): snapshots,
// checkpoints, a numerical fault's message and the last good state, and the finish (the
// checksum, totals, final snapshot and the timers reduced over the ranks).
#include <cmath>
#include <exception>
#include <optional>
#include <string>
#include <vector>

#include "app/bad_cells.hpp"
#include "app/failures.hpp"
#include "app/report.hpp"  // device_identity
#include "app/simulation.hpp"

namespace halocline::simulation {

namespace {

// Why no time step came of a rate: a positive, finite rate fails only by making a step of
// kLargestTimeStep or more (kernels/step_control.hpp), cells too large for the flow's speeds.
std::string rate_failure(double max_rate, double cfl) {
  const std::string rate = "max signal rate " + g6(max_rate);
  if (!(max_rate > 0) || !std::isfinite(max_rate)) return rate;
  return rate + ": a step of cfl / rate = " + g6(cfl / max_rate) + ", " + g6(kLargestTimeStep) +
         " or more; the domain's cells are too large for its speeds";
}

}  // namespace

// Every rank takes part: its state goes to the file slab by slab (Backend::read_state), as
// primitives, into its own block of one shared file (collective) or through rank 0, which
// writes alone (Comm::funnel). The host holds the file's bytes and a few slabs, never another
// copy of the state. Rank 0 writes the series.
void Simulation::write_snapshot_file(long step, double time) {
  last_snapshot_step_ = step;
  std::vector<double> prim;
  auto primitives_of = [&](const StateSlab& slab) {
    const std::size_t cells = slab.block.cells();
    prim.resize(kNumVars * cells);
    primitives(slab.values, cells, config_.physics.gamma, prim.data());
    return prim.data();
  };
  std::optional<SnapshotFile> file;
  const auto finish_file = [&] {
    const SnapshotInfo info = writer_->finish(*file, step, time);
    writer_->write_series();
    if (comm_.root()) r_.snapshots.push_back(info.xmf_path);
  };
  if (collective_) {
    // Every rank writes its block of one file in collective calls, so a failure on any rank is
    // every rank's (agreed here, and on each write by the snapshot's own steps): none waits in
    // a collective call that another has left.
    agreed([&] {
      file.emplace(writer_->begin(snapshot_index_++));
      backend_->read_state([&](const StateSlab& slab) { file->write_block(slab.block, primitives_of(slab)); });
    });
    agreed(finish_file);
    return;
  }
  // Rank 0 takes part in the funnel even when its file could not be begun, so that no rank
  // waits for ever; it says why afterwards.
  std::exception_ptr failed;
  try {
    if (writer_) file.emplace(writer_->begin(snapshot_index_++));
  } catch (...) {
    failed = std::current_exception();
  }
  comm_.funnel(
      [&](const Comm::BlockSink& give) {
        backend_->read_state([&](const StateSlab& slab) { give(slab.block, primitives_of(slab)); });
      },
      [&](const CellBlock& block, const double* values) {
        if (file) file->write_block(block, values);
      });
  if (failed) std::rethrow_exception(failed);
  if (writer_) finish_file();  // gathered: rank 0 writes
}

// The whole state on rank 0 (empty elsewhere), canonical: for a caller that keeps the final
// state (verify, tests).
std::vector<double> Simulation::gather_state() {
  std::vector<double> whole(comm_.root() ? kNumVars * r_.grid.ninterior : 0);
  comm_.funnel(
      [&](const Comm::BlockSink& give) {
        backend_->read_state([&](const StateSlab& slab) { give(slab.block, slab.values); });
      },
      [&](const CellBlock& block, const double* values) {
        place_block(block, values, block_of(r_.grid), whole.data());
      });
  return whole;
}

// The state was checked first (check_state_at_stop): a broken state is never saved. A
// checkpoint that cannot be written ends the run (exit code 4), unless a signal asked for it:
// the signal is still the news.
void Simulation::write_checkpoint() {
  std::string path;
  try {
    path = save_checkpoint(config_, comm_, r_.provenance, start_.series, control_.step, control_.t, *backend_);
  } catch (const std::exception& e) {
    if (checkpoints_.signal) throw Interrupted(checkpoints_.signal, control_.step, "", e.what());
    throw AgreedExit(ExitStatus{4, "error: ", e.what(), true, -1});  // every rank knows
  }
  if (!path.empty()) r_.checkpoints.push_back(path);
  checkpoints_.written(control_.step);
  if (checkpoints_.signal && !path.empty()) throw Interrupted(checkpoints_.signal, control_.step, path);
}

// Says where the state broke (each rank looks through its own slabs; the earliest cell of
// the whole grid is said on every rank) and saves the state it was made from, intact in the
// backend (the steps after the fault did nothing), as a checkpoint to restart from, e.g.
// with a smaller CFL number.
void Simulation::report_fault() {
  backend_->select_after_fault(AfterFault::Broken);
  FirstBadCell first(r_.grid, config_.physics.gamma);
  try {  // every rank takes part in the gather below, whatever happens here
    backend_->read_state([&](const StateSlab& slab) { first.look(slab); });
  } catch (const std::exception& e) {
    first.failed(e.what());
  }
  const std::string where = comm_.broadcast(FirstBadCell::first_over_ranks(comm_.gather(first.encoded())));
  const std::string failure = "step " + std::to_string(control_.step) + ", t = " + g6(control_.t) +
                              ": no valid time step (" + rate_failure(control_.max_rate, control_.cfl) + "); " + where;
  // No step of this run was made: what it was given cannot be run (a gamma, states or cells
  // the deck's rules let through, or a checkpoint's state under this deck), so it is bad input
  // (exit code 2, said once), not a run that broke.
  if (control_.step == start_.step)
    throw AgreedExit(ExitStatus{2, "error: ",
                                (config_.restart_path.empty() ? "the deck's initial state" : "the checkpoint's state") +
                                    std::string(" cannot be run: ") + failure,
                                true, -1});
  std::string saved = "this run saves no checkpoints";
  if (options_.checkpoints) {
    backend_->select_after_fault(AfterFault::LastGood);
    const std::string good =
        "the last good state (step " + std::to_string(control_.step - 1) + ", t = " + g6(control_.t_before) + ")";
    try {  // the fault is the news; a checkpoint that cannot be written is said with it
      const std::string path = save_checkpoint(config_, comm_, r_.provenance, start_.series, control_.step - 1,
                                               control_.t_before, *backend_);
      saved =
          good + (path.empty() ? " is not saved: it has a cell that is not physical either" : " is saved in " + path);
    } catch (const std::exception& e) {
      saved = good + " could not be saved: " + e.what();
    }
  }
  throw NumericalError(failure + "; " + saved);
}

// ---- Finish ------------------------------------------------------------------------------------

// The slowest rank's loop is the run's; the state is copied from the backend and gathered
// once for the final snapshot and the diagnostics; the timers are reduced over the ranks.
void Simulation::finish() {
  progress_->update(control_.step, control_.t, true);
  const double loop_s = comm_.max(seconds_since(loop_start_) - output_s_);
  const long step = control_.step;
  const double t = control_.t;
  laps_.start = Clock::now();
  // The checksum and the totals where the state lives (kernels/checksum.hpp, totals.hpp);
  // the state comes to the host only for a final snapshot or when the caller keeps it.
  r_.checksum = state_checksum(comm_, *backend_);
  r_.final = state_totals();
  if (options_.write_output && config_.output_final && last_snapshot_step_ != step) write_snapshot(step, t);
  // Snapshots numbered after this run's last, and those of the run it continues past its
  // checkpoint, are an earlier run's in the same directory: its series file lists only this
  // run's (the caller says so, of each apart).
  if (comm_.root() && writer_) {
    r_.snapshots_past_restart = writer_->later_snapshots();
    if (snapshot_index_ > 0) r_.earlier_snapshots = writer_->snapshots_after(snapshot_index_ - 1);
    r_.snapshots_replaced = writer_->replaced_snapshots();
  }
  settle_steps_past_the_stop();
  r_.step_times = samples_.times();
  r_.steps = step;
  r_.first_step = start_.step;
  r_.first_time = start_.time;
  r_.restart_changes = start_.changes;
  r_.steps_submitted = asked_;
  r_.timed_steps = asked_ - r_.timed_steps_from;
  r_.sim_time = t;
  r_.loop_s = loop_s;
  r_.loop_cell_updates_per_s =
      loop_s > 0 ? static_cast<double>(r_.grid.ninterior) * (step - start_.step) / loop_s : 0.0;
  if (options_.keep_final_state) r_.final_state = gather_state();
  laps_("final_state");  // checksum, totals, and where asked the copy, the gather, the snapshot
  reduce_timers();
  r_.devices_over_ranks = comm_.gather(device_identity(r_.device));
  r_.transfers = backend_->transfers();
  laps_("timers");
}

// Every rank times the same phases in the same order: each is reduced over the ranks.
void Simulation::reduce_timers() {
  timers_->resolve();
  r_.timers = timers_->phases();
  r_.timeline = timers_->trace();
  std::vector<double> totals;
  for (const PhaseStats& p : r_.timers) totals.push_back(p.total_s);
  comm_.min_max_mean(totals, r_.timers_min_s, r_.timers_max_s, r_.timers_mean_s);
}

}  // namespace halocline::simulation
