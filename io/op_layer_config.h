// Keras's saved operation calls <-> OpLayer (layers/core/op_layer.h). Keras 3 saves a
// keras.ops call on symbolic tensors as an entry whose module is keras.src.ops.* and
// whose inbound node holds the call's arguments, tensors and constants in order;
// tf.keras saves a TFOpLambda whose node holds the first tensor and the rest as keyword
// arguments. Class names collide with layers (Add, Multiply, Reshape, Softmax, ...), so
// the module decides.
#pragma once

#include <functional>

#include "io/layer_config.h"

namespace strata::io {

// An entry of a functional model's "layers" that is an operation call.
bool is_op_entry(const json& entry);
// The OpLayer of an operation entry (its single inbound node gives the arguments).
Layer op_layer_from_entry(const json& entry, const ConfigContext& ctx);
// The tensor references of a TFOpLambda node, in argument order: its first operand
// (unless tf.keras wrote a constant there, "_CONSTANT_VALUE"), then those among its
// keyword arguments ({"y": ["b", 0, 0]}).
std::vector<json> tf_op_lambda_tensors(const json& node);

// Whether a TFOpLambda calling this TensorFlow function ("math.multiply") loads.
bool tf_op_lambda_supported(const std::string& function);

bool is_op_layer(const Layer& layer);
// Keras 3's entry object for an op layer ("module", "class_name", "config", "registered_name").
json op_layer_object(const Layer& layer);
// The call's "args", with tensor_ref(i) for the layer's input i.
json op_layer_args(const Layer& layer, const std::function<json(std::size_t)>& tensor_ref);
// Its call's keyword arguments (Pad's constant_values), as Keras saved them.
json op_layer_kwargs(const Layer& layer);

// The Keras 2 (tf.keras .h5) form of a Keras 3 operation entry: a TFOpLambda calling
// the matching TensorFlow function, the first argument a tensor and the second "y".
// NotImplementedError for operations tf.keras has no such form for (save as .keras).
json op_entry_to_tf_op_lambda(const json& keras3_entry);

}  // namespace strata::io
