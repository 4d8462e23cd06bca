// Where `halocline bench --plot` finds tools/plot.py. An installed binary (<prefix>/bin)
// takes the copy installed with it (<prefix>/share/halocline/plot.py: the install rules of
// CMakeLists.txt), so an install keeps working when it is moved or the source tree is
// gone. A binary in its build tree takes the source tree's tools/plot.py, so an edit there
// needs no install. Anywhere else there is no plot.py to trust, and the error says where
// it looked.
#pragma once

#include <filesystem>
#include <string>
#include <vector>

namespace halocline {

struct PlotScriptPlaces {
  std::filesystem::path from_bin_dir;   // the installed copy relative to the binary's folder (or absolute)
  std::filesystem::path build_bin_dir;  // where the build tree puts the binary
  std::filesystem::path source_script;  // the source tree's tools/plot.py
};

// The plot.py for the binary at `exe`: the installed copy beside it, else the source
// tree's when `exe` is in the build tree's bin folder. DeckError (exit code 2) naming the
// installed path it looked for otherwise.
std::filesystem::path find_plot_script(const std::filesystem::path& exe, const PlotScriptPlaces& places);

// The same for this process (/proc/self/exe) with the places this binary was built with.
std::filesystem::path plot_script();

// The python3 this binary was built with and this binary's plot.py, as the start of the
// command line that --plot runs. DeckError (exit code 2) where either is missing.
std::vector<std::string> plot_command();

// Checks, before any work, the folder --plot draws into: absent, or a directory whose
// pictures (*.png) are plain files of one link that are PNG images, which plot.py alone
// replaces; anything else there under such a name (a link to someone's file, someone's
// file) is refused, DeckError naming it. `option` names the option for the message.
void check_plot_folder(const std::filesystem::path& dir, const std::string& option);

// Runs `argv` (plot_command() and its arguments) as a child process, no shell between (a
// path with a quote in it is one argument); its stdout goes to /dev/null when `quiet`.
// Returns its exit status (127 when it could not be started).
int run_plot(const std::vector<std::string>& argv, bool quiet);

}  // namespace halocline
