#include "app/timers.hpp"

#include <algorithm>

namespace halocline {

std::size_t PhaseTimers::slot_of(const std::string& phase) {
  // A handful of phases: a linear search is cheaper than a map and keeps first-use order.
  for (std::size_t i = 0; i < phases_.size(); ++i)
    if (phases_[i].name == phase) return i;
  PhaseStats s;
  s.name = phase;
  phases_.push_back(s);
  return phases_.size() - 1;
}

std::string PhaseTimers::stream_of(const PhaseClock* clock) const {
  if (clock == &device_clock_) return "compute";
  if (clock == &host_clock_) return "host";
  for (const auto& [named, stream] : named_)
    if (named == clock) return stream;
  return "other";
}

void PhaseTimers::start_trace() {
  trace_.clear();
  device_clock_.set_origin();
  host_clock_.share_origin(device_clock_);  // the same zero where the device is the host
  for (const auto& named : named_) named.first->share_origin(device_clock_);
  tracing_ = true;
}

void PhaseTimers::resolve() {
  std::vector<PhaseClock*> clocks = {&device_clock_, &host_clock_};
  for (const Pending& p : pending_) {
    if (std::find(clocks.begin(), clocks.end(), p.clock) == clocks.end()) clocks.push_back(p.clock);
    const double seconds = p.clock->seconds_between(p.start, p.end);
    if (p.traced)
      trace_.push_back({phases_[p.slot].name, stream_of(p.clock), p.clock->seconds_since_origin(p.start),
                        p.clock->seconds_since_origin(p.end)});
    PhaseStats& s = phases_[p.slot];
    s.min_s = s.calls == 0 ? seconds : std::min(s.min_s, seconds);
    s.max_s = s.calls == 0 ? seconds : std::max(s.max_s, seconds);
    s.total_s += seconds;
    ++s.calls;
  }
  pending_.clear();
  for (PhaseClock* c : clocks) c->forget_marks();
}

}  // namespace halocline
