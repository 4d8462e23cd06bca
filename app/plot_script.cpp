#include "app/plot_script.hpp"

#include <fcntl.h>
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cstdio>
#include <fstream>
#include <system_error>

#include "app/build_info.hpp"
#include "io/deck.hpp"

namespace halocline {

namespace fs = std::filesystem;

namespace {

bool same_folder(const fs::path& a, const fs::path& b) {
  std::error_code ec;
  return fs::equivalent(a, b, ec) && !ec;
}

}  // namespace

fs::path find_plot_script(const fs::path& exe, const PlotScriptPlaces& places) {
  const fs::path bin_dir = exe.parent_path();
  const fs::path installed = (bin_dir / places.from_bin_dir).lexically_normal();
  std::error_code ec;
  if (fs::is_regular_file(installed, ec)) return installed;
  if (same_folder(bin_dir, places.build_bin_dir) && fs::is_regular_file(places.source_script, ec))
    return places.source_script;
  throw DeckError("--plot: no " + installed.string() + " beside this binary (" + exe.string() +
                  "); install it with cmake --install, or run the build tree's binary");
}

fs::path plot_script() {
  std::error_code ec;
  const fs::path exe = fs::read_symlink("/proc/self/exe", ec);
  if (ec) throw DeckError("--plot: cannot find this binary's own path (/proc/self/exe: " + ec.message() + ")");
  return find_plot_script(
      exe, {build::kPlotScriptFromBinDir, build::kBuildBinDir, fs::path(build::kSourceDir) / "tools" / "plot.py"});
}

std::vector<std::string> plot_command() {
  const std::string python = build::kPython;
  if (python.empty() || python.find("NOTFOUND") != std::string::npos)
    throw DeckError("--plot: no python3 was found when this binary was built");
  return {python, plot_script().string()};
}

namespace {

bool is_png(const fs::path& file) {
  static const char kSignature[8] = {'\x89', 'P', 'N', 'G', '\r', '\n', '\x1a', '\n'};
  char head[8] = {};
  std::ifstream in(file, std::ios::binary);
  return in.read(head, sizeof head) && std::equal(head, head + sizeof head, kSignature);
}

}  // namespace

void check_plot_folder(const fs::path& dir, const std::string& option) {
  std::error_code ec;
  const fs::file_status status = fs::status(dir, ec);
  if (!fs::exists(status)) return;
  if (!fs::is_directory(status))
    throw DeckError(option + ": '" + dir.string() + "' exists and is not a directory: the pictures go into a folder");
  // Incremented with an error code: a folder that fails part-way is said below, not thrown.
  for (fs::directory_iterator it(dir, ec), end; !ec && it != end; it.increment(ec)) {
    const fs::path& path = it->path();
    if (path.extension() != ".png") continue;
    std::error_code entry;
    const fs::file_status own = fs::symlink_status(path, entry);
    const bool plain = !entry && fs::is_regular_file(own);
    const std::uintmax_t links = plain ? fs::hard_link_count(path, entry) : 0;
    std::string why;
    if (fs::is_symlink(own))
      why = "a symbolic link";
    else if (entry)
      why = "unreadable (" + entry.message() + ")";
    else if (!plain)
      why = "not a regular file";
    else if (links != 1)
      why = "a file with another name (a hard link)";
    else if (!is_png(path))
      why = "not a PNG image";
    if (!why.empty())
      throw DeckError(option + ": '" + path.string() + "' is " + why +
                      ": plot.py replaces only the pictures it drew; move it or draw elsewhere");
  }
  if (ec) throw DeckError(option + ": cannot read '" + dir.string() + "': " + ec.message());
}

int run_plot(const std::vector<std::string>& argv, bool quiet) {
  std::vector<char*> args;
  for (const std::string& a : argv) args.push_back(const_cast<char*>(a.c_str()));
  args.push_back(nullptr);
  std::fflush(nullptr);
  const pid_t child = ::fork();
  if (child < 0) return 127;
  if (child == 0) {
    if (quiet) {
      const int null = ::open("/dev/null", O_WRONLY);
      if (null >= 0) ::dup2(null, STDOUT_FILENO);
    }
    ::execvp(args[0], args.data());
    ::_exit(127);
  }
  int status = 0;
  while (::waitpid(child, &status, 0) < 0)
    if (errno != EINTR) return 127;
  return WIFEXITED(status) ? WEXITSTATUS(status) : 128 + WTERMSIG(status);
}

}  // namespace halocline
