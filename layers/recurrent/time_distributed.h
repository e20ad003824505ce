// TimeDistributed(layer): applies `layer` to every timestep of (batch, timesteps, ...)
// input, with one set of weights ("time_distributed/dense/kernel"). RepeatVector(n):
// (batch, features) -> (batch, n, features).
#pragma once

#include <cstdint>
#include <string>

#include "layers/call_tensors.h"
#include "layers/layer.h"

namespace strata::layers {

struct TimeDistributedOptions {
  std::string name;
  DTypePolicyName dtype;  // Keras's dtype=: this layer's dtype policy ("" the global one)
};

class TimeDistributedImpl : public LayerImpl, public TakesTensorArguments {
 public:
  TimeDistributedImpl(Layer layer, TimeDistributedOptions options);
  void build(const std::vector<TensorSpec>& inputs) override;
  std::vector<Output> call(Graph& graph, const std::vector<Output>& inputs) override;
  // A mask (the input's, or Keras's call(x, mask=m)), (batch, time, ...), reaches the wrapped
  // layer step by step as Keras's gives it mask[:, t]: folded with the steps into the batch,
  // as the input is. Layers that take no mask ignore it, as Keras's do.
  std::vector<Output> call_masked(Graph& graph, const std::vector<Output>& inputs,
                                  const std::vector<Output>& masks) override;
  // The mask passes on, as Keras's.
  std::vector<Output> compute_mask(Graph& graph, const std::vector<Output>& inputs,
                                   const std::vector<Output>& masks) override;
  std::vector<std::string> call_argument_names() const override { return {"mask"}; }
  std::vector<TensorArgument> tensor_arguments() const override { return {{"mask", "mask", -1}}; }
  std::vector<Layer> sublayers() const override { return {layer}; }
  Layer layer;
  TimeDistributedOptions options;
};

class TimeDistributed : public Layer {
 public:
  explicit TimeDistributed(const Layer& layer, TimeDistributedOptions options = {});
};

struct RepeatVectorOptions {
  std::string name;
  DTypePolicyName dtype;  // Keras's dtype=: this layer's dtype policy ("" the global one)
};

class RepeatVectorImpl : public LayerImpl {
 public:
  RepeatVectorImpl(std::int64_t n, RepeatVectorOptions options);
  std::vector<Output> call(Graph& graph, const std::vector<Output>& inputs) override;
  std::int64_t n;
  RepeatVectorOptions options;
};

class RepeatVector : public Layer {
 public:
  explicit RepeatVector(std::int64_t n, RepeatVectorOptions options = {});
};

}  // namespace strata::layers
