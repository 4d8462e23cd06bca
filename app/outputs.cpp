#include "app/outputs.hpp"

#include <fcntl.h>
#include <sys/file.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <cstdio>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <iostream>
#include <regex>

#include <nlohmann/json.hpp>

#include "app/failures.hpp"
#include "app/signals.hpp"
#include "io/deck.hpp"
#include "io/h5util.hpp"

namespace fs = std::filesystem;

namespace halocline {

namespace {

const char* const kLockName = ".halocline.lock";

// What a path is, in a user's words, without following a final symbolic link.
std::string kind_of(const fs::file_status& s) {
  switch (s.type()) {
    case fs::file_type::directory: return "a directory";
    case fs::file_type::symlink: return "a symbolic link";
    case fs::file_type::fifo: return "a FIFO";
    case fs::file_type::socket: return "a socket";
    case fs::file_type::block: return "a block device";
    case fs::file_type::character: return "a character device";
    default: return "not a regular file";
  }
}

bool same_file(const fs::path& a, const std::string& b) {
  std::error_code ec;
  return !b.empty() && fs::equivalent(a, b, ec) && !ec;
}

// Who a lock file says holds it ("pid N on host H"), without its line end; empty if it says
// nothing.
std::string lock_owner(int fd) {
  char text[300] = {};
  const ssize_t got = ::pread(fd, text, sizeof text - 1, 0);
  std::string who = got > 0 ? std::string(text, static_cast<std::size_t>(got)) : "";
  while (!who.empty() && (who.back() == '\n' || who.back() == ' ')) who.pop_back();
  return who;
}

std::string host_name() {
  char host[256] = {};
  gethostname(host, sizeof host - 1);
  return host;
}

}  // namespace

std::vector<std::string> create_writable_directory(const std::string& dir) {
  if (dir.empty()) throw DeckError("the output directory must not be empty (--out '')");
  std::vector<std::string> created;
  fs::path partial;
  for (const fs::path& part : fs::path(dir)) {
    partial /= part;
    std::error_code ec;
    if (fs::exists(fs::symlink_status(partial, ec))) continue;
    if (!fs::create_directory(partial, ec) && ec) {
      remove_if_empty(created);
      throw DeckError("output directory '" + dir + "': cannot create '" + partial.string() + "': " + ec.message());
    }
    created.push_back(partial.string());
  }
  std::error_code ec;
  if (!fs::is_directory(dir, ec))
    throw DeckError("output directory '" + dir + "' " +
                    (fs::is_symlink(fs::symlink_status(dir, ec)) && !fs::exists(dir, ec)
                         ? "is a symbolic link to nothing"
                         : "exists and is not a directory"));
  if (::access(dir.c_str(), W_OK | X_OK) != 0) {
    const std::string why = std::strerror(errno);
    remove_if_empty(created);
    throw DeckError("output directory '" + dir + "' is not writable: " + why);
  }
  return created;
}

void remove_if_empty(const std::vector<std::string>& dirs) {
  for (auto it = dirs.rbegin(); it != dirs.rend(); ++it) {
    std::error_code ec;
    if (fs::is_empty(*it, ec) && !ec) fs::remove(*it, ec);
  }
}

// Where `path` (a directory, or a file's directory) lies inside the output directory of a
// run that holds its lock, other than `own` (this run's): that directory, with its lock's
// owner; empty otherwise. A run must not write into another's directory, nor prune its
// checkpoints.
static std::string running_output_around(const std::string& path, const std::string& own) {
  fs::path dir = fs::absolute(fs::path(path)).lexically_normal();
  if (dir.filename().empty()) dir = dir.parent_path();  // "a/b/" names "a/b"
  for (;; dir = dir.parent_path()) {
    const fs::path lock = dir / kLockName;
    std::error_code ec;
    const bool ours = !own.empty() && fs::equivalent(dir, own, ec);
    if (!ours && fs::is_regular_file(fs::symlink_status(lock, ec))) {
      const int fd = ::open(lock.c_str(), O_RDONLY | O_NOFOLLOW | O_CLOEXEC);
      if (fd >= 0) {
        const bool held = ::flock(fd, LOCK_SH | LOCK_NB) != 0 && errno == EWOULDBLOCK;
        const std::string who = held ? lock_owner(fd) : "";
        ::close(fd);
        if (held) return "'" + dir.string() + "', in use by " + (who.empty() ? "another run" : who);
      }
    }
    if (dir == dir.parent_path()) return "";
  }
}

std::string earlier_run_note(const std::vector<std::string>& paths, const std::string& noun, const std::string& run,
                             const std::string& consequence) {
  if (paths.empty()) return "";
  const std::string from = " from an earlier " + run + " in this directory: " + consequence;
  if (paths.size() == 1) return paths.front() + " is" + from;
  return paths.front() + " to " + fs::path(paths.back()).filename().string() + " (" + std::to_string(paths.size()) +
         " " + noun + "s) are" + from;
}

void check_not_in_running_output(const std::string& path, const std::string& what, const std::string& own) {
  const std::string other = running_output_around(path, own);
  if (!other.empty())
    throw DeckError(what + " '" + path + "' lies in the output directory " + other +
                    "; a run writes only in a directory of its own");
}

void OutputDirectory::open(const std::string& dir) {
  dir_ = dir;
  // Its own lock is lock()'s to judge; the directories around it must not be a running run's.
  fs::path around = fs::absolute(fs::path(dir)).lexically_normal();
  if (around.filename().empty()) around = around.parent_path();
  const std::string other = running_output_around(around.parent_path().string(), "");
  if (!other.empty())
    throw DeckError("output directory '" + dir + "' lies inside the output directory " + other +
                    "; a run writes only in a directory of its own");
  created_ = create_writable_directory(dir);
  try {
    lock();
  } catch (...) {
    remove_if_empty(created_);
    created_.clear();
    throw;
  }
  // A command with nothing to save ends at once on a signal (app/signals.hpp): it takes the
  // lock and the directories made for it along, as this destructor would.
  remove_at_signal_exit(lock_path_, created_);
}

// flock() ends with its process, whatever kills it, so a lock file whose lock nobody holds
// was left by a run that died: it is taken over. The file is checked to be the one at the
// path after locking, so that two runs racing over a stale file cannot both win.
void OutputDirectory::lock() {
  lock_path_ = (fs::path(dir_) / kLockName).string();
  for (int attempt = 0; attempt < 8; ++attempt) {
    const int fd = ::open(lock_path_.c_str(), O_RDWR | O_CREAT | O_NOFOLLOW | O_CLOEXEC, 0644);
    if (fd < 0)
      throw DeckError("output directory '" + dir_ + "': cannot create its lock file '" + lock_path_ +
                      "': " + std::strerror(errno));
    if (::flock(fd, LOCK_EX | LOCK_NB) != 0) {
      const int error = errno;
      const std::string who = lock_owner(fd);
      ::close(fd);
      if (error == EWOULDBLOCK)
        throw DeckError("output directory '" + dir_ + "' is in use by " + (who.empty() ? "another run" : who) +
                        " (lock file '" + lock_path_ + "'); choose another --out or wait for that run to end");
      throw DeckError("output directory '" + dir_ + "': cannot lock '" + lock_path_ + "': " + std::strerror(error));
    }
    struct stat held {
    }, named{};
    if (::fstat(fd, &held) != 0 || ::stat(lock_path_.c_str(), &named) != 0 || held.st_ino != named.st_ino ||
        held.st_dev != named.st_dev) {
      ::close(fd);  // removed or replaced by its owner meanwhile: try the new one
      continue;
    }
    const std::string who = lock_owner(fd);
    // A file of that name that no run wrote (a deck saved there, anyone's data) is not taken
    // over: taking over writes it.
    static const std::regex ours(R"(pid [0-9]+ on host [^\n]*)");
    if (!who.empty() && !std::regex_match(who, ours)) {
      ::close(fd);
      throw DeckError(one_line("output directory '" + dir_ + "' holds '" + kLockName +
                               "', which is not a lock file of Halocline's (it begins '" + who.substr(0, 40) +
                               "'); remove it or choose another --out"));
    }
    if (!who.empty()) {
      std::cerr << one_line("halocline: warning: output directory '" + dir_ + "' was locked by " + who +
                            ", which no longer runs; taking it over")
                << '\n';
    }
    const std::string me = "pid " + std::to_string(::getpid()) + " on host " + host_name() + "\n";
    if (::ftruncate(fd, 0) != 0 || ::pwrite(fd, me.data(), me.size(), 0) != static_cast<ssize_t>(me.size())) {
      const std::string why = std::strerror(errno);
      ::close(fd);
      throw DeckError("output directory '" + dir_ + "': cannot write its lock file '" + lock_path_ + "': " + why);
    }
    lock_fd_ = fd;
    return;
  }
  throw DeckError("output directory '" + dir_ + "': its lock file '" + lock_path_ + "' keeps changing");
}

OutputDirectory::~OutputDirectory() {
  if (lock_fd_ >= 0) forget_at_signal_exit();
  if (lock_fd_ >= 0) {
    ::unlink(lock_path_.c_str());  // while still holding it: a waiting run then makes a new one
    ::close(lock_fd_);
  }
  remove_if_empty(created_);
}

namespace {
// Whether a JSON document at `path` is one that `kind`'s writer makes: an object with that
// kind's keys (any JSON of anyone's, a schema or another command's result, is not).
bool holds_json_kind(const std::string& path, OutputKind kind) {
  std::error_code ec;
  if (fs::file_size(path, ec) > (std::uintmax_t{64} << 20) || ec) return false;  // no report of ours is that large
  std::ifstream in(path, std::ios::binary);
  const nlohmann::json j = nlohmann::json::parse(in, nullptr, false);
  if (!j.is_object()) return false;
  const auto has = [&](std::initializer_list<const char*> keys) {
    for (const char* key : keys)
      if (!j.contains(key)) return false;
    return true;
  };
  switch (kind) {
    case OutputKind::RunReport: return has({"config", "fom", "checksum"});
    case OutputKind::BenchResults: return has({"rows", "sweeps", "repeat", "steps"});  // every version's keys
    case OutputKind::BenchmarkResult: return has({"rules", "configurations"});
    case OutputKind::ProbeResult: return has({"copy_Bps"});
    default: return false;
  }
}

// Whether the file at `path` is of `kind`: a JSON kind's keys, or the first line (leading
// white space skipped) that a text kind's writer puts there.
bool holds_kind(const std::string& path, OutputKind kind) {
  std::ifstream in(path, std::ios::binary);
  std::string first;
  char ch = 0;
  while (in.get(ch) && std::isspace(static_cast<unsigned char>(ch))) {
  }
  if (!in) return true;  // empty, or white space only: nothing of anyone's
  first += ch;
  for (int n = 0; n < 255 && in.get(ch) && ch != '\n'; ++n) first += ch;  // enough of the first line
  switch (kind) {
    case OutputKind::BenchTable: return first.find("status,min_step_s,median_step_s,") != std::string::npos;
    case OutputKind::BenchmarkSummary: return first.rfind("# Halocline benchmark", 0) == 0;
    default: return first[0] == '{' && holds_json_kind(path, kind);
  }
}
const char* kind_name(OutputKind kind) {
  switch (kind) {
    case OutputKind::RunReport: return "a run's report";
    case OutputKind::BenchResults: return "a bench's bench.json";
    case OutputKind::BenchmarkResult: return "a benchmark result";
    case OutputKind::ProbeResult: return "a probe's result";
    case OutputKind::BenchTable: return "a bench table";
    case OutputKind::BenchmarkSummary: return "a benchmark summary";
  }
  return "";
}
}  // namespace

void check_output_file(const std::string& path, const std::string& what, const std::vector<std::string>& inputs,
                       OutputKind kind) {
  if (path.empty()) throw DeckError(what + " path must not be empty");
  const std::string name = fs::path(path).filename().string();
  if (name.empty() || name == "." || name == "..")
    throw DeckError(what + " '" + path + "' must name a file, not a directory");
  std::error_code ec;
  // The nearest folder above it that exists must be one: a file where a folder of the path
  // should be would fail the write only after the work.
  for (fs::path up = fs::path(path).parent_path(); !up.empty(); up = up.parent_path()) {
    const fs::file_status entry = fs::symlink_status(up, ec);
    const bool absent = ec == std::errc::no_such_file_or_directory || ec == std::errc::not_a_directory;
    if (ec && !absent) throw DeckError(what + " '" + path + "' cannot be made: '" + up.string() + "': " + ec.message());
    if (absent || !fs::exists(entry)) {
      if (up == up.parent_path()) break;
      continue;
    }
    const fs::file_status above = fs::status(up, ec);
    if (!fs::is_directory(above))
      throw DeckError(what + " '" + path + "' cannot be made: '" + up.string() + "' exists and is " +
                      (fs::is_regular_file(above) ? std::string("a file")
                       : fs::is_symlink(entry)    ? std::string("a symbolic link to no directory")
                                                  : kind_of(above)) +
                      ", not a directory (remove it or choose another path)");
    break;
  }
  const fs::file_status status = fs::symlink_status(path, ec);
  if (!fs::exists(status)) return;
  if (status.type() != fs::file_type::regular)
    throw DeckError(what + " '" + path + "' exists and is " + kind_of(status) +
                    "; the run writes only regular files it owns (choose another path)");
  for (const std::string& input : inputs)
    if (same_file(path, input))
      throw DeckError(what + " '" + path + "' is the run's input '" + input + "'; it would be overwritten");
  if (!holds_kind(path, kind))
    throw DeckError(what + " '" + path + "' exists and is not " + kind_name(kind) +
                    "; the run does not overwrite other files (remove it or choose another path)");
}

namespace {

// What a file under one of the run's own names is, where it is not one a Halocline run wrote
// there (an earlier run's, which the run may replace); empty where it is. Snapshots and
// checkpoints say so in their "format" attribute; a series file is XDMF. The report and the
// probe's files are checked by kind where they are written (check_output_file); temporaries
// are the writer's (io/atomic_file.hpp).
std::string not_of_halocline(const fs::path& path, const std::string& name) {
  if (path.extension() != ".h5" && path.extension() != ".xmf") return "";
  if (!std::ifstream(path, std::ios::binary)) return "a file this run cannot read";
  if (path.extension() == ".h5") {
    const std::string format = h5::hdf5_format_of(path.string());
    if (name.rfind("checkpoint_", 0) == 0) return format == "halocline-checkpoint" ? "" : "not a Halocline checkpoint";
    // Format 1 (before 0.2.0) said no format: its grid and time attributes do.
    const bool first_format = format.empty() && h5::hdf5_has_attributes(path.string(), {"grid", "origin", "time"});
    if (format != "halocline-snapshot" && !first_format) return "not a Halocline snapshot";
  } else {
    std::string head(512, '\0');
    std::ifstream in(path, std::ios::binary);
    in.read(head.data(), static_cast<std::streamsize>(head.size()));
    if (head.find("<Xdmf") == std::string::npos) return "not an XDMF file";
  }
  return "";
}

}  // namespace

void check_output_names(const std::string& dir, const std::vector<std::string>& inputs) {
  static const std::regex own(
      R"((snapshot(_[0-9]{4})?\.(h5|xmf)|checkpoint_[0-9]{8}\.h5|report\.json|probe-.*\.json)(\.tmp)?)");
  std::error_code ec;
  for (fs::directory_iterator it(dir, ec), end; !ec && it != end; it.increment(ec)) {
    const std::string name = it->path().filename().string();
    if (!std::regex_match(name, own)) continue;
    const fs::file_status status = it->symlink_status(ec);
    if (status.type() != fs::file_type::regular)
      throw DeckError("output directory '" + dir + "' holds '" + name + "', which is " + kind_of(status) +
                      ", where the run writes a file of its own (remove it or choose another --out)");
    for (const std::string& input : inputs)
      if (same_file(it->path(), input))
        throw DeckError("output directory '" + dir + "': the run would overwrite its input '" + input + "' (" + name +
                        ")");
    const std::string foreign = not_of_halocline(it->path(), name);
    if (!foreign.empty())
      throw DeckError("output directory '" + dir + "' holds '" + name + "', which is " + foreign +
                      ": the run would write over it (move it or choose another --out)");
  }
}

}  // namespace halocline
