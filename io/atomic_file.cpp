#include "io/atomic_file.hpp"

#include <fcntl.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>
#include <filesystem>

#include "io/output_error.hpp"

namespace halocline {

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
  fs::remove(tmp, ec);  // removes a symlink itself, not what it points at
  if (ec) fail("cannot remove the old '" + tmp + "': " + ec.message());
  const int fd = ::open(tmp.c_str(), O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC, 0666);
  if (fd < 0) fail(std::strerror(errno));  // nothing of ours to remove (EEXIST: another writer's)
  auto fail_removing = [&](int code, const std::string& prefix) {
    ::unlink(tmp.c_str());
    fail(prefix + std::strerror(code));
  };
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
