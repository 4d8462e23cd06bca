#include "app/signals.hpp"

#include <unistd.h>

#include <csignal>
#include <cstring>

namespace halocline {

namespace {
volatile std::sig_atomic_t received = 0;
extern "C" void record_signal(int signal) { received = signal; }

// Before a command can act on a signal (the runtimes' start, or a command that never
// checks): one line and the exit code 128 + N at once. Only async-signal-safe calls.
extern "C" void end_at_once(int signal) {
  const char* line = signal == SIGINT ? "halocline: interrupted by signal 2; nothing was saved\n"
                                      : "halocline: interrupted by signal 15; nothing was saved\n";
  ssize_t ignored = write(STDERR_FILENO, line, std::strlen(line));
  (void)ignored;
  _exit(128 + signal);
}
}  // namespace

void install_start_signals() {
  std::signal(SIGINT, end_at_once);
  std::signal(SIGTERM, end_at_once);
}

void install_stop_signals() {
  std::signal(SIGINT, record_signal);
  std::signal(SIGTERM, record_signal);
}

int stop_signal() { return received; }

}  // namespace halocline
