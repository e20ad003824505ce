#include "layers/normalization/group_normalization.h"

#include "core/error.h"
#include "core/ops.h"
#include "core/ops/array_ops.h"

namespace strata::layers {

GroupNormalizationImpl::GroupNormalizationImpl(GroupNormalizationOptions o)
    : LayerImpl("GroupNormalization", o.name), options(std::move(o)) {
  supports_masking = true;  // as Keras's: it passes its input's mask on
  if (options.groups <= 0 && options.groups != -1) {
    throw ValueError("groups must be a positive integer (or -1 for instance normalization), got " +
                     std::to_string(options.groups));
  }
}

void GroupNormalizationImpl::build(const std::vector<TensorSpec>& inputs) {
  const Shape& s = inputs[0].shape;
  const int axis = s.normalize_axis(static_cast<int>(options.axis));
  if (axis == 0) throw ValueError("GroupNormalization cannot group the batch axis");
  const std::int64_t channels = s[axis];
  if (channels == kUnknownDim) {
    throw ShapeError("axis " + std::to_string(options.axis) + " of the input " + s.to_string() +
                     " must have a defined dimension");
  }
  const std::int64_t groups = options.groups == -1 ? channels : options.groups;
  if (channels < groups) {
    throw ValueError("Number of groups (" + std::to_string(groups) + ") cannot be more than the number of channels (" +
                     std::to_string(channels) + ")");
  }
  if (channels % groups != 0) {
    throw ValueError("the number of channels (" + std::to_string(channels) + ") must be a multiple of the number of groups (" +
                     std::to_string(groups) + ")");
  }
  options.groups = groups;
  if (options.scale) {
    gamma = add_weight("gamma", Shape{channels}, options.gamma_initializer,
                       {.regularizer = options.gamma_regularizer, .constraint = options.gamma_constraint});
  }
  if (options.center) {
    beta = add_weight("beta", Shape{channels}, options.beta_initializer,
                      {.regularizer = options.beta_regularizer, .constraint = options.beta_constraint});
  }
}

std::vector<Output> GroupNormalizationImpl::call(Graph& graph, const std::vector<Output>& inputs) {
  const Output& x = inputs[0];
  const Shape& s = x.shape();
  const int axis = s.normalize_axis(static_cast<int>(options.axis));
  const std::int64_t groups = options.groups, channels = s[axis];
  // (batch, ..., groups, channels / groups, ...): the group axis where the channels were;
  // the other dims as fed (None ones too).
  std::vector<std::int64_t> grouped{ops::dim_from(0)};
  for (int i = 1; i < s.rank(); ++i) {
    if (i == axis) {
      grouped.push_back(groups);
      grouped.push_back(channels / groups);
    } else {
      grouped.push_back(s[i] == kUnknownDim ? ops::dim_from(i) : s[i]);
    }
  }
  std::vector<std::int64_t> reduced, param_shape(grouped.size(), 1);
  for (int i = 1; i < static_cast<int>(grouped.size()); ++i) {
    if (i != axis) reduced.push_back(i);
  }
  param_shape[static_cast<std::size_t>(axis)] = groups;
  param_shape[static_cast<std::size_t>(axis) + 1] = channels / groups;
  Output g = ops::reshape(x, grouped, {});
  Output mean = ops::reduce_mean(g, reduced, true);
  Output variance = ops::reduce_mean(ops::square(ops::sub(g, mean)), reduced, true);
  Output inv = ops::div(1.f, ops::sqrt(ops::add(variance, static_cast<float>(options.epsilon))));
  if (options.scale) inv = ops::mul(inv, ops::reshape(graph.variable(gamma), param_shape));
  Output shift = ops::neg(ops::mul(mean, inv));
  if (options.center) shift = ops::add(shift, ops::reshape(graph.variable(beta), param_shape));
  return {ops::reshape_like(ops::add(ops::mul(g, inv), shift), x)};
}

GroupNormalization::GroupNormalization(GroupNormalizationOptions options)
    : Layer(std::make_shared<GroupNormalizationImpl>(std::move(options))) {}

namespace {
const bool group_normalization_registered = register_keras_class(
    describe_layer<GroupNormalization>("GroupNormalization", &GroupNormalizationImpl::options));
}  // namespace

}  // namespace strata::layers
