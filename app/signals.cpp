#include "app/signals.hpp"

#include <unistd.h>

#include <atomic>
#include <csignal>
#include <cstring>
#include <initializer_list>

namespace halocline {

namespace {
volatile std::sig_atomic_t received = 0;
extern "C" void record_signal(int signal) { received = signal; }

// remove_at_signal_exit's paths, read by end_at_once: fixed buffers (a handler may not
// allocate), armed only once written.
constexpr int kMaxExitDirectories = 8;
constexpr std::size_t kMaxExitPath = 4096;
char exit_lock[kMaxExitPath];
char exit_directories[kMaxExitDirectories][kMaxExitPath];
int exit_directory_count = 0;
// Stored with release after the buffers, loaded with acquire by the handler (which may run on
// another thread: MPI's or an OpenMP runtime's), so that it never reads half-written paths.
std::atomic<int> exit_cleanup_armed{0};
// say_at_signal_exit's words (what a command keeps, said in place of "nothing was saved"):
// two buffers, the one to read published by index (-1: none) after it is written, so that a
// handler reading one (on another thread) never sees the other being rewritten.
constexpr std::size_t kMaxExitNote = kMaxExitPath + 256;  // a path and a few words
char exit_notes[2][kMaxExitNote];
std::atomic<int> exit_note_index{-1};
// Whether end_at_once says its line: every rank of a launcher gets the signal, and one line
// (rank 0's) is the run's (speak_at_signal_exit).
std::atomic<int> exit_speaks{1};
static_assert(std::atomic<int>::is_always_lock_free, "a signal handler may use only lock-free atomics");

bool copy_text(char* to, std::size_t capacity, const std::string& from) {
  if (from.size() >= capacity) return false;
  std::memcpy(to, from.c_str(), from.size() + 1);
  return true;
}
bool copy_path(char* to, const std::string& from) { return copy_text(to, kMaxExitPath, from); }

// Before a command can act on a signal (the runtimes' start, or a command that never
// checks): one line and the exit code 128 + N at once. Only async-signal-safe calls.
extern "C" void end_at_once(int signal) {
  const char* start = signal == SIGINT   ? "halocline: interrupted by signal 2; "
                      : signal == SIGHUP ? "halocline: interrupted by signal 1; "
                                         : "halocline: interrupted by signal 15; ";
  const int note = exit_note_index.load(std::memory_order_acquire);
  const char* kept = note >= 0 ? exit_notes[note] : "nothing was saved";
  if (exit_speaks.load(std::memory_order_acquire)) {
    for (const char* part : {start, kept, "\n"}) {
      ssize_t ignored = write(STDERR_FILENO, part, std::strlen(part));
      (void)ignored;
    }
  } else {
    // A launcher ends every rank once one has ended with an error, at once (SIGKILL): a rank
    // that is not to speak gives rank 0 a second to say the line first, and is ended meanwhile.
    sleep(1);  // async-signal-safe (nanosleep is not on POSIX's list)
  }
  if (exit_cleanup_armed.load(std::memory_order_acquire)) {  // unlink and rmdir are async-signal-safe
    if (exit_lock[0] != '\0') unlink(exit_lock);
    for (int i = exit_directory_count - 1; i >= 0; --i) rmdir(exit_directories[i]);
  }
  _exit(128 + signal);
}

// SIGHUP (the terminal or the connection that started the run is gone) as SIGTERM, unless
// the process was started to ignore it (nohup): then it stays ignored. Read once, at the first
// install (main's, or RuntimeSession's under an MPI launcher), so that a handler put in later
// cannot hide that it was ignored.
bool hangup_ignored_at_start() {
  static const bool ignored = [] {
    struct sigaction now {};
    return sigaction(SIGHUP, nullptr, &now) == 0 && now.sa_handler == SIG_IGN;
  }();
  return ignored;
}
void handle(int signal, void (*handler)(int)) {
  if (signal == SIGHUP && hangup_ignored_at_start()) return;
  std::signal(signal, handler);
}
}  // namespace

void install_start_signals() {
  for (int signal : {SIGINT, SIGTERM, SIGHUP}) handle(signal, end_at_once);
}

void install_stop_signals() {
  for (int signal : {SIGINT, SIGTERM, SIGHUP}) handle(signal, record_signal);
}

int stop_signal() { return received; }

void remove_at_signal_exit(const std::string& lock_file, const std::vector<std::string>& directories) {
  exit_cleanup_armed.store(0, std::memory_order_seq_cst);
  if (!copy_path(exit_lock, lock_file)) exit_lock[0] = '\0';
  exit_directory_count = 0;
  for (const std::string& d : directories) {
    // A directory beyond the buffers stays, and so do those above it (rmdir would fail on them).
    if (exit_directory_count == kMaxExitDirectories || !copy_path(exit_directories[exit_directory_count], d)) break;
    ++exit_directory_count;
  }
  exit_cleanup_armed.store(1, std::memory_order_release);
}

void speak_at_signal_exit(bool speaks) { exit_speaks.store(speaks ? 1 : 0, std::memory_order_release); }

void forget_at_signal_exit() { exit_cleanup_armed.store(0, std::memory_order_seq_cst); }

void say_at_signal_exit(const std::string& kept) {
  if (kept.empty()) {
    exit_note_index.store(-1, std::memory_order_release);
    return;
  }
  const int next = exit_note_index.load(std::memory_order_relaxed) == 0 ? 1 : 0;
  // Words longer than the buffer keep their start (a path of thousands of characters).
  const std::string text = kept.size() < kMaxExitNote ? kept : kept.substr(0, kMaxExitNote - 4) + "...";
  copy_text(exit_notes[next], kMaxExitNote, text);
  exit_note_index.store(next, std::memory_order_release);
}

}  // namespace halocline
