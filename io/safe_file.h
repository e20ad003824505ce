// Saving safely, the one way every writer saves: the bytes go to a temporary file beside
// the target; only a complete file, synced to disk, is renamed over the target, and the
// folder is synced so the new name survives a crash. A failure at any point — a full
// disk, a file-size limit, an exception in the writer — leaves the previous file as it
// was and removes the temporary.
//
//   SafeFile out(path);
//   write_everything_to(out.temp_path());   // may throw: `path` is untouched
//   out.commit();
#pragma once

#include <string>

namespace strata::io {

class SafeFile {
 public:
  explicit SafeFile(std::string target);
  // Removes the temporary file unless commit() renamed it.
  ~SafeFile();
  SafeFile(const SafeFile&) = delete;
  SafeFile& operator=(const SafeFile&) = delete;

  // Where the writer writes: a hidden name beside the target, unique per process and call.
  const std::string& temp_path() const { return temp_; }
  const std::string& target() const { return target_; }

  // Syncs the temporary file, renames it over the target and syncs the folder. Throws
  // IOError naming the target (and the temporary file) when any step fails.
  void commit();

 private:
  std::string target_;
  std::string temp_;
  bool committed_ = false;
};

// Writes `bytes` to `path` through a SafeFile; IOError naming `path` when that fails.
void write_file_atomically(const std::string& path, const std::string& bytes);

// Writes `bytes` to `path` (created or truncated, readable by this user alone) without
// syncing it: for a scratch file read back at once and removed, whose bytes need not
// survive a crash. IOError naming `path` when that fails.
void write_scratch_file(const std::string& path, const std::string& bytes);

}  // namespace strata::io
