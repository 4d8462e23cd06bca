#include "app/timers.hpp"

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

void PhaseTimers::stop(std::size_t slot, Clock::time_point start) {
  if (fence_) fence_();
  const double seconds = std::chrono::duration<double>(Clock::now() - start).count();
  PhaseStats& s = phases_[slot];
  s.min_s = s.calls == 0 ? seconds : std::min(s.min_s, seconds);
  s.max_s = s.calls == 0 ? seconds : std::max(s.max_s, seconds);
  s.total_s += seconds;
  ++s.calls;
}

}  // namespace halocline
