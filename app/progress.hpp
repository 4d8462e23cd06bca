// The progress line of a long run on a terminal: step, simulation time, share done and the
// time left, rewritten in place at most twice a second on stderr. Only when stderr is a
// terminal and the run is not --quiet (app/command_run.cpp and app/command_bench.cpp decide);
// nothing otherwise.
#pragma once

#include <algorithm>
#include <chrono>
#include <cstdio>

namespace halocline {

class ProgressLine {
 public:
  ProgressLine(bool enabled, double t_end, long max_steps) : enabled_(enabled), t_end_(t_end), max_steps_(max_steps) {}
  ~ProgressLine() {
    if (shown_) std::fputc('\n', stderr);  // leave the last line standing
  }

  // After each step asked for: `step` and `t` as the host last saw them; `final`: the run
  // has ended, show where.
  void update(long step, double t, bool final = false) {
    if (!enabled_) return;
    const auto now = std::chrono::steady_clock::now();
    if (!final && shown_ && now - last_ < std::chrono::milliseconds(500)) return;
    last_ = now;
    double done = t_end_ > 0 ? t / t_end_ : 0.0;
    if (max_steps_ > 0) done = std::max(done, static_cast<double>(step) / max_steps_);
    done = std::min(1.0, std::max(0.0, done));
    const double elapsed = std::chrono::duration<double>(now - start_).count();
    std::fprintf(stderr, "\rstep %ld  t = %.6g  %5.1f%%", step, t, 100 * done);
    if (done > 0.001) {
      const long left = static_cast<long>(elapsed * (1 - done) / done + 0.5);
      std::fprintf(stderr, "  ETA %ld:%02ld:%02ld   ", left / 3600, left / 60 % 60, left % 60);
    }
    std::fflush(stderr);
    shown_ = true;
  }

 private:
  bool enabled_;
  double t_end_;
  long max_steps_;
  bool shown_ = false;
  std::chrono::steady_clock::time_point start_ = std::chrono::steady_clock::now(), last_;
};

}  // namespace halocline
