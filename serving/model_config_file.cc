#include "serving/model_config_file.h"

#include <iostream>

#include "core/error.h"
#include "serving/proto/model_server_config.pb.h"
#include "serving/text_proto.h"

namespace strata::serving {

namespace tfs = tensorflow::serving;

namespace {

VersionPolicy policy_of(const tfs::ModelConfig& config) {
  const std::string where = "model '" + config.name() + "': model_version_policy";
  const auto& policy = config.model_version_policy();
  switch (policy.policy_choice_case()) {
    case tfs::FileSystemStoragePathSourceConfig::ServableVersionPolicy::kAll:
      return AllVersions{};
    case tfs::FileSystemStoragePathSourceConfig::ServableVersionPolicy::kSpecific: {
      if (policy.specific().versions().empty()) throw ValueError(where + " specific names no versions");
      SpecificVersions specific;
      for (std::int64_t v : policy.specific().versions()) {
        if (v < 0) throw ValueError(where + " specific names version " + std::to_string(v) + ", below 0");
        specific.versions.push_back(v);
      }
      return specific;
    }
    case tfs::FileSystemStoragePathSourceConfig::ServableVersionPolicy::kLatest:
      return LatestVersions{.num_versions = std::max<std::int64_t>(policy.latest().num_versions(), 1)};
    default:
      return LatestVersions{};
  }
}

}  // namespace

std::vector<ModelManagerOptions> parse_model_config(const std::string& text, const ModelManagerOptions& defaults) {
  tfs::ModelServerConfig config;
  if (const std::string error = parse_text_proto(text, config); !error.empty()) {
    throw ValueError("the model config is not a ModelServerConfig in protobuf's text format: " + error);
  }
  if (!config.has_model_config_list()) throw ValueError("the model config has no model_config_list");
  std::vector<ModelManagerOptions> models;
  for (const tfs::ModelConfig& c : config.model_config_list().config()) {
    if (c.name().empty()) throw ValueError("a config in model_config_list has no name");
    const std::string where = "model '" + c.name() + "'";
    if (c.base_path().empty()) throw ValueError(where + " has no base_path");
    if (!c.model_platform().empty() && c.model_platform() != "tensorflow" && c.model_platform() != "keras") {
      throw ValueError(where + ": model_platform '" + c.model_platform() +
                       "' is not one strata-serve serves (it serves Keras files: 'tensorflow' or 'keras')");
    }
    if (c.model_type() == tfs::OTHER) throw ValueError(where + ": model_type OTHER is not a Keras model");
    ModelManagerOptions m = defaults;
    m.name = c.name();
    m.base_path = c.base_path();
    m.version_policy = policy_of(c);
    m.version_labels.clear();
    for (const auto& [label, version] : c.version_labels()) {
      if (label.empty()) throw ValueError(where + " has an empty version label");
      m.version_labels[label] = version;
    }
    for (const auto& existing : models) {
      if (existing.name == m.name) throw ValueError("the model name '" + m.name + "' is configured twice");
    }
    models.push_back(std::move(m));
  }
  if (models.empty()) throw ValueError("the model config's model_config_list configures no model");
  return models;
}

std::vector<ModelManagerOptions> read_model_config_file(const std::string& path, const ModelManagerOptions& defaults) {
  const std::string text = read_config_text(path, "the model config file");
  try {
    return parse_model_config(text, defaults);
  } catch (const ValueError& e) {
    throw ValueError("'" + path + "': " + e.what());
  }
}

ModelConfigFilePoller::ModelConfigFilePoller(ModelRegistry& models, std::string path, int poll_wait_seconds,
                                             ModelManagerOptions defaults)
    : models_(models), path_(std::move(path)), defaults_(std::move(defaults)) {
  poll();
  if (poll_wait_seconds <= 0) return;
  thread_.start(poll_wait_seconds, [this] {
    // Report a failed read and keep serving what is configured.
    try {
      poll();
    } catch (const std::exception& e) {
      std::cerr << "strata-serve: --model_config_file: " << e.what() << "; the models served are unchanged"
                << std::endl;
    }
  });
}

ModelConfigFilePoller::~ModelConfigFilePoller() = default;

bool ModelConfigFilePoller::poll() {
  std::lock_guard polling(poll_mu_);
  const std::string text = read_config_text(path_, "the model config file");
  if (text == applied_) return false;
  applied_ = text;  // a file refused is reported once, not at every poll
  std::vector<ModelManagerOptions> models;
  try {
    models = parse_model_config(text, defaults_);
  } catch (const ValueError& e) {
    throw ValueError("'" + path_ + "': " + e.what());
  }
  models_.configure(std::move(models));
  return true;
}

}  // namespace strata::serving
