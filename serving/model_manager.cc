#include "serving/model_manager.h"

#include <algorithm>
#include <cctype>
#include <chrono>
#include <iostream>

#include "serving/metrics.h"

namespace strata::serving {

namespace fs = std::filesystem;

std::string to_string(VersionState state) {
  switch (state) {
    case VersionState::kLoading:
      return "LOADING";
    case VersionState::kAvailable:
      return "AVAILABLE";
    case VersionState::kEnd:
      return "END";
  }
  return "UNKNOWN";
}

std::string to_string(const VersionPolicy& policy) {
  if (const auto* latest = std::get_if<LatestVersions>(&policy)) {
    return "latest " + std::to_string(latest->num_versions);
  }
  if (std::holds_alternative<AllVersions>(policy)) return "all";
  std::string out = "specific";
  const auto& versions = std::get<SpecificVersions>(policy).versions;
  for (std::size_t i = 0; i < versions.size(); ++i) out += (i ? ", " : " ") + std::to_string(versions[i]);
  return out;
}

std::string find_model_file(const fs::path& version_dir) {
  std::vector<std::string> keras, h5;
  std::error_code ec;
  // increment(ec), not a range-for: operator++ throws filesystem_error when the directory
  // changes or vanishes under the iterator.
  for (fs::directory_iterator it(version_dir, ec), end; !ec && it != end; it.increment(ec)) {
    const fs::directory_entry& entry = *it;
    std::error_code file_ec;
    if (!entry.is_regular_file(file_ec)) continue;
    const std::string name = entry.path().filename().string();
    if (name.ends_with(".keras")) keras.push_back(entry.path().string());
    if (name.ends_with(".h5") && !name.ends_with(".weights.h5")) h5.push_back(entry.path().string());
  }
  std::sort(keras.begin(), keras.end());
  std::sort(h5.begin(), h5.end());
  if (!keras.empty()) return keras.front();
  return h5.empty() ? "" : h5.front();
}

namespace {

// Numbered subdirectories of `base`.
std::vector<std::int64_t> list_versions(const fs::path& base) {
  std::vector<std::int64_t> versions;
  std::error_code ec;
  for (fs::directory_iterator it(base, ec), end; !ec && it != end; it.increment(ec)) {
    const fs::directory_entry& entry = *it;
    const std::string name = entry.path().filename().string();
    if (name.empty() || name.size() > 18 ||
        !std::all_of(name.begin(), name.end(), [](char c) { return std::isdigit(static_cast<unsigned char>(c)); })) {
      continue;
    }
    std::error_code dir_ec;
    if (entry.is_directory(dir_ec)) versions.push_back(std::stoll(name));
  }
  std::sort(versions.begin(), versions.end());
  return versions;
}

// The versions of `on_disk` (increasing) that `policy` serves.
std::vector<std::int64_t> wanted_versions(const VersionPolicy& policy, const std::vector<std::int64_t>& on_disk) {
  if (const auto* latest = std::get_if<LatestVersions>(&policy)) {
    const auto n = static_cast<std::size_t>(std::max<std::int64_t>(latest->num_versions, 1));
    return {on_disk.end() - static_cast<std::ptrdiff_t>(std::min(n, on_disk.size())), on_disk.end()};
  }
  if (std::holds_alternative<AllVersions>(policy)) return on_disk;
  std::vector<std::int64_t> wanted;
  const auto& specific = std::get<SpecificVersions>(policy).versions;
  for (std::int64_t v : on_disk) {
    if (std::find(specific.begin(), specific.end(), v) != specific.end()) wanted.push_back(v);
  }
  return wanted;
}

}  // namespace

ModelManager::ModelManager(ModelManagerOptions options) : options_(std::move(options)) { poll(); }

ModelManager::~ModelManager() = default;

void ModelManager::start_polling() {
  if (options_.file_system_poll_wait_seconds <= 0 || poller_.started()) return;
  poller_.start(options_.file_system_poll_wait_seconds, [this] {
    // Log a failed poll, keep serving what is loaded, and poll again next time.
    try {
      poll();
    } catch (const std::exception& e) {
      std::cerr << "strata-serve: model '" << options_.name << "': polling '" << options_.base_path
                << "' failed: " << e.what() << std::endl;
    } catch (...) {
      std::cerr << "strata-serve: model '" << options_.name << "': polling failed" << std::endl;
    }
  });
}

void ModelManager::set_status(std::int64_t version, VersionState state, const std::string& error,
                              const std::string& file, fs::file_time_type time) {
  std::lock_guard lock(mu_);
  Seen& s = seen_[version];
  const bool changed = s.status.state != state || s.status.error != error || s.status.version != version;
  s.status = {version, state, error};
  s.file = file;
  s.file_time = time;
  if (changed && !error.empty()) std::cerr << "strata-serve: model '" << options_.name << "': " << error << std::endl;
}

void ModelManager::poll() {
  std::lock_guard poll_lock(poll_mu_);
  const fs::path base(options_.base_path);
  std::error_code ec;
  if (!fs::is_directory(base, ec)) {
    std::lock_guard lock(mu_);
    scan_error_ = "model base path '" + options_.base_path + "' is not a directory";
    return;
  }
  const auto versions = list_versions(base);
  if (versions.empty()) {
    std::lock_guard lock(mu_);
    scan_error_ = "no versions under '" + options_.base_path + "': expected numbered directories such as '" +
                  (base / "1").string() + "' holding a .keras or .h5 file";
    return;
  }
  std::vector<std::int64_t> wanted;
  {
    std::lock_guard lock(mu_);
    wanted = wanted_versions(options_.version_policy, versions);
    scan_error_ = wanted.empty() ? "none of the versions on disk is one the version policy (" +
                                       to_string(options_.version_policy) + ") serves"
                                 : "";
  }
  // Highest first: the version `latest` requests get is there soonest.
  for (auto it = wanted.rbegin(); it != wanted.rend(); ++it) load(*it);
  std::vector<std::shared_ptr<Servable>> unloaded;  // released after the lock
  {
    std::lock_guard lock(mu_);
    // Versions no longer wanted go only when every wanted one is served: while one failed
    // to load, the versions served before keep serving.
    for (std::int64_t v : wanted) {
      if (!served_.contains(v)) return;
    }
    for (auto it = served_.begin(); it != served_.end();) {
      if (std::find(wanted.begin(), wanted.end(), it->first) != wanted.end()) {
        ++it;
        continue;
      }
      seen_[it->first].status.state = VersionState::kEnd;
      unloaded.push_back(std::move(it->second));
      it = served_.erase(it);
    }
  }
  for (const auto& old : unloaded) {
    std::cerr << "strata-serve: model '" << options_.name << "' version " << old->version() << " is unloaded"
              << std::endl;
  }
  // `unloaded` is released here; requests still holding those versions finish on them.
}

void ModelManager::load(std::int64_t version) {
  {
    std::lock_guard lock(mu_);
    if (served_.contains(version)) return;
  }
  const fs::path dir = fs::path(options_.base_path) / std::to_string(version);
  const std::string file = find_model_file(dir);
  if (file.empty()) {
    set_status(version, VersionState::kEnd,
               "version " + std::to_string(version) + ": no .keras or .h5 file in '" + dir.string() + "'");
    return;
  }
  std::error_code ec;
  const auto time = fs::last_write_time(file, ec);
  {
    std::lock_guard lock(mu_);
    auto it = seen_.find(version);
    if (it != seen_.end() && !it->second.status.error.empty() && it->second.file == file &&
        it->second.file_time == time) {
      return;  // failed before, unchanged since
    }
  }
  set_status(version, VersionState::kLoading, "");
  std::shared_ptr<Servable> loaded;
  try {
    loaded = Servable::load(version, file, options_.batching, options_.name);
    serving_metrics().record_load(dir.string(), true);
  } catch (const std::exception& e) {
    serving_metrics().record_load(dir.string(), false);
    set_status(version, VersionState::kEnd,
               "version " + std::to_string(version) + " failed to load '" + file + "': " + e.what(), file, time);
    return;
  }
  {
    std::lock_guard lock(mu_);
    served_[version] = std::move(loaded);
    seen_[version] = {{version, VersionState::kAvailable, ""}, {}, file};
  }
  std::cerr << "strata-serve: model '" << options_.name << "' version " << version << " is available (" << file
            << ")" << std::endl;
}

void ModelManager::update(VersionPolicy policy, std::map<std::string, std::int64_t> labels) {
  {
    std::lock_guard lock(mu_);
    options_.version_policy = std::move(policy);
    options_.version_labels = std::move(labels);
  }
  poll();
}

ModelManagerOptions ModelManager::options() const {
  std::lock_guard lock(mu_);
  return options_;
}

std::shared_ptr<Servable> ModelManager::latest() const {
  std::lock_guard lock(mu_);
  return served_.empty() ? nullptr : served_.rbegin()->second;
}

std::shared_ptr<Servable> ModelManager::version(std::int64_t version) const {
  std::lock_guard lock(mu_);
  auto it = served_.find(version);
  return it == served_.end() ? nullptr : it->second;
}

std::vector<std::int64_t> ModelManager::served_versions() const {
  std::lock_guard lock(mu_);
  std::vector<std::int64_t> out;
  for (const auto& [v, servable] : served_) out.push_back(v);
  return out;
}

std::optional<std::int64_t> ModelManager::label(const std::string& label) const {
  std::lock_guard lock(mu_);
  auto it = options_.version_labels.find(label);
  if (it == options_.version_labels.end()) return std::nullopt;
  return it->second;
}

std::vector<VersionStatus> ModelManager::statuses() const {
  std::lock_guard lock(mu_);
  std::vector<VersionStatus> out;
  for (const auto& [v, s] : seen_) out.push_back(s.status);
  return out;
}

std::string ModelManager::unavailable_reason() const {
  std::lock_guard lock(mu_);
  if (!served_.empty()) return "";
  if (!scan_error_.empty()) return scan_error_;
  for (auto it = seen_.rbegin(); it != seen_.rend(); ++it) {
    if (!it->second.status.error.empty()) return it->second.status.error;
  }
  return "no version is loaded yet";
}

}  // namespace strata::serving
