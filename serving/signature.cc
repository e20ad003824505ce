#include "serving/signature.h"

#include <map>

#include "layers/layer.h"

namespace strata::serving {

std::string tf_dtype_name(DType dtype) {
  switch (dtype) {
    case DType::float32:
      return "DT_FLOAT";
    case DType::int32:
      return "DT_INT32";
    case DType::int64:
      return "DT_INT64";
    case DType::string:
      return "DT_STRING";
  }
  return "DT_INVALID";
}

std::string signature_input_tensor_name(const TensorInfo& input) { return "serving_default_" + input.name + ":0"; }

std::string signature_output_tensor_name(std::size_t k) { return "StatefulPartitionedCall:" + std::to_string(k); }

namespace {

std::vector<TensorInfo> describe(const std::vector<KerasTensor>& tensors) {
  std::map<std::string, int> uses;
  for (const auto& t : tensors) ++uses[t.call()->layer.name()];
  std::vector<TensorInfo> out;
  for (const auto& t : tensors) {
    std::string name = t.call()->layer.name();
    if (uses[name] > 1) name += "_" + std::to_string(t.index());
    out.push_back({name, t.dtype(), t.shape()});
  }
  return out;
}

nlohmann::json tensor_info_json(const TensorInfo& info, const std::string& tf_name) {
  nlohmann::json dims = nlohmann::json::array();
  for (std::int64_t d : info.shape.dims()) dims.push_back({{"size", std::to_string(d)}, {"name", ""}});
  return {{"dtype", tf_dtype_name(info.dtype)},
          {"tensor_shape", {{"dim", dims}, {"unknown_rank", false}}},
          {"name", tf_name}};
}

}  // namespace

Signature Signature::of(const Model& model) {
  return {describe(model.inputs()), describe(model.outputs())};
}

nlohmann::json Signature::to_json() const {
  nlohmann::json in = nlohmann::json::object(), out = nlohmann::json::object();
  for (const auto& i : inputs) in[i.name] = tensor_info_json(i, signature_input_tensor_name(i));
  for (std::size_t k = 0; k < outputs.size(); ++k) {
    out[outputs[k].name] = tensor_info_json(outputs[k], signature_output_tensor_name(k));
  }
  return {{"inputs", in}, {"outputs", out}, {"method_name", "tensorflow/serving/predict"}};
}

}  // namespace strata::serving
