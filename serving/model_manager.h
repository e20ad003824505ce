// ModelManager: one model's versions on disk, in TensorFlow Serving's layout:
//
//   MODEL_BASE_PATH/1/model.keras
//   MODEL_BASE_PATH/2/model.h5
//
// Each version is a directory named by a number holding one .keras or .h5 file (a .keras
// file is preferred when there are both; *.weights.h5 files are not models). Which versions
// are served is the model's version policy, TensorFlow Serving's: the latest N (by default
// the highest one), all, or specific numbers. poll() scans the directory, loads each version
// the policy wants that is not served yet, and then unloads those it no longer wants, so a
// new latest version is swapped in without a gap: requests that already hold an old version
// finish on it (shared_ptr), new requests get the new one. A version that fails to load is
// reported with its error in the status, and the versions served before stay until every
// version the policy wants is loaded; it is tried again when its file changes. Copy a new
// version in under another name and rename it into place, so a poll never sees half a
// file. Version labels ("stable" -> 2) name versions.
#pragma once

#include <cstdint>
#include <filesystem>
#include <map>
#include <memory>
#include <mutex>
#include <optional>
#include <string>
#include <variant>
#include <vector>

#include "serving/batcher.h"
#include "serving/periodic_task.h"
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

// TensorFlow Serving's ServableVersionPolicy: which of the versions on disk are served.
struct LatestVersions {
  std::int64_t num_versions = 1;  // the highest N
  bool operator==(const LatestVersions&) const = default;
};
struct AllVersions {
  bool operator==(const AllVersions&) const = default;
};
struct SpecificVersions {
  std::vector<std::int64_t> versions;  // those of them on disk
  bool operator==(const SpecificVersions&) const = default;
};
using VersionPolicy = std::variant<LatestVersions, AllVersions, SpecificVersions>;
std::string to_string(const VersionPolicy& policy);  // "latest 1", "all", "specific 1, 3"

struct ModelManagerOptions {
  std::string name;
  std::string base_path;
  // Seconds between polls of base_path (TensorFlow Serving's flag); 0: poll once at start.
  int file_system_poll_wait_seconds = 1;
  std::optional<BatchingParameters> batching;  // server-side batching when set
  VersionPolicy version_policy = LatestVersions{};
  std::map<std::string, std::int64_t> version_labels;  // label -> version
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
  // Name, base path, polling and batching (fixed); the policy and labels as last updated.
  ModelManagerOptions options() const;
  // Changes the version policy and the labels, then polls: versions the new policy wants
  // are loaded before those it no longer wants are unloaded.
  void update(VersionPolicy policy, std::map<std::string, std::int64_t> labels);

  // The highest version served; null when none is loaded.
  std::shared_ptr<Servable> latest() const;
  // That version if it is served; null otherwise.
  std::shared_ptr<Servable> version(std::int64_t version) const;
  // The versions served, in increasing order.
  std::vector<std::int64_t> served_versions() const;
  // The version a label names; empty when the model has no such label.
  std::optional<std::int64_t> label(const std::string& label) const;
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
  // Loads `version` unless it is served or failed before on the file it has now.
  void load(std::int64_t version);

  ModelManagerOptions options_;  // version_policy and version_labels under mu_
  mutable std::mutex mu_;
  std::map<std::int64_t, std::shared_ptr<Servable>> served_;
  std::map<std::int64_t, Seen> seen_;
  std::string scan_error_;

  std::mutex poll_mu_;  // one poll at a time
  PeriodicTask poller_;  // last: stopped before the rest goes
};

// The model file in a version directory: the first .keras file by name, else the first
// .h5 that is not a .weights.h5; empty when there is none.
std::string find_model_file(const std::filesystem::path& version_dir);

}  // namespace strata::serving
