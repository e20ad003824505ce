// Signature: what a served model takes and gives, as TensorFlow Serving's
// "serving_default" SignatureDef describes it: named inputs and outputs, each with a
// dtype and a shape whose first dimension is the batch (unknown, -1).
//
// Input names are the model's Input layer names; output names are the names of the
// layers that make the outputs (with "_<k>" added when one layer makes several), as a
// Keras model exported for TensorFlow Serving names them.
#pragma once

#include <nlohmann/json.hpp>
#include <string>
#include <vector>

#include "core/dtype.h"
#include "core/shape.h"
#include "models/model.h"

namespace strata::serving {

struct TensorInfo {
  std::string name;
  DType dtype = DType::float32;
  Shape shape;  // with the batch dimension first
};

struct Signature {
  std::vector<TensorInfo> inputs;
  std::vector<TensorInfo> outputs;

  static Signature of(const Model& model);
  // The "serving_default" SignatureDef of a GetModelMetadataResponse, as JSON.
  nlohmann::json to_json() const;
};

// "DT_FLOAT", "DT_INT32", "DT_INT64", "DT_STRING".
std::string tf_dtype_name(DType dtype);

// The graph tensor names a SignatureDef gives, as in a Keras model exported for TensorFlow
// Serving: "serving_default_NAME:0" for an input, "StatefulPartitionedCall:K" for output K.
std::string signature_input_tensor_name(const TensorInfo& input);
std::string signature_output_tensor_name(std::size_t k);

}  // namespace strata::serving
