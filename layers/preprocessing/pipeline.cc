#include "layers/preprocessing/pipeline.h"

#include "core/error.h"

namespace strata::layers {

PipelineImpl::PipelineImpl(std::vector<Layer> layers_, PipelineOptions o)
    : LayerImpl("Pipeline", o.name), layers(std::move(layers_)), options(std::move(o)) {
  for (const Layer& layer : layers) {
    if (!layer.defined()) throw ValueError("Pipeline '" + name + "': a layer of its list is empty");
  }
}

void PipelineImpl::build(const std::vector<TensorSpec>& inputs) {
  // Each layer is built on what the one before it gives, traced on a scratch graph.
  Graph scratch;
  Output x = scratch.placeholder(inputs.at(0));
  for (const Layer& layer : layers) {
    LayerImpl& inner = layer.impl();
    if (!inner.built) {
      inner.build({x.spec()});
      inner.built = true;
      // Keras 3 builds the layers inside this one: "pipeline/normalization/mean".
      for (auto& v : layer.weights()) v.set_path(name + "/" + v.path());
    }
    x = inner.call(scratch, {x}).at(0);
  }
}

std::vector<Output> PipelineImpl::call(Graph& graph, const std::vector<Output>& inputs) {
  Output x = inputs.at(0);
  for (const Layer& layer : layers) {
    LayerImpl& inner = layer.impl();
    // The pipeline's call is each layer's: random layers draw per call of the pipeline.
    inner.current_call = current_call;
    inner.current_arguments = current_arguments;
    x = inner.call(graph, {x}).at(0);
  }
  return {x};
}

Pipeline::Pipeline(std::vector<Layer> layers, PipelineOptions options)
    : Layer(std::make_shared<PipelineImpl>(std::move(layers), std::move(options))) {}

}  // namespace strata::layers
