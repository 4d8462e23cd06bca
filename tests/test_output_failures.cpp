// Output failures (io/h5util.hpp, io/snapshot.cpp, io/checkpoint.cpp): a snapshot or
// checkpoint that cannot be written (no permission, a full disk, `ulimit -f`) throws
// OutputError with one line naming the file and the OS's reason, leaves no temporary file
// and keeps the earlier checkpoint intact; HDF5's error stack stays off stderr unless asked
// for; a link planted where the temporary file goes is replaced, never written through.
//
// Each failure runs in a forked child (a lower privilege, a private tmpfs, a file size
// limit: none may leak into the test process) that reports what it saw through a pipe.
#include <gtest/gtest.h>
#include <hdf5.h>

#include <fcntl.h>
#include <grp.h>
#include <sched.h>
#include <sys/mount.h>
#include <sys/resource.h>
#include <sys/wait.h>
#include <unistd.h>

#include <chrono>
#include <csignal>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <functional>
#include <sstream>
#include <string>
#include <thread>
#include <vector>

#include "io/atomic_file.hpp"
#include "io/checkpoint.hpp"
#include "io/h5util.hpp"
#include "io/output_error.hpp"
#include "io/snapshot.hpp"
#include "tests/test_support.hpp"

namespace hc = halocline;
namespace fs = std::filesystem;

