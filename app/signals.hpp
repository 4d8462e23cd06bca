// SIGINT, SIGTERM and SIGHUP during a run: the handler only records which arrived; the driver
// finishes the step, writes a checkpoint and ends the run with exit code 128 + signal
// (130 for SIGINT, 143 for SIGTERM, 129 for SIGHUP; SIGHUP is left alone where the process
// was started to ignore it, as nohup does). Where there is nothing to save (the runtimes'
// start, verification's runs, commands that never check) a signal ends the process at once.
#pragma once

#include <string>
#include <vector>

namespace halocline {

// Installs handlers that end the process at once with one line and exit code 128 + N:
// for the runtimes' start (MPI's and a GPU runtime's can take seconds) and the commands
// that have nothing to save. (MPI installs handlers of its own that end the process
// without a word.)
void install_start_signals();

// Installs the handlers that only record the signal (until install_start_signals() is called
// again; a second signal of the same kind while the checkpoint is written is recorded again,
// not fatal).
void install_stop_signals();

// The signal received since install_stop_signals(), or 0.
int stop_signal();

// What a signal that ends the process at once removes on its way out (an output directory's
// lock file, then the directories made for it, deepest first, each only if empty), so that an
// interrupted command leaves what it found. Paths longer than the handler's buffers, or more
// directories than it holds, are left. forget_at_signal_exit() is the owner's, before it
// removes them itself.
void remove_at_signal_exit(const std::string& lock_file, const std::vector<std::string>& directories);
void forget_at_signal_exit();

// What the command keeps if a signal ends it at once (bench: "bench.json and bench.csv keep
// the 2 configurations done"), said in place of "nothing was saved"; empty: nothing again.
void say_at_signal_exit(const std::string& kept);

// Whether this process says the line when a signal ends it at once (true until told): false
// on the ranks of a launcher but the first, which all get the signal (mpirun passes it on),
// so that the run's line is said once. One that does not speak waits a second before it ends,
// so that its end does not make the launcher kill rank 0 before rank 0 has spoken. (A signal
// that reaches only other ranks, or reaches rank 0 while it only records signals and the others
// end at once, is then said by none: the launcher's own lines say which rank ended.)
void speak_at_signal_exit(bool speaks);

}  // namespace halocline
