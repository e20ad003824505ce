#include "layers/recurrent/time_distributed.h"

#include "core/error.h"
#include "core/ops.h"
#include "core/ops/array_ops.h"
#include "layers/keras_class.h"
#include "core/ops/sequence_ops.h"

namespace strata::layers {

namespace {

TensorSpec per_step(const TensorSpec& s) {
  if (s.shape.rank() < 3) {
    throw ShapeError("expects input of rank >= 3 (batch, timesteps, ...), got " + s.shape.to_string());
  }
  std::vector<std::int64_t> dims{kUnknownDim};
  dims.insert(dims.end(), s.shape.dims().begin() + 2, s.shape.dims().end());
  return {Shape(dims), s.dtype};
}

}  // namespace

TimeDistributedImpl::TimeDistributedImpl(Layer layer_, TimeDistributedOptions options)
    : LayerImpl("TimeDistributed", options.name), layer(std::move(layer_)), options(options) {
  if (!layer.defined()) throw ValueError("TimeDistributed needs a layer");
  // A model applies activity regularizers to the layers it calls; this one calls its own.
  if (layer.impl().activity_regularizer.defined()) {
    throw NotImplementedError("TimeDistributed: layer '" + layer.name() + "' has an activity_regularizer (" +
                              layer.impl().activity_regularizer.class_name() +
                              "), which Strata does not apply inside a wrapper");
  }
}

void TimeDistributedImpl::build(const std::vector<TensorSpec>& inputs) {
  LayerImpl& inner = layer.impl();
  if (!inner.built) {
    inner.build({per_step(inputs[0])});
    inner.built = true;
    // Keras 3 builds the inner layer inside this one: "time_distributed/dense/kernel".
    for (auto& v : layer.weights()) v.set_path(name + "/" + v.path());
  }
}

std::vector<Output> TimeDistributedImpl::call(Graph& graph, const std::vector<Output>& inputs) {
  return call_masked(graph, inputs, {});
}

std::vector<Output> TimeDistributedImpl::call_masked(Graph& graph, const std::vector<Output>& all,
                                                     const std::vector<Output>& masks) {
  const CallInputs<Output> call = split_call_inputs(*this, current_arguments, all);
  const Output& x = call.inputs.at(0);
  per_step(x.spec());  // checks the rank
  // (batch, time, ...) -> (batch · time, ...): None time steps and None per-step dims
  // (where the wrapped layer takes them) stay None until the program runs.
  const Output folded = ops::merge_axes(x, 0, 2);
  const Output mask = mask_argument_or_input_mask(call, masks);
  if (!mask.valid()) return {ops::unfold_time(layer.impl().call(graph, {folded})[0], x)};
  const Shape& m = mask.shape();
  if (m.rank() < 2 || (m[1] != kUnknownDim && x.shape()[1] != kUnknownDim && m[1] != x.shape()[1])) {
    throw ShapeError("TimeDistributed '" + name + "' got mask " + m.to_string() + " for input " +
                     x.shape().to_string() + ": a mask is (batch, time, ...), its first two dimensions the input's");
  }
  const Output folded_mask = m.rank() == 2 ? ops::reshape(mask, {-1}) : ops::merge_axes(mask, 0, 2);
  return {ops::unfold_time(layer.impl().call_masked(graph, {folded}, {folded_mask})[0], x)};
}

std::vector<Output> TimeDistributedImpl::compute_mask(Graph&, const std::vector<Output>& all,
                                                      const std::vector<Output>& masks) {
  const Output mask = mask_argument_or_input_mask(split_call_inputs(*this, current_arguments, all), masks);
  return {mask};
}

TimeDistributed::TimeDistributed(const Layer& layer, TimeDistributedOptions options)
    : Layer(std::make_shared<TimeDistributedImpl>(layer, std::move(options))) {}

RepeatVectorImpl::RepeatVectorImpl(std::int64_t n_, RepeatVectorOptions options)
    : LayerImpl("RepeatVector", options.name), n(n_), options(options) {
  if (n <= 0) throw ValueError("RepeatVector: n must be positive, got " + std::to_string(n));
}

std::vector<Output> RepeatVectorImpl::call(Graph&, const std::vector<Output>& inputs) {
  return {ops::repeat_vector(inputs[0], n)};
}

RepeatVector::RepeatVector(std::int64_t n, RepeatVectorOptions options)
    : Layer(std::make_shared<RepeatVectorImpl>(n, std::move(options))) {}

namespace {
// "layer": the inner layer's entry, read through the registry (any registered class);
// Keras 3 keeps its variables under layers/<key>/layer/.
std::vector<KerasClass::VarGroup> inner_vars(const LayerImpl& impl) {
  return {{"layer/", {}, static_cast<const TimeDistributedImpl&>(impl).layer}};
}
const bool time_distributed = register_keras_class(
    describe_layer<TimeDistributed>("TimeDistributed", &TimeDistributedImpl::options,
                                    keras_field("layer", &TimeDistributedImpl::layer))
        .vars(inner_vars));

const bool repeat_vector = register_keras_class(
    describe_layer<RepeatVector>("RepeatVector", &RepeatVectorImpl::options, keras_field("n", &RepeatVectorImpl::n).at_least(1)));
}  // namespace

}  // namespace strata::layers
