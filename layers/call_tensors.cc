#include "layers/call_tensors.h"

#include "core/error.h"

namespace strata {

std::vector<TensorArgument> tensor_arguments_of(const LayerImpl& layer) {
  const auto* takes = dynamic_cast<const TakesTensorArguments*>(&layer);
  return takes ? takes->tensor_arguments() : std::vector<TensorArgument>{};
}

bool is_tensor_argument(const LayerImpl& layer, const std::string& name) {
  for (const auto& a : tensor_arguments_of(layer)) {
    if (a.name == name) return true;
  }
  return false;
}

std::size_t tensor_argument_count(const LayerImpl& layer, const CallArguments& arguments) {
  std::size_t n = 0;
  for (const auto& a : tensor_arguments_of(layer)) {
    auto it = arguments.find(a.name);
    if (it != arguments.end() && it->second) ++n;
  }
  return n;
}

void throw_missing_tensor_arguments(const LayerImpl& layer, std::size_t flagged, std::size_t inputs) {
  throw ValueError(layer.class_name() + " '" + layer.name + "': the call flags " + std::to_string(flagged) +
                   " tensor arguments (masks) but has only " + std::to_string(inputs) +
                   " inputs; their tensors follow the layer's own inputs");
}

Output mask_argument_or_input_mask(const CallInputs<Output>& call, const std::vector<Output>& masks) {
  if (const Output* given = call.find("mask")) return *given;
  return masks.empty() ? Output{} : masks[0];
}

}  // namespace strata
