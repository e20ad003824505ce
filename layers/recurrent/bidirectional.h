// Bidirectional(rnn): runs a forward copy and a backward copy of a recurrent layer, both
// built fresh from its config (the backward one with go_backwards flipped and its output
// put back in input order), and merges them: "concat" (default), "sum", "mul", "ave" or
// "none" (both outputs). Weights as Keras 3 names them:
// "bidirectional/forward_lstm/lstm_cell/kernel", "bidirectional/backward_lstm/...".
// A mask (the input's, or one passed with the call, as Keras 3 files record an
// Embedding's) reaches both directions. Initial states, as Keras 3's initial_state=[...] or
// as inputs after x: the first half the forward layer's, the rest the backward's.
#pragma once

#include <memory>
#include <string>

#include "layers/call_tensors.h"
#include "layers/layer.h"
#include "layers/recurrent/rnn.h"

namespace strata::layers {

struct BidirectionalOptions {  // Keras signature order
  std::string merge_mode = "concat";
  std::string name;
  DTypePolicyName dtype;  // Keras's dtype=: this layer's dtype policy ("" the global one)
};

class BidirectionalImpl : public LayerImpl, public TakesTensorArguments {
 public:
  BidirectionalImpl(const Layer& layer, BidirectionalOptions options);
  void build(const std::vector<TensorSpec>& inputs) override;
  std::vector<Output> call(Graph& graph, const std::vector<Output>& inputs) override;
  std::vector<Output> call_masked(Graph& graph, const std::vector<Output>& inputs,
                                  const std::vector<Output>& masks) override;
  std::vector<Output> compute_mask(Graph& graph, const std::vector<Output>& inputs,
                                   const std::vector<Output>& masks) override;
  // x, or x and the initial states (the forward layer's, then the backward's); mask= and
  // Keras 3's initial_state=[...] as call arguments (layers/recurrent/initial_state.h).
  bool accepts_input_count(std::size_t n) const override { return n == 1 || n == 1 + num_states(); }
  std::vector<std::string> call_argument_names() const override;
  std::vector<TensorArgument> tensor_arguments() const override;
  std::vector<Layer> sublayers() const override;
  // Both directions' states.
  std::size_t num_states() const { return 2 * forward_layer->num_states(); }

  std::shared_ptr<RNNImpl> forward_layer, backward_layer;
  BidirectionalOptions options;

 private:
  std::vector<Output> run(Graph& graph, const std::vector<Output>& inputs, const std::vector<Output>& masks);
};

class Bidirectional : public Layer {
 public:
  explicit Bidirectional(const Layer& layer, BidirectionalOptions options = {});
};

}  // namespace strata::layers
