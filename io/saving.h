// Whole-model files, as keras.models.load_model / model.save:
// - `.h5` (any HDF5 file with `model_config`): Keras 2 standalone, tf.keras 2.x and
//   Keras 3 "legacy h5" dialects; saved in the tf.keras 2 layout (io/keras_h5.cc).
// - `.keras` (ZIP with config.json, metadata.json, model.weights.h5): Keras 3 (io/keras_zip.cc).
// The format of a file being loaded is told by its signature, not its extension. A
// `training_config` / `compile_config` becomes a compiled model when its loss and metrics
// are supported (else the model loads uncompiled, with a warning on stderr); its
// optimizer is read by Keras class with its whole config, and one that Strata cannot
// honour (an unknown class, use_ema, a malformed config) is an error naming the file and
// the key: {.compile = false} loads such a model without it (io/optimizer_config.h).
// An .h5 file's `optimizer_weights` (Keras 2 / tf.keras 2 order) then restores the
// optimizer's iteration count and slots when they map onto the compiled optimizer's by
// order and shape; else the optimizer starts fresh, with one warning line. `.h5` saving
// writes them in the tf.keras 2 layout ("Adam/iter:0", every m, then every v).
#pragma once

#include <string>

#include "io/layer_config.h"
#include "io/weights_h5.h"
#include "models/model.h"

namespace strata::models {

struct LoadOptions {
  bool compile = true;
};

Model load_model(const std::string& path, const LoadOptions& options = {});
// ".keras": Keras 3 zip; anything else: tf.keras 2 full-model HDF5.
void save_model(const Model& model, const std::string& path);

}  // namespace strata::models

namespace strata::io {

// What the file says about itself (for strata-inspect).
struct ModelFileInfo {
  std::string format;         // "keras3-zip", "keras2-h5", "keras3-legacy-h5"
  std::string keras_version;  // "" when absent
  std::string backend;
  std::string date_saved;
  json config;           // the model config object
  json training_config;  // null when absent
};
ModelFileInfo inspect_model_file(const std::string& path);

Model load_model_h5(const std::string& path, bool compile);
void save_model_h5(const Model& model, const std::string& path);
Model load_model_keras(const std::string& path, bool compile);
// Keras 3 layout weights (layers/<key>/vars/<i>, nested models recursed) into `model`.
void load_keras3_weights_file(const Model& model, const std::string& h5_path,
                              const std::string& source);
void save_model_keras(const Model& model, const std::string& path);
// A registered Model subclass's `.weights.h5` as Keras 3's save_weights writes it: the
// layout of a .keras file's model.weights.h5 (its layers where Keras's attribute walk
// reaches them, the model's `vars`, and a compiled model's optimizer/vars); `target` names
// the file for messages. load_keras3_model_weights reads one back (a compiled model's
// optimizer state too).
void write_keras3_model_weights(const Model& model, const std::string& h5_path, const std::string& target);
void load_keras3_model_weights(const Model& model, const std::string& h5_path, const std::string& source);

// Compiles `model` from a Keras training_config / compile_config when its loss and
// metrics are supported; returns false (and says why in `why`) otherwise. Its optimizer
// must be one Strata can honour: else this throws, naming `where` (the file) and the
// class or key (io/optimizer_config.h).
bool compile_from_config(Model& model, const json& training_config, const std::string& where,
                         std::string& why);
// The training_config of a compiled model (loss, metrics, optimizer_config), or null.
json training_config_of(const Model& model);

// Layers of `model.layers` with their weights, as the weights files take them.
std::vector<LayerWeights> model_layer_weights(const Model& model);

// Throws a ValueError for files that cannot be Keras models (Git LFS pointers, text...),
// saying what the file looks like; returns "hdf5" or "zip".
std::string detect_model_format(const std::string& path);

}  // namespace strata::io
