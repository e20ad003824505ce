// Models <-> Keras JSON configs. Writes Keras 3's schema (module, class_name, config,
// registered_name, build_config; functional inbound_nodes as {"args", "kwargs"} with
// __keras_tensor__ references) or, for tf.keras 2 `.h5` files, the legacy Keras 2 schema.
// Reads every dialect: Keras 2 (bare-list or dict Sequential configs, Sequential without
// InputLayer, batch_input_shape, list-style inbound_nodes, class "Model"), tf.keras 2.13+
// (module keys around Keras 2 content) and Keras 3 (batch_shape, DTypePolicy objects,
// bare input/output triples). Layers come from the registry in io/layer_config.h.
#pragma once

#include <string>

#include "io/layer_config.h"
#include "models/model.h"

namespace strata::io {

enum class ConfigDialect { keras3, keras2 };

// {"module", "class_name", "config", "registered_name", "build_config"} of a model
// (keras3), or {"class_name", "config"} (keras2, what tf.keras puts in `model_config`).
json model_to_config(const Model& model, ConfigDialect dialect = ConfigDialect::keras3);
// Rewrites a Keras 3 config object into the Keras 2 schema, recursively.
json to_keras2_config(const json& keras3);

// Builds a model (weights freshly initialized) from a config object of any dialect:
// {"class_name": "Sequential"|"Functional"|"Model", "config": ...}.
Model model_from_config(const json& entry, const ConfigContext& ctx = {});
// True for the model classes ("Sequential", "Functional", "Model").
bool is_model_class(const std::string& class_name);

// The model's layers in the order Keras gives `model.layers` for the same graph: a
// Sequential's stack; a functional model's layers by decreasing depth from the outputs,
// ties broken by first visit in a depth-first walk from the outputs (Keras's map_graph).
// Keras matches weights by this order (positional .h5 loading, `.keras` keys), so every
// writer and the `.keras` reader use it.
std::vector<Layer> keras_layer_order(const Model& model);

// Where JSON text came from: given as text (model_from_json: a bad text is a ValueError)
// or read from a file (a damaged member or attribute is an IOError).
enum class JsonOrigin { text, file };
// The deepest nesting accepted. Config readers recurse as configs nest (models in models,
// wrapped layers); real Keras configs nest about 15 deep.
inline constexpr int kMaxJsonDepth = 256;
// Parses JSON naming `source` in errors: malformed text, and nesting deeper than
// kMaxJsonDepth (refused while parsing, before anything recurses over it).
json parse_json(const std::string& text, const std::string& source,
                JsonOrigin origin = JsonOrigin::file);

}  // namespace strata::io

namespace strata::models {

// Keras's model.to_json(): the Keras 3 schema.
std::string to_json(const Model& model, int indent = -1);
// keras.models.model_from_json: any dialect; weights freshly initialized.
Model model_from_json(const std::string& text);

}  // namespace strata::models
