// A recurrent layer's initial states and mask as its call gives them. Two forms:
//   - Keras 3's keyword, lstm(x, initial_state=[h, c]): the tensor arguments
//     "initial_state_0", "initial_state_1", ... (one position each of the keyword's list,
//     call_tensors.h), as Keras 3 files record them and as Strata writes them;
//   - the states as the layer's own inputs after x, lstm({x, h, c}): tf.keras's files
//     (whose RNN made its states inputs of the call) and Strata's C++ calls.
// Their masks differ as the two Kerases do: Keras 3 fills a call's mask from its input
// only when the call has one tensor argument, so initial_state given as the keyword leaves
// the layer unmasked (a mask passed as mask= still applies); tf.keras passed the mask of x
// in both forms.
#pragma once

#include <cstddef>
#include <string>
#include <vector>

#include "layers/call_tensors.h"

namespace strata::layers {

// mask, then initial_state_0 ... initial_state_{states - 1}.
std::vector<TensorArgument> recurrent_tensor_arguments(std::size_t states);
std::vector<std::string> recurrent_call_argument_names(std::size_t states);

struct RecurrentCall {
  std::vector<Output> inputs;  // x, then the initial states when given (either form)
  Output mask;                 // invalid for none
};

// The call's inputs and mask by the rules above. `all` is the call's inputs (its own, then
// its tensor arguments), `masks` the input masks (empty for none). Throws ValueError when
// only some of the initial_state keyword's tensors are given.
RecurrentCall recurrent_call(const LayerImpl& layer, const std::vector<Output>& all, const std::vector<Output>& masks,
                             std::size_t states);

// Keras's refusal of unroll=True over None time steps (its RNN and ConvLSTM layers'), for
// an input of this shape. Strata's loops are the same with or without unroll; this keeps
// Keras's rule.
std::string unroll_needs_time_steps(const Shape& input);

}  // namespace strata::layers
