// Built-in per-phase timers.
//
// Every timer of a run starts and stops in one file, app/driver.cpp, around one backend
// call each, through PhaseTimers::Scope. A host clock times a phase from its start to
// the backend's fence() after it, so asynchronous backends are timed correctly; the
// fence is the only synchronization a timer adds. (A GPU backend will record device events
// here instead, read after the step loop, so that timing adds no synchronization.)
#pragma once

#include <chrono>
#include <cstddef>
#include <functional>
#include <string>
#include <vector>

namespace halocline {

struct PhaseStats {
  std::string name;
  long calls = 0;
  double total_s = 0, min_s = 0, max_s = 0;
  double mean_s() const { return calls ? total_s / calls : 0.0; }
};

class PhaseTimers {
 public:
  using Clock = std::chrono::steady_clock;

  // `fence` waits for the backend's outstanding work (may be empty: nothing to wait for).
  explicit PhaseTimers(std::function<void()> fence = {}) : fence_(std::move(fence)) {}

  class Scope {
   public:
    Scope(PhaseTimers& timers, std::size_t slot)
        : timers_(timers), slot_(slot), start_(Clock::now()) {}
    ~Scope() { timers_.stop(slot_, start_); }
    Scope(const Scope&) = delete;
    Scope& operator=(const Scope&) = delete;

   private:
    PhaseTimers& timers_;
    std::size_t slot_;
    Clock::time_point start_;
  };

  // Starts timing `phase` until the returned Scope goes out of scope.
  Scope scope(const std::string& phase) { return Scope(*this, slot_of(phase)); }

  // Phases in the order they were first timed.
  const std::vector<PhaseStats>& phases() const { return phases_; }

 private:
  std::size_t slot_of(const std::string& phase);
  void stop(std::size_t slot, Clock::time_point start);

  std::function<void()> fence_;
  std::vector<PhaseStats> phases_;
};

}  // namespace halocline
