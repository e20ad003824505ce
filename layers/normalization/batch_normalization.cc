#include "layers/normalization/batch_normalization.h"

#include "core/error.h"
#include "core/ops.h"
#include "core/ops/array_ops.h"
#include "core/ops/batch_norm_ops.h"

namespace strata::layers {

BatchNormalizationImpl::BatchNormalizationImpl(BatchNormalizationOptions o)
    : LayerImpl("BatchNormalization", o.name), options(std::move(o)) {
  if (options.epsilon <= 0) throw ValueError("BatchNormalization: epsilon must be positive");
}

void BatchNormalizationImpl::build(const std::vector<TensorSpec>& inputs) {
  const Shape& s = inputs[0].shape;
  if (s.rank() < 2) throw ShapeError("expects input of rank >= 2, got " + s.to_string());
  const std::int64_t c = s[options.axis];
  if (c == kUnknownDim) throw ShapeError("the normalized axis must be known, got " + s.to_string());
  if (options.scale) {
    gamma = add_weight("gamma", Shape{c}, options.gamma_initializer,
                       {.regularizer = options.gamma_regularizer, .constraint = options.gamma_constraint});
  }
  if (options.center) {
    beta = add_weight("beta", Shape{c}, options.beta_initializer,
                      {.regularizer = options.beta_regularizer, .constraint = options.beta_constraint});
  }
  moving_mean = add_weight("moving_mean", Shape{c}, options.moving_mean_initializer, false);
  moving_variance = add_weight("moving_variance", Shape{c}, options.moving_variance_initializer, false);
}

std::vector<Output> BatchNormalizationImpl::call(Graph& graph, const std::vector<Output>& inputs) {
  const Output& x = inputs[0];
  const Shape& s = x.shape();
  const int axis = s.normalize_axis(options.axis);
  const std::int64_t c = moving_mean.shape()[0];
  if (s.dims()[axis] != c) {
    throw ShapeError("expects input with " + std::to_string(c) + " features on axis " + std::to_string(options.axis) +
                     ", got " + s.to_string());
  }
  const float epsilon = static_cast<float>(options.epsilon);
  Output gamma_out = options.scale ? graph.variable(gamma) : Output{};
  Output beta_out = options.center ? graph.variable(beta) : Output{};
  if (!trainable) {
    return {ops::batch_normalization_inference(x, gamma_out, beta_out, graph.variable(moving_mean),
                                               graph.variable(moving_variance), axis, epsilon)};
  }
  // One op in both modes (core/ops/batch_norm_ops.h): the batch's statistics in training,
  // the moving ones otherwise. Without scale or center, γ is ones and β zeros.
  if (!gamma_out.valid()) gamma_out = ops::ones_like(graph.variable(moving_mean));
  if (!beta_out.valid()) beta_out = ops::zeros_like(graph.variable(moving_mean));
  const ops::BatchNormOutputs normalized = ops::batch_normalization(
      x, gamma_out, beta_out, graph.variable(moving_mean), graph.variable(moving_variance), axis, epsilon);
  const float m = static_cast<float>(options.momentum);
  auto move = [&](const Variable& v, Output batch) {
    Output var = graph.variable(v);
    Output next = ops::add(ops::mul(var, m), ops::mul(batch, 1.f - m));
    graph.add_update(ops::assign(var, next), Graph::UpdateMode::training_only);
  };
  move(moving_mean, normalized.mean);
  move(moving_variance, normalized.variance);
  return {normalized.y};
}

BatchNormalization::BatchNormalization(BatchNormalizationOptions options)
    : Layer(std::make_shared<BatchNormalizationImpl>(std::move(options))) {}

namespace {
// One channel axis: a list of several (tf.keras allows it) is refused before the fields.
void one_axis(const ConfigSource& src) {
  const FieldSpec axes = spec_of("axis", ValueKind::int_list);
  std::optional<ConfigValue> v = src.get(axes);
  if (!v) return;
  const auto& list = std::get<std::vector<std::int64_t>>(*v);
  if (list.size() > 1) {
    std::string axes;
    for (auto a : list) axes += (axes.empty() ? "[" : ",") + std::to_string(a);
    throw NotImplementedError(src.where() + ": normalizing over several axes " + axes +
                              "] is not supported (one channel axis only)");
  }
}

const bool batch_normalization_registered = register_keras_class(
    describe_layer<BatchNormalization>("BatchNormalization", &BatchNormalizationImpl::options).checked(one_axis));
}  // namespace

}  // namespace strata::layers
