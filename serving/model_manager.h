// ModelManager: one model's versions on disk, in TensorFlow Serving's layout:
//
//   MODEL_BASE_PATH/1/model.keras
//   MODEL_BASE_PATH/2/model.h5        <- the highest version is served
//
// Each version is a directory named by a number holding one .keras or .h5 file (a .keras
// file is preferred when there are both; *.weights.h5 files are not models). poll() scans
// the directory; when the highest version is not the one served, it loads it and swaps it
// in: requests that already hold the old version finish on it (shared_ptr), new requests
// get the new one. A version that fails to load is reported with its error in the status
// and the served version stays; it is tried again when its file changes. Copy a new
// version in under another name and rename it into place, so a poll never sees half a file.
#pragma once

#include <condition_variable>
#include <cstdint>
#include <filesystem>
#include <map>
#include <memory>
#include <mutex>
#include <optional>
#include <string>
#include <thread>
#include <vector>

#include "serving/batcher.h"
#include "serving/servable.h"

namespace strata::serving {

// TensorFlow Serving's ManagerState names.
enum class VersionState { kLoading, kAvailable, kEnd };
std::string to_string(VersionState state);

struct VersionStatus {
  std::int64_t version = 0;
  VersionState state = VersionState::kEnd;
  std::string error;  // empty: OK
};

struct ModelManagerOptions {
  std::string name;
  std::string base_path;
  // Seconds between polls of base_path (TensorFlow Serving's flag); 0: poll once at start.
  int file_system_poll_wait_seconds = 1;
  std::optional<BatchingParameters> batching;  // server-side batching when set
};

class ModelManager {
 public:
  // Polls once, synchronously: the highest version is loaded (or its error recorded)
  // when this returns. start_polling() then keeps watching.
  explicit ModelManager(ModelManagerOptions options);
  ~ModelManager();
  ModelManager(const ModelManager&) = delete;
  ModelManager& operator=(const ModelManager&) = delete;

  void start_polling();
  void poll();

  const std::string& name() const { return options_.name; }
  const ModelManagerOptions& options() const { return options_; }
  // The served version; null when none is loaded.
  std::shared_ptr<Servable> latest() const;
  // That version if it is the one served; null otherwise.
  std::shared_ptr<Servable> version(std::int64_t version) const;
  // Every version seen, in increasing order.
  std::vector<VersionStatus> statuses() const;
  // Why nothing is served (base path missing, no versions, a failed load); empty when a
  // version is served.
  std::string unavailable_reason() const;

 private:
  struct Seen {
    VersionStatus status;
    std::filesystem::file_time_type file_time{};  // of the file a failed load read
    std::string file;
  };
  void set_status(std::int64_t version, VersionState state, const std::string& error,
                  const std::string& file = "", std::filesystem::file_time_type time = {});

  ModelManagerOptions options_;
  mutable std::mutex mu_;
  std::shared_ptr<Servable> served_;
  std::map<std::int64_t, Seen> seen_;
  std::string scan_error_;

  std::mutex poll_mu_;  // one poll at a time
  std::mutex stop_mu_;
  std::condition_variable stop_cv_;
  bool stopping_ = false;
  std::thread poller_;
};

// The model file in a version directory: the first .keras file by name, else the first
// .h5 that is not a .weights.h5; empty when there is none.
std::string find_model_file(const std::filesystem::path& version_dir);

}  // namespace strata::serving
