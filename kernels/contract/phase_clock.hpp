// The clocks a backend gives the driver's phase timers (app/timers.hpp): marks in its stream
// of work and the seconds between them, a host clock for backends in host memory, and the
// profiler ranges a backend may install around each timed phase.
#pragma once

#include <chrono>
#include <cstddef>
#include <functional>
#include <utility>
#include <vector>

namespace halocline {

// Marks points in a backend's stream of work and measures the time between two of them.
class PhaseClock {
 public:
  using Mark = std::size_t;
  virtual ~PhaseClock() = default;
  // Records a point after all work submitted so far.
  virtual Mark mark() = 0;
  // Seconds between two marks; may wait until the later one is reached.
  virtual double seconds_between(Mark earlier, Mark later) = 0;
  // Every mark taken so far has been measured: their resources may be reused.
  virtual void forget_marks() = 0;
  // For a timeline: marks the clock's zero now (with the backend idle), and reads a mark's
  // seconds since then. share_origin() takes another clock's zero instead, where the two
  // can be compared directly (the same host clock; events of one device): then calls on
  // the two clocks keep their order exactly.
  virtual void set_origin() = 0;
  virtual void share_origin(PhaseClock& other) {
    (void)other;
    set_origin();
  }
  virtual double seconds_since_origin(Mark m) = 0;
};

// Host wall clock, waiting for the backend (`fence`) at every mark.
class HostClock final : public PhaseClock {
 public:
  explicit HostClock(std::function<void()> fence = {}) : fence_(std::move(fence)) {}
  Mark mark() override {
    if (fence_) fence_();
    marks_.push_back(std::chrono::steady_clock::now());
    return marks_.size() - 1;
  }
  double seconds_between(Mark earlier, Mark later) override {
    return std::chrono::duration<double>(marks_[later] - marks_[earlier]).count();
  }
  void forget_marks() override { marks_.clear(); }
  void set_origin() override { origin_ = std::chrono::steady_clock::now(); }
  void share_origin(PhaseClock& other) override {
    if (auto* host = dynamic_cast<HostClock*>(&other))
      origin_ = host->origin_;
    else
      set_origin();
  }
  double seconds_since_origin(Mark m) override { return std::chrono::duration<double>(marks_[m] - origin_).count(); }

 private:
  std::function<void()> fence_;
  std::vector<std::chrono::steady_clock::time_point> marks_;
  std::chrono::steady_clock::time_point origin_;
};

// Profiler ranges around every timed scope (NVTX on NVIDIA, set by the HIP backend), so
// that an Nsight Systems timeline is labelled with the phases. Unset: no ranges.
struct ProfilerRanges {
  void (*push)(const char* name) = nullptr;
  void (*pop)() = nullptr;
};
inline ProfilerRanges& profiler_ranges() {
  static ProfilerRanges ranges;
  return ranges;
}

}  // namespace halocline
