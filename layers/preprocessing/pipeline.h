// Pipeline: Keras's chain of preprocessing layers, each called on the previous one's
// output (with the training flag), as a layer of its own. Its config is the list of the
// layers' entries and its name (Keras's Pipeline takes no trainable or dtype); a Keras 3
// file keeps each layer's variables under layers/<snake_case(class)>[_n]/ (io unit:
// io/layer_configs/pipeline_config.cc). Masks are not passed along (Keras passes a layer's
// mask to the next; Strata's preprocessing layers make none).
#pragma once

#include <string>
#include <vector>

#include "layers/layer.h"

namespace strata::layers {

struct PipelineOptions {
  std::string name;
  DTypePolicyName dtype;  // Keras's dtype=: this layer's dtype policy ("" the global one)
};

class PipelineImpl : public LayerImpl {
 public:
  PipelineImpl(std::vector<Layer> layers, PipelineOptions options);
  void build(const std::vector<TensorSpec>& inputs) override;
  std::vector<Output> call(Graph& graph, const std::vector<Output>& inputs) override;
  std::vector<Layer> sublayers() const override { return layers; }

  std::vector<Layer> layers;
  PipelineOptions options;
};

class Pipeline : public Layer {
 public:
  explicit Pipeline(std::vector<Layer> layers, PipelineOptions options = {});
};

}  // namespace strata::layers
