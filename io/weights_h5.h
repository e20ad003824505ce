// Weights-only files in Keras's HDF5 layouts, for a model's layers.
//
// The path picks the layout, as in Keras:
// - "*.weights.h5": Keras 3 `save_weights` layout: `/layers/<key>/vars/0`, `1`, ... in the
//   layer's variable order; the `vars` group carries attr `name` = the layer name. <key> is
//   what Keras 3 uses: snake_case(class name) made unique by position (`dense`, `dense_1`,
//   ...) when `class_name` is given, else the layer name.
// - any other name: tf.keras 2 `save_weights` layout: root attrs `layer_names`, `backend`,
//   `keras_version`; one group per layer with attr `weight_names` ("dense/kernel:0") and
//   the datasets at `<layer>/<weight_name>`. Loading also accepts a full-model .h5 file
//   (weights under `/model_weights`).
//
// Pass every layer of Keras's `model.layers`, in order, weightless ones included (the keys
// count classes by position): a Sequential's list leaves out its InputLayer, a functional
// model's includes it (key `input_layer`), as in Keras.
//
// Saving refuses two weights with one name and two layers with one name (ValueError),
// and writes atomically: a temporary file in the same directory renamed over `path`, so
// a failed save leaves a previous file intact. Loading matches layers by name (Keras 3
// layout: by key, then by the `name` attr), weights by order within a layer; it checks
// everything (counts, shapes, dtypes) before assigning anything, so a failed load leaves
// the model unchanged.
#pragma once

#include <string>
#include <vector>

#include "core/variable.h"
#include "models/model_files.h"

namespace strata::io {

struct LayerWeights {
  std::string layer_name;
  // In Keras's order for the layer: trainable then non-trainable (BN: gamma, beta,
  // moving_mean, moving_variance).
  std::vector<Variable> weights;
  // Keras class name ("Dense", "BatchNormalization"); only the `.weights.h5` layout uses
  // it (for the <key>). Leave empty to key layers by name.
  std::string class_name = {};
};

void save_weights_h5(const std::string& path, const std::vector<LayerWeights>& layers);
// Keras's load_weights options (by_name, skip_mismatch): Model::load_weights's, declared
// in models/model_files.h.
using LoadWeightsOptions = strata::LoadWeightsOptions;
void load_weights_h5(const std::string& path, const std::vector<LayerWeights>& layers,
                     const LoadWeightsOptions& options = {});

// Keras 3's keys for `layers/<key>` in `.weights.h5`, in order: snake_case(class_name)
// uniquified by position (`dense`, `dense_1`, `conv2d`, `batch_normalization`, ...), or
// the layer name where class_name is empty.
std::vector<std::string> keras3_layer_keys(const std::vector<LayerWeights>& layers);

// Keras's naming.to_snake_case: "BatchNormalization" -> "batch_normalization",
// "Conv2D" -> "conv2d", "LSTM" -> "lstm".
std::string to_snake_case(const std::string& class_name);

// What the tf.keras 2 layout writes as root attr `keras_version` (the layout it follows).
inline constexpr const char* kKeras2LayoutVersion = "2.15.0";

}  // namespace strata::io
