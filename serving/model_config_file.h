// --model_config_file: TensorFlow Serving's ModelServerConfig in protobuf's text format
// (serving/proto/model_server_config.proto), read with protobuf's own text parser:
//
//   model_config_list {
//     config {
//       name: "mlp"  base_path: "/models/mlp"  model_platform: "tensorflow"
//       model_version_policy { specific { versions: 1 versions: 2 } }
//       version_labels { key: "stable" value: 1 }
//       version_labels { key: "canary" value: 2 }
//     }
//     config { name: "cnn"  base_path: "/models/cnn" }
//   }
//
// The same file configures TensorFlow Serving. model_platform may be empty, "tensorflow" or
// "keras" (strata-serve serves Keras files whatever it says, as long as it is not another
// framework's); fields strata-serve does not have (logging_config, custom_model_config)
// are refused by the parser, naming them. With --model_config_file_poll_wait_seconds the
// file is read again that often and ModelRegistry::configure applies what changed.
#pragma once

#include <mutex>
#include <string>
#include <vector>

#include "serving/model_registry.h"
#include "serving/periodic_task.h"

namespace strata::serving {

// The models `text` configures, each from `defaults` (polling, batching) with the file's
// name, base path, version policy and labels. Throws ValueError saying what and where
// (line:column for text the parser refuses).
std::vector<ModelManagerOptions> parse_model_config(const std::string& text, const ModelManagerOptions& defaults = {});
// The same for the file at `path`; throws IOError when it can't be read.
std::vector<ModelManagerOptions> read_model_config_file(const std::string& path,
                                                        const ModelManagerOptions& defaults = {});

// Configures `models` from the file, then (poll_wait_seconds > 0) reads it again that often
// and applies it when it changed. The first read throws what reading and parsing throw; a
// later file that fails is reported and the models served stay as they are.
class ModelConfigFilePoller {
 public:
  ModelConfigFilePoller(ModelRegistry& models, std::string path, int poll_wait_seconds, ModelManagerOptions defaults);
  ~ModelConfigFilePoller();
  ModelConfigFilePoller(const ModelConfigFilePoller&) = delete;
  ModelConfigFilePoller& operator=(const ModelConfigFilePoller&) = delete;

  // Reads the file now; true when it changed and was applied. Throws as the first read.
  bool poll();

 private:
  ModelRegistry& models_;
  std::string path_;
  ModelManagerOptions defaults_;
  std::mutex poll_mu_;  // one poll at a time
  std::string applied_;  // the text last applied (or refused)
  PeriodicTask thread_;  // last: stopped before the rest goes
};

}  // namespace strata::serving
