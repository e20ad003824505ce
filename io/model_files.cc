// io/'s ModelFiles (models/model_files.h): what Model's file methods and
// callbacks::BackupAndRestore reach, in Keras's weights files (io/weights_h5.h), whole-
// model files (io/saving.h, io/model_config.h) and Strata checkpoints (io/checkpoint.h).
// Defines model_files(), declared in models/model_files.h.
#include "io/checkpoint.h"
#include "io/model_config.h"
#include "io/saving.h"
#include "io/weights_h5.h"
#include "models/model_files.h"

namespace strata {

namespace {

// Model::save_weights's layers: Keras's model.layers without the InputLayers.
std::vector<io::LayerWeights> layer_weights(const Model& m) {
  std::vector<io::LayerWeights> out;
  for (const auto& l : m.layers()) {
    if (l.class_name() == "InputLayer") continue;
    out.push_back({l.name(), l.weights(), l.class_name()});
  }
  return out;
}

class KerasModelFiles : public ModelFiles {
 public:
  void save_weights(const Model& model, const std::string& path) const override {
    io::save_weights_h5(path, layer_weights(model));
  }
  void load_weights(const Model& model, const std::string& path, const LoadWeightsOptions& options) const override {
    io::load_weights_h5(path, layer_weights(model), options);
  }
  void save_model(const Model& model, const std::string& path) const override { models::save_model(model, path); }
  std::string to_json(const Model& model) const override { return models::to_json(model); }
  void save_checkpoint(const Model& model, const std::string& path, const FitState& position) const override {
    io::save_checkpoint(path, model, io::checkpoint_state(position));
  }
  FitState load_checkpoint(const Model& model, const std::string& path) const override {
    return io::fit_state(io::load_checkpoint(path, model));
  }
};

}  // namespace

const ModelFiles& model_files() {
  static const KerasModelFiles files;
  return files;
}

}  // namespace strata
