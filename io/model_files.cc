// io/'s ModelFiles (models/model_files.h): what Model's file methods and
// callbacks::BackupAndRestore reach, in Keras's weights files (io/weights_h5.h), whole-
// model files (io/saving.h, io/model_config.h) and Strata checkpoints (io/checkpoint.h).
// Defines model_files(), declared in models/model_files.h.
#include "core/error.h"
#include "io/checkpoint.h"
#include "io/custom_model.h"
#include "io/hdf5.h"
#include "io/model_config.h"
#include "io/safe_file.h"
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

// A file in the layout Strata wrote a subclass's .weights.h5 in before 2026-11-30 (the
// functional one): a "layers" group and no model "vars" group beside it.
bool earlier_subclass_layout(const std::string& path) {
  const io::h5::File file(path, io::h5::File::Mode::read);
  return file.has_group("layers") && !file.has_group("vars");
}

// A registered Model subclass's Keras 3 weights file: the layout of its .keras file's
// weights, as Keras 3's save_weights writes it (io/saving.h).
bool subclass_weights_file(const Model& model, const std::string& path) {
  return path.ends_with(".weights.h5") && io::saved_as_subclass(model);
}

class KerasModelFiles : public ModelFiles {
 public:
  void save_weights(const Model& model, const std::string& path) const override {
    if (subclass_weights_file(model, path)) {
      io::SafeFile temp(path);
      try {
        io::write_keras3_model_weights(model, temp.temp_path(), path);
      } catch (const IOError& e) {
        throw IOError("cannot save weights to '" + path + "': " + e.what());
      }
      temp.commit();
      return;
    }
    io::save_weights_h5(path, layer_weights(model));
  }
  void load_weights(const Model& model, const std::string& path, const LoadWeightsOptions& options) const override {
    if (subclass_weights_file(model, path)) {
      if (options.by_name || options.skip_mismatch) {
        throw ValueError("load_weights('" + path + "'): by_name and skip_mismatch are not supported for a Model "
                         "subclass's .weights.h5 (its layers are found by attribute, as Keras finds them)");
      }
      // Strata before 2026-11-30 wrote a subclass's .weights.h5 in the functional layout,
      // layers/<key>/vars and nothing else: such a file still loads, its layers found by key.
      // Keras 3's layout, which Strata writes now, always has the model's own "vars" group.
      if (!earlier_subclass_layout(path)) {
        io::load_keras3_model_weights(model, path, path);
        return;
      }
      io::load_weights_h5(path, layer_weights(model), options);
      return;
    }
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
