// How a failure ends a run, on one rank or many: its exit code, the one line the user
// reads, and the set-up agreement that makes every rank of an MPI job end together.
//
// Exit codes: 0 success; 1 a verification FAIL or an unexpected error; 2 bad input (command
// line, deck, output path, a checkpoint that cannot be used, not enough memory), before
// any work; 3 a numerical failure; 4 a file the run writes could not be written; 128 + N
// stopped by signal N after writing a checkpoint.
#pragma once

#include <cstddef>
#include <exception>
#include <functional>
#include <stdexcept>
#include <string>
#include <utility>

#include "io/config.hpp"

namespace halocline {

struct ExitStatus {
  int code = 1;
  std::string prefix;  // "error: ", "numerical failure: " or "" (a signal)
  std::string message;
  bool every_rank = false;  // every rank meets it alike (rank 0 speaks for the run)
  int rank = -1;            // the rank it happened on, named in the message; -1: not named
};

// The exit status of an exception the command line caught.
ExitStatus classify(std::exception_ptr failure);

// A failure that every rank knows of, with the status of the rank that met it: rank 0
// prints it (app/main.cpp) or a bench lists it, and every rank ends alike.
struct AgreedExit : std::runtime_error {
  explicit AgreedExit(ExitStatus s) : std::runtime_error(s.message), status(std::move(s)) {}
  ExitStatus status;
};

// Runs one set-up step on every rank. If it throws on any rank, every rank ends here
// together: the status of the lowest rank with the highest exit code (its message, naming
// it when the other ranks did not fail alike) reaches every rank, and every rank throws it
// as AgreedExit (with one rank, the step's own exception goes on unchanged). The step must
// make no MPI call that a failed rank would skip; every rank must call this alike.
void agreed(const std::function<void()>& step);

// agreed() for a step that rank 0 alone makes for the whole job (the checks of the files and
// directories only it writes): the other ranks call it too, and `step` runs on rank 0 only, so
// it must make no MPI call. Its failure is the job's, not one rank's, so its message names no
// rank.
void agreed_on_root(const std::function<void()>& step);

// Every rank of a job must run the same configuration (the same deck, overrides and
// options): compares each rank's settings with rank 0's and throws DeckError, on the
// ranks that differ, naming the first setting that does. Call it inside agreed().
void check_same_configuration(const Config& config);

// The same for any settings written one "key = value" per line (a command, bench's
// options): DeckError, on the ranks whose `lines` differ from rank 0's, naming `what`.
void check_same_lines(const std::string& what, const std::string& lines);

// The resolved settings of `config`, one "key = value" line each, doubles exactly (the
// fingerprint that check_same_configuration compares; the deck's text and path are left
// out: two decks that say the same thing run the same).
std::string configuration_lines(const Config& config);

// One line of at most about `max` bytes: control characters escaped (\n, \t, \x1b), quoted
// values longer than 80 bytes cut in the middle with "...", and the whole cut at `max`.
std::string one_line(const std::string& text, std::size_t max = 600);

// Prints "halocline: [rank N: ]<prefix><message>" on stderr, as one_line() makes it (the
// rank where status.rank is set and the job has several).
void print_failure(const ExitStatus& status);

// A command's exit status once what it printed has reached its reader: where the standard
// output cannot be written (a full disk, a file-size limit under `> FILE`), that is said in
// one line and the status is 4, as for any file the command could not write (it was 0, and
// `compare`'s table, the whole result, was lost without a word).
int with_output_written(int code);

}  // namespace halocline
