// ModelRegistry: the models a server serves, by name (TensorFlow Serving's ServerCore).
// One model from --model_name and --model_base_path, or the models of a
// --model_config_file (serving/model_config_file.h), which configure() applies again each
// time the file changes: models it adds are loaded, models it drops are unloaded (requests
// holding their versions finish on them), a model whose base path or batching changed is
// replaced, and one whose version policy or labels changed is updated in place.
//
// The REST handler and the gRPC services look models up here (serving/servable_lookup.h);
// every method is thread-safe.
#pragma once

#include <map>
#include <memory>
#include <mutex>
#include <shared_mutex>
#include <string>
#include <vector>

#include "serving/model_manager.h"

namespace strata::serving {

class ModelRegistry {
 public:
  ModelRegistry() = default;
  // One model, polled once (as ModelManager's constructor) before this returns.
  explicit ModelRegistry(ModelManagerOptions model);
  ModelRegistry(const ModelRegistry&) = delete;
  ModelRegistry& operator=(const ModelRegistry&) = delete;

  // Makes these the models served (their names unique; throws ValueError otherwise, and
  // changes nothing). New models are loaded before this returns.
  void configure(std::vector<ModelManagerOptions> models);
  // Each model's polling of its base path (and every model configure() adds later).
  void start_polling();

  // The model named `name`; null when there is none.
  std::shared_ptr<ModelManager> find(const std::string& name) const;
  std::vector<std::string> names() const;

 private:
  std::mutex configure_mu_;  // one configure() at a time
  mutable std::shared_mutex mu_;
  std::map<std::string, std::shared_ptr<ModelManager>> models_;
  bool polling_ = false;
};

}  // namespace strata::serving
