#include "serving/model_config_file.h"

#include <google/protobuf/io/tokenizer.h>
#include <google/protobuf/text_format.h>

#include <fstream>
#include <iostream>
#include <sstream>

#include "core/error.h"
#include "serving/proto/model_server_config.pb.h"

namespace strata::serving {

namespace tfs = tensorflow::serving;

namespace {

// The parser's first error, with its line and column (1-based, as editors count).
class FirstError : public google::protobuf::io::ErrorCollector {
 public:
  void AddError(int line, google::protobuf::io::ColumnNumber column, const std::string& message) override {
    if (error.empty()) error = "line " + std::to_string(line + 1) + ":" + std::to_string(column + 1) + ": " + message;
  }
  std::string error;
};

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

std::string read_text(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  if (!in) throw IOError("can't read the model config file '" + path + "'");
  std::stringstream text;
  text << in.rdbuf();
  if (in.bad()) throw IOError("can't read the model config file '" + path + "'");
  return text.str();
}

}  // namespace

std::vector<ModelManagerOptions> parse_model_config(const std::string& text, const ModelManagerOptions& defaults) {
  tfs::ModelServerConfig config;
  google::protobuf::TextFormat::Parser parser;
  FirstError errors;
  parser.RecordErrorsTo(&errors);
  if (!parser.ParseFromString(text, &config)) {
    throw ValueError("the model config is not a ModelServerConfig in protobuf's text format: " +
                     (errors.error.empty() ? std::string("it could not be parsed") : errors.error));
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
  const std::string text = read_text(path);
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
  const std::string text = read_text(path_);
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
