// ModelFiles: the files models/ reads and writes (weights, whole models, training
// checkpoints), as an interface that io/ implements, so that models/ includes no io/
// header. Model::save_weights, load_weights, save and to_json, and
// callbacks::BackupAndRestore, go through model_files().
//
// The implementation is io/model_files.cc (Keras HDF5 and .keras files, Strata
// checkpoints: io/weights_h5.h, io/saving.h, io/checkpoint.h), which also defines
// model_files() to return it. The library is one shared object, so the binding is made
// when it links, explicitly, as op registration is (core/ops/register.h): no static
// initializer can be dropped, and a library built without io/ would fail to link rather
// than fail at run time.
#pragma once

#include <string>

#include "models/fit_state.h"

namespace strata {

class Model;

// Keras's load_weights options. .h5 files load layer by layer in order unless by_name;
// skip_mismatch leaves layers that don't fit as they are, with a warning (for .h5 files
// only together with by_name, as in Keras). io::LoadWeightsOptions is this type.
struct LoadWeightsOptions {
  bool by_name = false;
  bool skip_mismatch = false;
};

class ModelFiles {
 public:
  virtual ~ModelFiles() = default;
  // Weights-only files in Keras's HDF5 layouts (".weights.h5": Keras 3; other ".h5":
  // tf.keras 2), the model's layers in order.
  virtual void save_weights(const Model& model, const std::string& path) const = 0;
  virtual void load_weights(const Model& model, const std::string& path,
                            const LoadWeightsOptions& options) const = 0;
  // Whole model: ".keras" (Keras 3 zip) or else ".h5" (tf.keras 2 layout).
  virtual void save_model(const Model& model, const std::string& path) const = 0;
  // Keras 3 JSON config.
  virtual std::string to_json(const Model& model) const = 0;
  // A training checkpoint: the model's weights, the compiled optimizer's variables (the
  // weights only when the model is not compiled) and where the fit stands. load_checkpoint
  // restores the variables and returns the position.
  virtual void save_checkpoint(const Model& model, const std::string& path, const FitState& position) const = 0;
  virtual FitState load_checkpoint(const Model& model, const std::string& path) const = 0;
};

// The ModelFiles in use: io/'s (defined in io/model_files.cc).
const ModelFiles& model_files();

}  // namespace strata
