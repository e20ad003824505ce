#include "layers/recurrent/initial_state.h"

#include "core/error.h"

namespace strata::layers {

namespace {
std::string state_argument(std::size_t k) { return "initial_state_" + std::to_string(k); }
}  // namespace

std::vector<TensorArgument> recurrent_tensor_arguments(std::size_t states) {
  std::vector<TensorArgument> out{{"mask", "mask", -1}};
  for (std::size_t k = 0; k < states; ++k) out.push_back({state_argument(k), "initial_state", static_cast<int>(k)});
  return out;
}

std::vector<std::string> recurrent_call_argument_names(std::size_t states) {
  std::vector<std::string> out{"mask"};
  for (std::size_t k = 0; k < states; ++k) out.push_back(state_argument(k));
  return out;
}

RecurrentCall recurrent_call(const LayerImpl& layer, const std::vector<Output>& all, const std::vector<Output>& masks,
                             std::size_t states) {
  const CallInputs<Output> call = split_call_inputs(layer, layer.current_arguments, all);
  RecurrentCall out{call.inputs, {}};
  std::size_t given = 0;
  for (std::size_t k = 0; k < states; ++k) {
    if (const Output* state = call.find(state_argument(k))) {
      out.inputs.push_back(*state);
      ++given;
    }
  }
  if (given != 0 && (given != states || call.inputs.size() != 1)) {
    throw ValueError(layer.class_name() + " '" + layer.name + "': initial_state needs all " + std::to_string(states) +
                     " states of the layer as its list (got " + std::to_string(given) + "), and not as inputs too");
  }
  if (const Output* mask = call.find("mask")) {
    out.mask = *mask;
  } else if (given == 0 && !masks.empty()) {
    out.mask = masks[0];
  }
  return out;
}

std::string unroll_needs_time_steps(const Shape& input) {
  return "Cannot unroll a RNN if the time dimension is undefined (input " + input.to_string() +
         "): give the Input a fixed number of time steps, or unroll=False";
}

}  // namespace strata::layers
