#include "io/atomic_file.hpp"

#include <fcntl.h>
#include <sys/file.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <chrono>
#include <cstring>
#include <filesystem>
#include <thread>

#include "io/output_error.hpp"

namespace halocline {

namespace {

// How long a writer waits for another process writing the same path (two runs given one
// report path, say) before it gives up rather than hang.
constexpr std::chrono::seconds kWaitForOtherWriter{120};

// Opens `tmp` as this writer's own, empty temporary and holds its flock until the file is
// closed: another writer of the same path (another process, or a thread with its own call)
// waits until that one's temporary is renamed away, then starts a new one. Until 2026-12-07
// a writer removed whatever was at `tmp` first, another writer's file included: of two runs
// given one report path, one failed to rename and the other's report was the loser's. An
// entry that is not a plain file of ours (a planted symbolic link, a FIFO, a hard link to
// someone's file) is removed, never written through. Returns -1 with errno set.
int open_own_temporary(const std::string& tmp) {
  namespace fs = std::filesystem;
  const auto give_up = std::chrono::steady_clock::now() + kWaitForOtherWriter;
  // Every retry pauses and counts against the wait: none can spin.
  const auto again = [&](int code) {
    if (std::chrono::steady_clock::now() > give_up) return errno = code, false;
    std::this_thread::sleep_for(std::chrono::milliseconds(20));
    return true;
  };
  const fs::path parent = fs::path(tmp).parent_path();
  for (;;) {
    const int fd = ::open(tmp.c_str(), O_WRONLY | O_CREAT | O_NOFOLLOW | O_NONBLOCK | O_CLOEXEC, 0666);
    if (fd < 0) {
      const int code = errno;
      std::error_code ec;
      // The name went (renamed by another writer) between the lookup and the create; a
      // missing folder is said at once.
      if (code == ENOENT && fs::is_directory(parent.empty() ? fs::path(".") : parent, ec)) {
        if (!again(EBUSY)) return -1;
        continue;
      }
      if (code != ELOOP && code != ENXIO && code != EISDIR) return errno = code, -1;
      fs::remove(tmp, ec);  // a link itself (not what it points at), a FIFO, an empty directory
      if (ec) return errno = ec.value(), -1;
      if (!again(code)) return -1;
      continue;
    }
    if (::flock(fd, LOCK_EX | LOCK_NB) != 0) {
      const int code = errno;
      // A file system without locks (ENOLCK: NFS mounted nolock) writes as before there were
      // any: alone, as the output directory's own lock makes a run's files.
      if (code != ENOLCK && code != ENOSYS && code != EOPNOTSUPP) {
        ::close(fd);
        if (code != EWOULDBLOCK) return errno = code, -1;
        if (!again(EBUSY)) return -1;
        continue;
      }
    }
    struct stat held {
    }, named{};
    const bool same = ::fstat(fd, &held) == 0 && ::lstat(tmp.c_str(), &named) == 0 && held.st_dev == named.st_dev &&
                      held.st_ino == named.st_ino;
    if (!same) {  // renamed away by the writer that held it: start a new one
      ::close(fd);
      if (!again(EBUSY)) return -1;
      continue;
    }
    // Ours while the lock is held: removed (before the lock goes) where it is not a plain
    // file of one link; emptied otherwise.
    if (!S_ISREG(held.st_mode) || held.st_nlink != 1) {
      const bool removed = ::unlink(tmp.c_str()) == 0;
      const int code = errno;
      ::close(fd);
      if (!removed) return errno = code, -1;
      if (!again(EEXIST)) return -1;
      continue;
    }
    const int flags = ::fcntl(fd, F_GETFL);
    if (::ftruncate(fd, 0) != 0 || flags < 0 || ::fcntl(fd, F_SETFL, flags & ~O_NONBLOCK) != 0) {
      const int code = errno;
      ::unlink(tmp.c_str());
      ::close(fd);
      return errno = code, -1;
    }
    return fd;
  }
}

}  // namespace

void write_file_atomically(const std::string& path, const void* data, std::size_t size, const std::string& what,
                           bool sync_directory) {
  namespace fs = std::filesystem;
  const std::string tmp = path + ".tmp";
  auto fail = [&](const std::string& reason) {
    throw OutputError("cannot write " + what + " '" + path + "': " + reason);
  };
  std::error_code ec;
  const fs::file_status target = fs::symlink_status(path, ec);
  if (fs::exists(target) && target.type() != fs::file_type::regular)
    fail(fs::is_directory(target) ? "it is a directory" : "it exists and is not a regular file");
  const int fd = open_own_temporary(tmp);
  if (fd < 0) {
    if (errno == EBUSY)
      fail("another process has been writing '" + tmp + "' for " + std::to_string(kWaitForOtherWriter.count()) + " s");
    fail(std::strerror(errno));  // nothing of ours to remove
  }
  // The lock lives while any descriptor of the open file does: a duplicate holds it from the
  // file's close (whose status is checked) until the file has its name.
  const int lock = ::fcntl(fd, F_DUPFD_CLOEXEC, 0);
  auto fail_removing = [&](int code, const std::string& prefix) {
    ::unlink(tmp.c_str());
    if (lock >= 0) ::close(lock);
    fail(prefix + std::strerror(code));
  };
  if (lock < 0) {
    const int code = errno;
    ::unlink(tmp.c_str());  // before the lock goes with fd
    ::close(fd);
    fail(std::strerror(code));
  }
  const char* bytes = static_cast<const char*>(data);
  for (std::size_t done = 0; done < size;) {
    const ssize_t n = ::write(fd, bytes + done, size - done);
    if (n < 0 && errno == EINTR) continue;
    if (n <= 0) {
      const int code = n < 0 ? errno : EIO;
      ::close(fd);
      fail_removing(code, "");
    }
    done += static_cast<std::size_t>(n);
  }
  if (::fsync(fd) != 0) {
    const int code = errno;
    ::close(fd);
    fail_removing(code, "");
  }
  if (::close(fd) != 0) fail_removing(errno, "");
  if (::rename(tmp.c_str(), path.c_str()) != 0) fail_removing(errno, "cannot rename '" + tmp + "' onto it: ");
  ::close(lock);
  if (!sync_directory) return;
  const fs::path parent = fs::path(path).parent_path();
  const std::string dir = parent.empty() ? "." : parent.string();
  const int dfd = ::open(dir.c_str(), O_RDONLY | O_DIRECTORY | O_CLOEXEC);
  if (dfd < 0) fail("cannot open its directory to sync it: " + std::string(std::strerror(errno)));
  const int rc = ::fsync(dfd);
  const int code = errno;
  ::close(dfd);
  if (rc != 0) fail("cannot sync its directory: " + std::string(std::strerror(code)));
}

}  // namespace halocline