namespace {

hc::Grid cube(int n) {
  const int cells[3] = {n, n, n};
  const double lo[3] = {0, 0, 0}, hi[3] = {1, 1, 1};
  return hc::make_grid(cells, lo, hi);
}

std::vector<double> values(const hc::Grid& g, double offset) {
  std::vector<double> v(hc::kNumVars * g.ninterior);
  for (std::size_t i = 0; i < v.size(); ++i) v[i] = offset + 0.25 * static_cast<double>(i % 1000);
  return v;
}

hc::CheckpointHeader header(int n, long step) {
  hc::CheckpointHeader h;
  h.halocline_version = "test";
  h.step = step;
  h.time = 0.125 * step;
  h.problem = "uniform";
  h.boundaries = {"outflow", "outflow", "outflow", "outflow", "outflow", "outflow"};
  h.grid = {n, n, n};
  h.gamma = 1.4;
  h.precision = "fp64";
  h.layout = "soa";
  h.backend = "kokkos";
  h.cfl = 0.4, h.limiter = "mc", h.riemann = "hllc";
  h.checksum = "0000000000000000";
  return h;
}

// A checkpoint of step 1 on a 4^3 grid, as a later failure must leave it.
void write_earlier(const fs::path& dir) {
  hc::write_checkpoint(hc::checkpoint_path(dir.string(), 1), header(4, 1), values(cube(4), 1));
}
std::string earlier_is_intact(const fs::path& dir) {
  const std::string path = hc::checkpoint_path(dir.string(), 1);
  try {
    const hc::CheckpointHeader h = hc::read_checkpoint_header(path);
    if (h.step != 1) return "step " + std::to_string(h.step);
    if (hc::read_checkpoint_block(path, cube(4)) != values(cube(4), 1)) return "another state";
    return "intact";
  } catch (const std::exception& e) {
    return e.what();
  }
}

std::vector<std::string> leftovers(const fs::path& dir) {
  std::vector<std::string> tmp;
  std::error_code ec;
  for (const auto& e : fs::directory_iterator(dir, ec))
    if (e.path().extension() == ".tmp") tmp.push_back(e.path().filename().string());
  return tmp;
}

// What one write did: "OutputError: <message>", another exception's "<type>: <message>",
// or "written".
std::string outcome(const std::function<void()>& write) {
  try {
    write();
    return "written";
  } catch (const hc::OutputError& e) {
    return std::string("OutputError: ") + e.what();
  } catch (const std::exception& e) {
    return std::string("other exception: ") + e.what();
  }
}

// Runs `body` in a forked child and returns the lines it wrote. The child only ever
// leaves through _exit: no atexit handler, no MPI, nothing of the parent's torn down.
std::vector<std::string> in_child(const std::function<std::vector<std::string>()>& body) {
  H5open();  // the library set up here, not in the child (parallel HDF5 touches MPI then)
  int fds[2];
  if (::pipe(fds) != 0) return {"SKIP: pipe: " + std::string(std::strerror(errno))};
  const pid_t pid = ::fork();
  if (pid == 0) {
    ::close(fds[0]);
    std::string text;
    for (const std::string& line : body()) text += line + '\n';
    for (std::size_t done = 0; done < text.size();) {
      const ssize_t n = ::write(fds[1], text.data() + done, text.size() - done);
      if (n <= 0) break;
      done += static_cast<std::size_t>(n);
    }
    ::_exit(0);
  }
  ::close(fds[1]);
  std::string text;
  char buf[4096];
  for (ssize_t n; (n = ::read(fds[0], buf, sizeof buf)) > 0;) text.append(buf, static_cast<std::size_t>(n));
  ::close(fds[0]);
  int status = 0;
  ::waitpid(pid, &status, 0);
  std::vector<std::string> lines;
  std::istringstream in(text);
  for (std::string line; std::getline(in, line);) lines.push_back(line);
  if (!WIFEXITED(status) || WEXITSTATUS(status) != 0)
    lines.push_back("child ended abnormally, status " + std::to_string(status));
  return lines;
}

// The child's outcome of a failed write: OutputError, one line, naming `file` and `reason`.
void expect_output_error(const std::string& got, const std::string& file, const std::string& reason) {
  EXPECT_EQ(got.rfind("OutputError: cannot write ", 0), 0u) << got;
  EXPECT_NE(got.find("'" + file + "'"), std::string::npos) << got;
  EXPECT_NE(got.find(reason), std::string::npos) << got;
}

std::string skip_reason(const std::vector<std::string>& lines) {
  return !lines.empty() && lines[0].rfind("SKIP: ", 0) == 0 ? lines[0].substr(6) : "";
}

// The writes every failure test makes, each a line; then what is left in `dir`.
std::vector<std::string> failing_writes(const fs::path& dir, int n) {
  std::vector<std::string> out;
  const hc::Grid g = cube(n);
  out.push_back(outcome([&] {
    hc::SnapshotWriter writer(dir.string(), g, hc::SnapshotMetadata{});
    writer.write(3, 30, 0.5, values(g, 2));
  }));
  out.push_back(
      outcome([&] { hc::write_checkpoint(hc::checkpoint_path(dir.string(), 2), header(n, 2), values(g, 3)); }));
  std::string tmp;
  for (const std::string& name : leftovers(dir)) tmp += " " + name;
  out.push_back("tmp:" + tmp);
  out.push_back(earlier_is_intact(dir));
  return out;
}

void expect_failed_writes(const std::vector<std::string>& got, const fs::path& dir, const std::string& reason) {
  ASSERT_EQ(got.size(), 5u) << ::testing::PrintToString(got);
  expect_output_error(got[0], (dir / "snapshot_0003.h5").string(), reason);
  expect_output_error(got[1], hc::checkpoint_path(dir.string(), 2), reason);
  EXPECT_EQ(got[2], "tmp:") << "no temporary file may be left";
  EXPECT_EQ(got[3], "intact") << "the earlier checkpoint";
  EXPECT_EQ(got[4], "stderr: ") << "HDF5's error stack is not printed";
}

// Runs `writes` with stderr sent to a file, and adds a last line with what came there.
std::vector<std::string> with_stderr_captured(const fs::path& file,
                                              const std::function<std::vector<std::string>()>& writes) {
  const int fd = ::open(file.c_str(), O_WRONLY | O_CREAT | O_TRUNC, 0600);
  if (fd < 0 || ::dup2(fd, STDERR_FILENO) < 0)
    return {"SKIP: cannot capture stderr in '" + file.string() + "': " + std::strerror(errno)};
  std::vector<std::string> out = writes();
  std::ifstream in(file);
  std::string text((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
  for (char& c : text)
    if (c == '\n') c = '|';
  out.push_back("stderr: " + text);
  return out;
}

TEST(OutputFailures, ReadOnlyDirectory) {
  hc::test::TempDir tmp("out_readonly");
  const fs::path dir = tmp.path() / "out";
  fs::create_directories(dir);
  write_earlier(dir);
  // Readable and searchable by all (the child may run as nobody), writable by none.
  fs::permissions(dir, fs::perms(0555));
  const fs::path err = tmp.path() / "stderr.txt";
  std::ofstream(err).flush();
  fs::permissions(err, fs::perms(0666));
  const std::vector<std::string> got = in_child([&]() -> std::vector<std::string> {
    // Root may write anywhere: the child gives up root for nobody first, when it is root.
    if (::geteuid() == 0 && (::setgroups(0, nullptr) != 0 || ::setgid(65534) != 0 || ::setuid(65534) != 0))
      return {"SKIP: running as root and cannot become nobody: " + std::string(std::strerror(errno))};
    if (::access(dir.c_str(), W_OK) == 0) return {"SKIP: the directory stays writable (chmod has no effect)"};
    return with_stderr_captured(err, [&] { return failing_writes(dir, 4); });
  });
  fs::permissions(dir, fs::perms(0755));  // so that the directory can be removed
  if (!skip_reason(got).empty()) GTEST_SKIP() << skip_reason(got);
  expect_failed_writes(got, dir, "Permission denied");
}

// A good checkpoint this user may not read, or one in a folder this user cannot enter, is said
// so in one line (CheckpointError, exit code 2): it was "not a readable HDF5 file (truncated
// or not a checkpoint)", which could send a user to delete a good file, and behind the folder
// a filesystem error (exit code 1).
TEST(OutputFailures, CheckpointTheUserCannotRead) {
  hc::test::TempDir tmp("checkpoint_unreadable");
  const fs::path open_dir = tmp.path() / "open", closed_dir = tmp.path() / "closed";
  for (const fs::path& dir : {open_dir, closed_dir}) {
    fs::create_directories(dir);
    write_earlier(dir);
  }
  fs::permissions(tmp.path(), fs::perms(0755));
  fs::permissions(open_dir, fs::perms(0755));
  fs::permissions(hc::checkpoint_path(open_dir.string(), 1), fs::perms(0600));
  fs::permissions(closed_dir, fs::perms(0700));
  const std::vector<std::string> got = in_child([&]() -> std::vector<std::string> {
    if (::geteuid() == 0 && (::setgroups(0, nullptr) != 0 || ::setgid(65534) != 0 || ::setuid(65534) != 0))
      return {"SKIP: running as root and cannot become nobody: " + std::string(std::strerror(errno))};
    if (::access(hc::checkpoint_path(open_dir.string(), 1).c_str(), R_OK) == 0)
      return {"SKIP: the checkpoint stays readable (chmod has no effect)"};
    std::vector<std::string> out;
    for (const fs::path& dir : {open_dir, closed_dir}) {
      try {
        hc::read_checkpoint_header(hc::checkpoint_path(dir.string(), 1));
        out.push_back("read");
      } catch (const hc::CheckpointError& e) {
        out.push_back(e.what());
      } catch (const std::exception& e) {
        out.push_back(std::string("not a CheckpointError: ") + e.what());
      }
    }
    return out;
  });
  fs::permissions(closed_dir, fs::perms(0755));
  if (!skip_reason(got).empty()) GTEST_SKIP() << skip_reason(got);
  ASSERT_EQ(got.size(), 2u);
  EXPECT_EQ(got[0], "checkpoint '" + hc::checkpoint_path(open_dir.string(), 1) + "' cannot be read: Permission denied");
  EXPECT_EQ(got[1],
            "checkpoint '" + hc::checkpoint_path(closed_dir.string(), 1) + "' cannot be reached: Permission denied");
}

// A full disk: a 256 KiB tmpfs mounted in the child's own user and mount namespaces, where
// an earlier checkpoint fits and a 32^3 snapshot or checkpoint (1.3 MB) does not.
TEST(OutputFailures, FullDisk) {
  hc::test::TempDir tmp("out_full");
  const fs::path dir = tmp.path() / "small_disk";
  fs::create_directories(dir);
  const fs::path err = tmp.path() / "stderr.txt";
  const uid_t uid = ::getuid();
  const gid_t gid = ::getgid();
  const std::vector<std::string> got = in_child([&]() -> std::vector<std::string> {
    if (::unshare(CLONE_NEWUSER | CLONE_NEWNS) != 0)
      return {"SKIP: cannot make a user and mount namespace: " + std::string(std::strerror(errno))};
    auto put = [](const char* file, const std::string& text) {
      std::ofstream f(file);
      f << text;
      return static_cast<bool>(f.flush());
    };
    put("/proc/self/setgroups", "deny");
    if (!put("/proc/self/uid_map", "0 " + std::to_string(uid) + " 1\n") ||
        !put("/proc/self/gid_map", "0 " + std::to_string(gid) + " 1\n"))
      return {"SKIP: cannot map this user into the namespace"};
    ::mount("none", "/", nullptr, MS_REC | MS_PRIVATE, nullptr);  // nothing propagates out
    if (::mount("tmpfs", dir.c_str(), "tmpfs", 0, "size=256k") != 0)
      return {"SKIP: cannot mount a small tmpfs: " + std::string(std::strerror(errno))};
    write_earlier(dir);
    return with_stderr_captured(err, [&] { return failing_writes(dir, 32); });
  });
  if (!skip_reason(got).empty()) GTEST_SKIP() << skip_reason(got);
  expect_failed_writes(got, dir, "No space left on device");
}

// A file size limit (`ulimit -f`), with SIGXFSZ ignored as a run must: write(2) says EFBIG.
TEST(OutputFailures, FileSizeLimit) {
  hc::test::TempDir tmp("out_fsize");
  const fs::path dir = tmp.path() / "out";
  fs::create_directories(dir);
  write_earlier(dir);
  const std::vector<std::string> got = in_child([&]() -> std::vector<std::string> {
    std::signal(SIGXFSZ, SIG_IGN);
    const rlimit limit{64 * 1024, 64 * 1024};
    if (::setrlimit(RLIMIT_FSIZE, &limit) != 0) return {"SKIP: setrlimit: " + std::string(std::strerror(errno))};
    return with_stderr_captured(tmp.path() / "stderr.txt", [&] { return failing_writes(dir, 32); });
  });
  if (!skip_reason(got).empty()) GTEST_SKIP() << skip_reason(got);
  expect_failed_writes(got, dir, "File too large");
}

// The final name taken by a directory: refused before a temporary is made, so none is left.
TEST(OutputFailures, RenameFailureLeavesNoTemporary) {
  hc::test::TempDir tmp("out_rename");
  const fs::path dir = tmp.path() / "out";
  fs::create_directories(dir / "snapshot_0000.h5" / "occupied");
  fs::create_directories(dir / "checkpoint_00000002.h5" / "occupied");
  write_earlier(dir);
  const hc::Grid g = cube(4);
  hc::SnapshotWriter writer(dir.string(), g, hc::SnapshotMetadata{});
  const std::string snapshot = outcome([&] { writer.write(0, 0, 0.0, values(g, 0)); });
  expect_output_error(snapshot, (dir / "snapshot_0000.h5").string(), "it is a directory");
  const std::string checkpoint =
      outcome([&] { hc::write_checkpoint(hc::checkpoint_path(dir.string(), 2), header(4, 2), values(g, 0)); });
  expect_output_error(checkpoint, hc::checkpoint_path(dir.string(), 2), "it is a directory");
  EXPECT_EQ(snapshot.find('\n'), std::string::npos);
  EXPECT_TRUE(leftovers(dir).empty()) << ::testing::PrintToString(leftovers(dir));
  EXPECT_EQ(earlier_is_intact(dir), "intact");
}

// Links planted where the temporary files go point at a file outside the output directory:
// every write goes on, and that file is untouched. A link at a final name is not replaced
// (it would become a regular file): that write is refused.
TEST(OutputFailures, PlantedLinksAreNeverFollowed) {
  hc::test::TempDir tmp("out_links");
  const fs::path dir = tmp.path() / "out";
  fs::create_directories(dir);
  const fs::path victim = tmp.path() / "precious.txt";
  const std::string precious = "a file the run does not own\n";
  std::ofstream(victim) << precious;
  for (const char* name : {"snapshot_0000.h5.tmp", "snapshot_0000.xmf.tmp", "snapshot.xmf.tmp",
                           "checkpoint_00000007.h5.tmp", "checkpoint_00000008.h5"})
    fs::create_symlink(victim, dir / name);
  fs::create_symlink(tmp.path() / "nowhere", dir / "snapshot_0001.h5.tmp");  // dangling

  const hc::Grid g = cube(4);
  hc::SnapshotWriter writer(dir.string(), g, hc::SnapshotMetadata{});
  EXPECT_EQ(outcome([&] { writer.write(0, 0, 0.0, values(g, 0)); }), "written");
  EXPECT_EQ(outcome([&] { writer.write(1, 1, 0.1, values(g, 1)); }), "written");
  EXPECT_EQ(outcome([&] { writer.write_series(); }), "written");
  EXPECT_EQ(outcome([&] { hc::write_checkpoint(hc::checkpoint_path(dir.string(), 7), header(4, 7), values(g, 7)); }),
            "written");
  expect_output_error(
      outcome([&] { hc::write_checkpoint(hc::checkpoint_path(dir.string(), 8), header(4, 8), values(g, 8)); }),
      hc::checkpoint_path(dir.string(), 8), "not a regular file");

  std::ifstream in(victim);
  EXPECT_EQ(std::string((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>()), precious);
  EXPECT_FALSE(fs::exists(tmp.path() / "nowhere"));
  for (const char* name :
       {"snapshot_0000.h5", "snapshot_0001.h5", "snapshot_0000.xmf", "snapshot.xmf", "checkpoint_00000007.h5"})
    EXPECT_TRUE(fs::is_regular_file(fs::symlink_status(dir / name))) << name;
  EXPECT_TRUE(leftovers(dir).empty()) << ::testing::PrintToString(leftovers(dir));
  EXPECT_EQ(hc::read_checkpoint_block(hc::checkpoint_path(dir.string(), 7), g), values(g, 7));
  const std::vector<double> second = values(g, 1);
  EXPECT_EQ(hc::test::read_dataset(dir / "snapshot_0001.h5", "rho"),
            std::vector<double>(second.begin(), second.begin() + g.ninterior));
}

// Two writers of one path at once (two runs given one `--report`): each waits for the other's
// temporary to get its name, so every write succeeds and the file is always one writer's
// whole. Until 2026-12-07 each removed the other's temporary: one failed to rename, and the
// file at the path could be the failed writer's.
TEST(OutputFailures, WritersOfOnePathAtOnceAllSucceed) {
  hc::test::TempDir tmp("out_writers");
  fs::create_directories(tmp.path());
  const std::string path = (tmp.path() / "report.json").string();
  constexpr int kWriters = 4, kWrites = 25;
  constexpr std::size_t kBytes = std::size_t(1) << 18;
  std::vector<std::string> failures(kWriters);
  std::vector<std::thread> writers;
  for (int w = 0; w < kWriters; ++w)
    writers.emplace_back([&, w] {
      const std::string text(kBytes, static_cast<char>('a' + w));
      for (int i = 0; i < kWrites && failures[w].empty(); ++i) try {
          hc::write_file_atomically(path, text, "report");
        } catch (const std::exception& e) {
          failures[w] = e.what();
        }
    });
  for (std::thread& t : writers) t.join();
  for (int w = 0; w < kWriters; ++w) EXPECT_EQ(failures[w], "") << "writer " << w;
  std::ifstream in(path, std::ios::binary);
  const std::string got((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
  ASSERT_EQ(got.size(), kBytes);
  EXPECT_EQ(got, std::string(kBytes, got[0]));  // one writer's whole
  EXPECT_FALSE(fs::exists(path + ".tmp"));
}

// A folder that is not there is said at once: the writers' wait is for a temporary renamed
// away by another writer, not for a folder (it spun for 120 s, then said the same).
TEST(OutputFailures, AMissingFolderIsSaidAtOnce) {
  hc::test::TempDir tmp("out_no_folder");
  const std::string path = (tmp.path() / "nowhere" / "report.json").string();
  const auto start = std::chrono::steady_clock::now();
  expect_output_error(outcome([&] { hc::write_file_atomically(path, "{}", "report"); }), path,
                      "No such file or directory");
  EXPECT_LT(std::chrono::steady_clock::now() - start, std::chrono::seconds(5));
}

// HDF5's own error stack reaches stderr only after set_hdf5_error_printing(true).
TEST(OutputFailures, HdfErrorStackOnlyWhenAsked) {
  hc::test::TempDir tmp("out_h5print");
  fs::create_directories(tmp.path());
  const fs::path garbage = tmp.path() / "garbage.h5";
  std::ofstream(garbage) << "not an HDF5 file";
  const std::vector<std::string> got = in_child([&] {
    auto read = [&] { return outcome([&] { hc::read_checkpoint_header(garbage.string()); }).substr(0, 40); };
    std::vector<std::string> out =
        with_stderr_captured(tmp.path() / "quiet.txt", [&] { return std::vector<std::string>{read()}; });
    hc::set_hdf5_error_printing(true);
    const std::vector<std::string> loud =
        with_stderr_captured(tmp.path() / "loud.txt", [&] { return std::vector<std::string>{read()}; });
    hc::set_hdf5_error_printing(false);
    out.push_back(loud.back().find("HDF5-DIAG") != std::string::npos ? "loud: stack" : "loud: " + loud.back());
    return out;
  });
  ASSERT_EQ(got.size(), 3u) << ::testing::PrintToString(got);
  EXPECT_EQ(got[0].rfind("other exception: checkpoint '", 0), 0u) << got[0];
  EXPECT_EQ(got[1], "stderr: ");
  EXPECT_EQ(got[2], "loud: stack");
}

}  // namespace
