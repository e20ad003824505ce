// InputLayer <-> Keras config: batch_shape (Keras 2: batch_input_shape, renamed on read),
// dtype, sparse, name.
#include "core/error.h"
#include "io/layer_config.h"
#include "layers/input_layer.h"

namespace strata::io {
namespace {

json to_config(const LayerImpl& impl) {
  const auto& in = static_cast<const InputLayerImpl&>(impl);
  return json{{"batch_shape", shape_to_json(in.spec.shape)},
              {"dtype", to_string(in.spec.dtype)},
              {"sparse", false},
              {"name", in.name}};
}

Layer from_config(const json& c, const ConfigContext&) {
  const std::string where = describe("InputLayer", c);
  Shape batch_shape;
  if (c.contains("batch_shape")) {
    batch_shape = shape_from_json(c["batch_shape"], where);
  } else if (c.contains("input_shape")) {
    batch_shape = shape_from_json(c["input_shape"], where).with_batch(kUnknownDim);
  } else if (c.contains("shape")) {
    batch_shape = shape_from_json(c["shape"], where).with_batch(kUnknownDim);
  } else {
    throw ValueError(where + ": config has no 'batch_shape' (nor 'batch_input_shape')");
  }
  if (batch_shape.rank() < 1)
    throw ValueError(where + ": batch_shape must include the batch dimension");
  if (c.value("sparse", false))
    throw NotImplementedError(where + ": sparse inputs are not supported");
  DType dtype = DType::float32;
  if (c.contains("dtype") && c["dtype"].is_string()) {
    try {
      dtype = parse_dtype(c["dtype"].get<std::string>());
    } catch (const Error&) {
      throw NotImplementedError(where + ": input dtype '" + c["dtype"].get<std::string>() +
                                "' is not supported");
    }
  }
  auto impl = std::make_shared<InputLayerImpl>(batch_shape, dtype, c.value("name", ""));
  return Layer(impl);
}

// Input layers hold no variables and Keras 3 writes no vars group for them.
std::vector<VarGroup> no_vars(const LayerImpl&) { return {}; }

const bool registered =
    register_layer_config({"InputLayer", "keras.layers", to_config, from_config, no_vars});

}  // namespace
}  // namespace strata::io
