#include "layers/normalization/spectral_normalization.h"

#include "core/error.h"
#include "core/ops.h"
#include "core/ops/array_ops.h"
#include "core/variable_override.h"

namespace strata::layers {

namespace {

// Keras's normalize(x, axis=None): x · min(1/‖x‖₂, 1/ε), ε = 1e-7.
Output normalize(Output x) {
  return ops::mul(x, ops::minimum(ops::div(1.0f, ops::sqrt(ops::reduce_sum(ops::square(x)))), 1.0e7f));
}

// The wrapped layer's own weight named `name` ("kernel", "embeddings"), or none.
Variable own_weight(const Layer& layer, const std::string& name) {
  for (const Variable& v : layer.impl().weights) {
    const std::string& path = v.path();
    if (path.size() > name.size() && path.compare(path.size() - name.size() - 1, std::string::npos, "/" + name) == 0) {
      return v;
    }
  }
  return {};
}

}  // namespace

SpectralNormalizationImpl::SpectralNormalizationImpl(Layer layer_, SpectralNormalizationOptions options_)
    : LayerImpl("SpectralNormalization", options_.name), layer(std::move(layer_)), options(std::move(options_)) {
  if (!layer.defined()) throw ValueError("SpectralNormalization needs a layer");
  if (options.power_iterations <= 0) {
    throw ValueError("`power_iterations` should be greater than zero. Received: `power_iterations=" +
                     std::to_string(options.power_iterations) + "`");
  }
  // A model applies activity regularizers to the layers it calls; this one calls its own.
  if (layer.impl().activity_regularizer.defined()) {
    throw NotImplementedError("SpectralNormalization: layer '" + layer.name() + "' has an activity_regularizer (" +
                              layer.impl().activity_regularizer.class_name() +
                              "), which Strata does not apply inside a wrapper");
  }
}

void SpectralNormalizationImpl::build(const std::vector<TensorSpec>& inputs) {
  LayerImpl& inner = layer.impl();
  if (!inner.built) {
    inner.build(inputs);
    inner.built = true;
    // Keras builds the inner layer inside this one: "spectral_normalization/dense/kernel".
    for (auto& v : layer.weights()) v.set_path(name + "/" + v.path());
  }
  kernel = own_weight(layer, "kernel");
  if (!kernel.defined()) kernel = own_weight(layer, "embeddings");
  if (!kernel.defined()) {
    throw ValueError(layer.class_name() + " object has no attribute 'kernel' nor 'embeddings'");
  }
  const Shape& shape = kernel.shape();
  vector_u =
      add_weight("vector_u", Shape{1, shape[shape.rank() - 1]}, initializers::TruncatedNormal({.stddev = 0.02}), false);
}

Output SpectralNormalizationImpl::normalized_kernel(Graph& graph) {
  const Output w = graph.variable(kernel);
  const Output u0 = graph.variable(vector_u);
  const Shape& shape = kernel.shape();
  const Output matrix = ops::reshape(w, {-1, shape[shape.rank() - 1]});  // (-1, units)
  Output u = u0, v;
  for (std::int64_t i = 0; i < options.power_iterations; ++i) {
    v = normalize(ops::matmul(u, matrix, false, true));
    u = normalize(ops::matmul(v, matrix));
  }
  u = ops::stop_gradient(u);
  v = ops::stop_gradient(v);
  const Output sigma = ops::matmul(ops::matmul(v, matrix), u, false, true);  // (1, 1)
  const Output divided = ops::div(w, ops::reshape(sigma, std::vector<std::int64_t>(shape.rank(), 1)));
  // Keras keeps u and the kernel as they are while the kernel is all zeros.
  const Output zero = ops::equal(ops::reduce_max(ops::abs(w)), ops::constant(graph, 0.f));
  const Output next_u = ops::where(zero, u0, u);
  const Output next_w = ops::where(zero, w, divided);
  graph.add_update(ops::assign(u0, next_u), Graph::UpdateMode::training_only);
  graph.add_update(ops::assign(w, next_w), Graph::UpdateMode::training_only);
  // The assigned value, with the gradient reaching the kernel unchanged: Keras's layer
  // reads the variable after the assignment. (w - stop_gradient(w) is exactly 0.)
  const Output assigned = ops::add(ops::stop_gradient(next_w), ops::sub(w, ops::stop_gradient(w)));
  return ops::training_select(assigned, w);
}

std::vector<Output> SpectralNormalizationImpl::call(Graph& graph, const std::vector<Output>& inputs) {
  return call_masked(graph, inputs, {});
}

std::vector<Output> SpectralNormalizationImpl::call_masked(Graph& graph, const std::vector<Output>& inputs,
                                                           const std::vector<Output>& masks) {
  const Output used = normalized_kernel(graph);
  const VariableOverride reads(graph, kernel, used);
  LayerImpl& inner = layer.impl();
  inner.current_call = current_call;
  std::vector<Output> outputs = masks.empty() ? inner.call(graph, inputs) : inner.call_masked(graph, inputs, masks);
  // Keras casts the output to the input's dtype (integer ids truncate an Embedding's rows).
  for (Output& y : outputs) {
    if (y.dtype() != inputs[0].dtype()) y = ops::cast(y, inputs[0].dtype());
  }
  return outputs;
}

std::vector<Output> SpectralNormalizationImpl::compute_mask(Graph& graph, const std::vector<Output>& inputs,
                                                            const std::vector<Output>& masks) {
  return layer.impl().compute_mask(graph, inputs, masks);
}

SpectralNormalization::SpectralNormalization(const Layer& layer, SpectralNormalizationOptions options)
    : Layer(std::make_shared<SpectralNormalizationImpl>(layer, std::move(options))) {}

namespace {
// "layer": the inner layer's entry, read through the registry. Keras 3 keeps the kernel
// twice, as this layer's own vars/0 (its `kernel` attribute) beside vector_u, and in
// layer/vars with the rest of the inner layer's.
std::vector<KerasClass::VarGroup> wrapper_vars(const LayerImpl& impl) {
  const auto& s = static_cast<const SpectralNormalizationImpl&>(impl);
  if (!s.vector_u.defined()) return {{"layer/", {}, s.layer}};
  return {{"vars", {s.kernel, s.vector_u}, {}}, {"layer/", {}, s.layer}};
}

const bool spectral_normalization_registered = register_keras_class(
    describe_layer<SpectralNormalization>("SpectralNormalization", &SpectralNormalizationImpl::options,
                                          keras_field("layer", &SpectralNormalizationImpl::layer))
        .vars(wrapper_vars));
}  // namespace

}  // namespace strata::layers
