// Phase timing with device events: a mark is an event recorded in the compute stream, and
// the time between two marks is read (hipEventElapsedTime) only when the driver resolves
// its timers, after the step loop or every few hundred steps, so timing adds no
// synchronization to a step. Events are pooled and reused once measured.
#pragma once

#include <vector>

#include "kernels/contract/phase_clock.hpp"
#include "kernels/hip/runtime.hpp"

namespace halocline::hip {

class EventClock final : public PhaseClock {
 public:
  explicit EventClock(hipStream_t stream) : stream_(stream) {}
  ~EventClock() override {
    for (hipEvent_t e : events_) (void)hipEventDestroy(e);
    if (origin_) (void)hipEventDestroy(origin_);
  }
  EventClock(const EventClock&) = delete;
  EventClock& operator=(const EventClock&) = delete;

  Mark mark() override {
    if (next_ == events_.size()) {
      hipEvent_t e;
      HIP_CHECK(hipEventCreateWithFlags(&e, hipEventDefault));
      events_.push_back(e);
    }
    HIP_CHECK(hipEventRecord(events_[next_], stream_));
    return next_++;
  }
  double seconds_between(Mark earlier, Mark later) override {
    HIP_CHECK(hipEventSynchronize(events_[later]));
    float ms = 0;
    HIP_CHECK(hipEventElapsedTime(&ms, events_[earlier], events_[later]));
    return 1e-3 * ms;
  }
  void forget_marks() override { next_ = 0; }
  void set_origin() override {
    if (!origin_) HIP_CHECK(hipEventCreateWithFlags(&origin_, hipEventDefault));
    HIP_CHECK(hipEventRecord(origin_, stream_));
    zero_ = origin_;
  }
  // Events of one device compare across streams: another stream's clock can count from
  // this one's zero.
  void share_origin(PhaseClock& other) override {
    if (auto* events = dynamic_cast<EventClock*>(&other); events && events->zero_)
      zero_ = events->zero_;
    else
      set_origin();
  }
  double seconds_since_origin(Mark m) override {
    HIP_CHECK(hipEventSynchronize(events_[m]));
    float ms = 0;
    HIP_CHECK(hipEventElapsedTime(&ms, zero_, events_[m]));
    return 1e-3 * ms;
  }

 private:
  hipStream_t stream_;
  hipEvent_t origin_ = nullptr;  // this clock's own zero event
  hipEvent_t zero_ = nullptr;    // the zero it counts from: its own or another clock's
  std::vector<hipEvent_t> events_;
  std::size_t next_ = 0;
};

}  // namespace halocline::hip
