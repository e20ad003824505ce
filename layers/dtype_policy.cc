#include "layers/dtype_policy.h"

#include <array>
#include <atomic>

#include "core/error.h"
#include "core/precision_rounding.h"
#include "layers/layer.h"

namespace strata {

namespace {

constexpr std::array<const char*, 5> kFloatPolicies = {"float32", "mixed_bfloat16", "bfloat16", "mixed_float16",
                                                        "float16"};
// The global policy, an index into kFloatPolicies: layers may be made on several threads.
std::atomic<int> global_policy{0};

}  // namespace

bool is_float_dtype_policy(const std::string& policy) {
  for (const char* name : kFloatPolicies) {
    if (policy == name) return true;
  }
  return false;
}

ComputePrecision compute_precision_of(const std::string& policy) {
  if (policy == "mixed_bfloat16" || policy == "bfloat16") return ComputePrecision::bfloat16;
  if (policy == "mixed_float16" || policy == "float16") return ComputePrecision::float16;
  return ComputePrecision::float32;
}

bool stores_variables_in_compute_dtype(const std::string& policy) {
  return policy == "bfloat16" || policy == "float16";
}

void set_dtype_policy(const std::string& policy) {
  for (int i = 0; i < static_cast<int>(kFloatPolicies.size()); ++i) {
    if (policy == kFloatPolicies[static_cast<std::size_t>(i)]) {
      global_policy.store(i);
      return;
    }
  }
  throw ValueError("set_dtype_policy: '" + policy +
                   "' is not a dtype policy Strata computes in (float32, mixed_bfloat16, bfloat16, "
                   "mixed_float16, float16)");
}

std::string global_dtype_policy() { return kFloatPolicies[static_cast<std::size_t>(global_policy.load())]; }

void store_in_policy_dtype(Variable& variable, const std::string& policy) {
  if (!stores_variables_in_compute_dtype(policy) || variable.dtype() != DType::float32 ||
      variable.stored_as() != Variable::Stored::own) {
    return;
  }
  const bool bfloat16 = compute_precision_of(policy) == ComputePrecision::bfloat16;
  Tensor value = variable.value().to(Device{}).clone();
  for (float& v : value.values<float>()) v = bfloat16 ? round_to_bfloat16(v) : round_to_float16(v);
  variable.assign(value);
  variable.set_stored_as(bfloat16 ? Variable::Stored::bfloat16 : Variable::Stored::float16);
}

void check_dtype_policy(const LayerImpl& layer) {
  if (compute_precision_of(layer.dtype_policy) == ComputePrecision::float32) return;
  if (layer.low_precision_form() == LowPrecisionForm::refused) {
    throw NotImplementedError(layer.class_name() + " '" + layer.name + "' with dtype policy '" + layer.dtype_policy +
                              "': this class's " + layer.dtype_policy +
                              " computation is not emulated yet (docs/precision.md lists the classes that are)");
  }
  if (!layer.quantization_mode.empty()) {
    throw NotImplementedError(layer.class_name() + " '" + layer.name + "': quantized (" + layer.quantization_mode +
                              ") over dtype policy '" + layer.dtype_policy + "' is not supported");
  }
}

std::vector<Output> call_in_dtype_policy(LayerImpl& layer, Graph& graph, const std::vector<Output>& inputs,
                                         const std::vector<Output>& masks) {
  auto call = [&] { return masks.empty() ? layer.call(graph, inputs) : layer.call_masked(graph, inputs, masks); };
  const ComputePrecision precision = compute_precision_of(layer.dtype_policy);
  if (precision == ComputePrecision::float32 || layer.low_precision_form() == LowPrecisionForm::not_applicable) {
    return call();
  }
  check_dtype_policy(layer);
  const LowPrecisionForm form = layer.low_precision_form();
  if (form == LowPrecisionForm::float32_inside || form == LowPrecisionForm::float32_rounded_inputs) {
    std::vector<Output> rounded_inputs = inputs;
    if (form == LowPrecisionForm::float32_rounded_inputs) {
      for (Output& in : rounded_inputs) in = graph.rounded(in, precision);
    }
    std::vector<Output> outputs =
        masks.empty() ? layer.call(graph, rounded_inputs) : layer.call_masked(graph, rounded_inputs, masks);
    for (Output& out : outputs) out = graph.rounded(out, precision);
    return outputs;
  }
  PrecisionScope scope(graph, precision);
  std::vector<Output> outputs = call();
  // An output passed through untouched (no op added) is rounded too: the layer's
  // outputs are in its compute dtype.
  for (Output& out : outputs) out = graph.rounded(out, precision);
  return outputs;
}

}  // namespace strata
