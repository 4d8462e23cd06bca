// Built-in per-phase timers.
//
// Every timer of a run starts and stops in app/driver.cpp (the step's own phases) or
// app/stages.cpp (each stage's), around one backend call each, through PhaseTimers::Scope;
// the phases' names are in app/phases.hpp. A scope takes two marks from the backend's
// PhaseClock, one at its start and one at its end; the time between them is worked out
// later, in resolve(), which the driver calls at the end of the warm-up, every 256 steps and
// after the step loop.
// So a clock may record marks asynchronously (a GPU backend records device events in its
// stream) and timing adds no synchronization inside the loop. The host clock here fences
// the backend at each mark instead: exact for a CPU backend, where a fence is free.
#pragma once

#include <algorithm>
#include <chrono>
#include <cstddef>
#include <functional>
#include <string>
#include <vector>

#include "kernels/contract/phase_clock.hpp"

namespace halocline {

// One timed call of a traced step, on the timeline of its stream.
struct TraceEvent {
  std::string phase, stream;      // stream: compute, halo or host
  double start_s = 0, end_s = 0;  // since the trace started
};

struct PhaseStats {
  std::string name;
  long calls = 0;
  double total_s = 0, min_s = 0, max_s = 0;
  double mean_s() const { return calls ? total_s / calls : 0.0; }
};

// Device phases are timed by the backend's clock; host phases (file output) by a plain
// host clock that waits for nothing, so host work does not synchronize the device.
class PhaseTimers {
 public:
  explicit PhaseTimers(PhaseClock& device_clock) : device_clock_(device_clock) {}

  class Scope {
   public:
    Scope(PhaseTimers& timers, std::size_t slot, PhaseClock& clock)
        : timers_(timers), slot_(slot), clock_(clock), start_(clock.mark()) {
      if (profiler_ranges().push) profiler_ranges().push(timers_.phases_[slot_].name.c_str());
    }
    ~Scope() {
      timers_.pending_.push_back({slot_, &clock_, start_, clock_.mark(), timers_.tracing_});
      if (profiler_ranges().pop) profiler_ranges().pop();
    }
    Scope(const Scope&) = delete;
    Scope& operator=(const Scope&) = delete;

   private:
    PhaseTimers& timers_;
    std::size_t slot_;
    PhaseClock& clock_;
    PhaseClock::Mark start_;
  };

  // Times backend work `phase` until the returned Scope goes out of scope, on the device
  // clock or on another clock of the backend (a second stream's).
  Scope scope(const std::string& phase) { return Scope(*this, slot_of(phase), device_clock_); }
  Scope scope(const std::string& phase, PhaseClock& clock) { return Scope(*this, slot_of(phase), clock); }
  // Times host work `phase` the same way, on the host clock.
  Scope host_scope(const std::string& phase) { return Scope(*this, slot_of(phase), host_clock_); }

  // Measures every finished scope and adds it to the statistics.
  void resolve();

  // Measures what is pending, then forgets the statistics of every phase but those in
  // `keep`: the warm-up is not timed.
  void restart(const std::vector<std::string>& keep) {
    resolve();
    for (PhaseStats& p : phases_)
      if (std::find(keep.begin(), keep.end(), p.name) == keep.end()) p = PhaseStats{p.name};
  }

  // Phases in the order they were first timed (call resolve() first).
  const std::vector<PhaseStats>& phases() const { return phases_; }

  // The timeline of a stretch of work (one step): every scope between start_trace() and
  // stop_trace() is also kept with its start and end on its stream's clock, all clocks
  // counted from the moment start_trace() was called. The device clock is the "compute"
  // stream's and the host clock "host"; name the other clocks the scopes use. Call
  // start_trace() with the backend idle (after a fence), so that the clocks' zeros agree.
  void name_clock(PhaseClock& clock, const std::string& stream) { named_.push_back({&clock, stream}); }
  void start_trace();
  void stop_trace() { tracing_ = false; }
  // The traced scopes measured so far (call resolve() first), in the order they ended.
  const std::vector<TraceEvent>& trace() const { return trace_; }

 private:
  struct Pending {
    std::size_t slot;
    PhaseClock* clock;
    PhaseClock::Mark start, end;
    bool traced;
  };
  std::size_t slot_of(const std::string& phase);
  std::string stream_of(const PhaseClock* clock) const;

  PhaseClock& device_clock_;
  HostClock host_clock_;
  std::vector<PhaseStats> phases_;
  std::vector<Pending> pending_;
  std::vector<std::pair<PhaseClock*, std::string>> named_;
  bool tracing_ = false;
  std::vector<TraceEvent> trace_;
};

}  // namespace halocline
