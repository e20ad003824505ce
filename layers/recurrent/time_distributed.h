// TimeDistributed(layer): applies `layer` to every timestep of (batch, timesteps, ...)
// input, with one set of weights ("time_distributed/dense/kernel"). RepeatVector(n):
// (batch, features) -> (batch, n, features).
#pragma once

#include <cstdint>
#include <string>

#include "layers/layer.h"

namespace strata::layers {

struct TimeDistributedOptions {
  std::string name;
};

class TimeDistributedImpl : public LayerImpl {
 public:
  TimeDistributedImpl(Layer layer, TimeDistributedOptions options);
  void build(const std::vector<TensorSpec>& inputs) override;
  std::vector<Output> call(Graph& graph, const std::vector<Output>& inputs) override;
  std::vector<Output> compute_mask(Graph& graph, const std::vector<Output>& inputs,
                                   const std::vector<Output>& masks) override;
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
