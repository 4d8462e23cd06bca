// Writing a whole file so that its name holds either the old file or the complete new one,
// never a part, and never through a link planted where the temporary goes: the one way
// every file of a run reaches the disk (snapshots, checkpoints, reports, probe caches,
// bench tables).
#pragma once

#include <cstddef>
#include <string>

namespace halocline {

// Writes `size` bytes as the file `path`: into "<path>.tmp", this writer's alone (flock:
// another process writing the same path finishes first, waited for up to 120 s; O_NOFOLLOW,
// and an entry there that is not a plain file of one link is removed: never written through
// a link planted there), written, fsync'ed and closed with every status checked (full disks
// and quotas often report only at fsync or close), then renamed onto `path`, which must be
// absent or a regular file (a directory, device, FIFO or link there is never replaced); with
// `sync_directory`, the directory is fsync'ed so the rename survives a power loss. Any
// failure removes the temporary and throws OutputError (exit code 4): "cannot write WHAT
// 'PATH': REASON", REASON the operating system's.
void write_file_atomically(const std::string& path, const void* data, std::size_t size, const std::string& what,
                           bool sync_directory = false);
inline void write_file_atomically(const std::string& path, const std::string& text, const std::string& what,
                                  bool sync_directory = false) {
  write_file_atomically(path, text.data(), text.size(), what, sync_directory);
}

}  // namespace halocline
