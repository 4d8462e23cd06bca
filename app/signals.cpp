#include "app/signals.hpp"

#include <csignal>

namespace halocline {

namespace {
volatile std::sig_atomic_t received = 0;
extern "C" void record_signal(int signal) { received = signal; }
}  // namespace

void install_stop_signals() {
  std::signal(SIGINT, record_signal);
  std::signal(SIGTERM, record_signal);
}

int stop_signal() { return received; }

}  // namespace halocline
