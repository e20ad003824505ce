// Tensors passed as call arguments: MultiHeadAttention's attention_mask=, value_mask=, ...
// and Attention's mask=[query_mask, value_mask]. A call records each one given as a flag
// set true among its arguments (CallArguments), and the tensor itself as one of the
// call's inputs, after the layer's own inputs, in the order the layer lists them (an
// entry of a list given as None, Attention's mask=[None, v], is a flag set false: no
// tensor, but the list was given). So the
// functional graph, its ordering, pruning and the programs see them as ordinary inputs of
// the layer's node, and io/ writes them where Keras does (the node's kwargs).
//
//   mha.call_with({q, v, mask}, {{"attention_mask", true}});  // as mha(q, v, attention_mask=mask)
//
// A layer that takes such arguments derives from TakesTensorArguments.
#pragma once

#include <cstddef>
#include <string>
#include <vector>

#include "layers/layer.h"

namespace strata {

// One tensor call argument: its name among the call's arguments and, where Keras passes
// it, the keyword (and position in that keyword's list: Attention's mask=[q_mask, v_mask]).
struct TensorArgument {
  std::string name;
  std::string keyword;
  int list_index = -1;  // -1: the keyword holds the tensor itself
};

class TakesTensorArguments {
 public:
  virtual ~TakesTensorArguments() = default;
  // In the order their tensors follow the layer's own inputs.
  virtual std::vector<TensorArgument> tensor_arguments() const = 0;
};

// The layer's tensor arguments; none for most layers.
std::vector<TensorArgument> tensor_arguments_of(const LayerImpl& layer);
// Whether `name` is one of the layer's tensor arguments.
bool is_tensor_argument(const LayerImpl& layer, const std::string& name);

// A call's inputs split into the layer's own and its tensor arguments (those flagged in
// `arguments`, in the layer's order). Throws ValueError when the call has fewer inputs
// than flagged tensor arguments.
template <class T>
struct CallInputs {
  std::vector<T> inputs;
  std::vector<std::pair<std::string, T>> tensors;
  const T* find(const std::string& name) const {
    for (const auto& [n, t] : tensors) {
      if (n == name) return &t;
    }
    return nullptr;
  }
};

// How many of the call's inputs are tensor arguments.
std::size_t tensor_argument_count(const LayerImpl& layer, const CallArguments& arguments);
[[noreturn]] void throw_missing_tensor_arguments(const LayerImpl& layer, std::size_t flagged, std::size_t inputs);

template <class T>
CallInputs<T> split_call_inputs(const LayerImpl& layer, const CallArguments& arguments, const std::vector<T>& all) {
  const std::size_t extra = tensor_argument_count(layer, arguments);
  if (extra > all.size()) throw_missing_tensor_arguments(layer, extra, all.size());
  CallInputs<T> out;
  const std::size_t own = all.size() - extra;
  out.inputs.assign(all.begin(), all.begin() + static_cast<std::ptrdiff_t>(own));
  std::size_t next = own;
  for (const auto& a : tensor_arguments_of(layer)) {
    auto it = arguments.find(a.name);
    if (it != arguments.end() && it->second) out.tensors.emplace_back(a.name, all[next++]);
  }
  return out;
}

// The mask of a layer whose Keras call takes `mask` (Softmax, BatchNormalization): the
// tensor passed as that argument, else the first input's Keras mask (`masks`, one per
// input, may be empty); invalid for none. Keras fills the argument from the input so.
Output mask_argument_or_input_mask(const CallInputs<Output>& call, const std::vector<Output>& masks);

}  // namespace strata
