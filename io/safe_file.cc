#include "io/safe_file.h"

#include <fcntl.h>
#include <unistd.h>

#include <atomic>
#include <cerrno>
#include <cstring>
#include <filesystem>

#include "core/error.h"

namespace strata::io {

namespace fs = std::filesystem;

namespace {

// fsync of a file or folder by name; errno's message, or "" on success.
std::string sync_path(const std::string& path, bool folder) {
  const int fd = ::open(path.c_str(), folder ? (O_RDONLY | O_DIRECTORY) : O_RDONLY);
  if (fd < 0) return std::strerror(errno);
  const int status = ::fsync(fd);
  const int err = errno;
  ::close(fd);
  // Some file systems cannot sync a folder (EINVAL): the rename itself is what matters.
  if (status != 0 && !(folder && err == EINVAL)) return std::strerror(err);
  return "";
}

}  // namespace

SafeFile::SafeFile(std::string target) : target_(std::move(target)) {
  static std::atomic<unsigned> counter{0};
  const fs::path t(target_);
  temp_ = (t.parent_path() / ("." + t.filename().string() + ".tmp" + std::to_string(::getpid()) + "_" +
                              std::to_string(counter++)))
              .string();
}

SafeFile::~SafeFile() {
  if (committed_) return;
  std::error_code ec;
  fs::remove(temp_, ec);
}

void SafeFile::commit() {
  // The bytes must be on disk before the name points at them.
  if (std::string err = sync_path(temp_, false); !err.empty()) {
    throw IOError("cannot save '" + target_ + "': syncing the temporary file '" + temp_ + "' failed: " + err);
  }
  std::error_code ec;
  fs::rename(temp_, target_, ec);
  if (ec) {
    throw IOError("cannot save '" + target_ + "': renaming the temporary file '" + temp_ +
                  "' over it failed: " + ec.message());
  }
  committed_ = true;
  const fs::path folder = fs::path(target_).parent_path();
  if (std::string err = sync_path(folder.empty() ? "." : folder.string(), true); !err.empty()) {
    throw IOError("saved '" + target_ + "', but syncing its folder failed: " + err);
  }
}

namespace {

// Writes every byte to fd, then closes it; IOError naming `path` (and `what`, its role) when
// either fails.
void write_and_close(int fd, const std::string& bytes, const std::string& path, const std::string& what) {
  std::size_t done = 0;
  while (done < bytes.size()) {
    const ssize_t n = ::write(fd, bytes.data() + done, bytes.size() - done);
    if (n < 0 && errno == EINTR) continue;
    if (n <= 0) {
      const int err = n < 0 ? errno : ENOSPC;
      ::close(fd);
      throw IOError("cannot write " + what + "'" + path + "': " + std::strerror(err) + " after " +
                    std::to_string(done) + " of " + std::to_string(bytes.size()) + " bytes");
    }
    done += static_cast<std::size_t>(n);
  }
  if (::close(fd) != 0) throw IOError("cannot write " + what + "'" + path + "': " + std::strerror(errno));
}

}  // namespace

void write_file_atomically(const std::string& path, const std::string& bytes) {
  SafeFile out(path);
  const int fd = ::open(out.temp_path().c_str(), O_WRONLY | O_CREAT | O_TRUNC, 0644);
  if (fd < 0) {
    throw IOError("cannot write '" + path + "': cannot create '" + out.temp_path() + "': " + std::strerror(errno));
  }
  write_and_close(fd, bytes, path, "");
  out.commit();
}

void write_scratch_file(const std::string& path, const std::string& bytes) {
  const int fd = ::open(path.c_str(), O_WRONLY | O_CREAT | O_TRUNC, 0600);
  if (fd < 0) throw IOError("cannot create the scratch file '" + path + "': " + std::strerror(errno));
  write_and_close(fd, bytes, path, "the scratch file ");
}

}  // namespace strata::io
