#include "layers/normalization/layer_normalization.h"

#include <algorithm>

#include "core/error.h"
#include "core/ops.h"

namespace strata::layers {

namespace {
std::vector<int> normalized_axes(const Shape& s, const std::vector<std::int64_t>& axis) {
  std::vector<int> out;
  for (auto a : axis) out.push_back(s.normalize_axis(static_cast<int>(a)));
  std::sort(out.begin(), out.end());
  return out;
}
}  // namespace

LayerNormalizationImpl::LayerNormalizationImpl(LayerNormalizationOptions o)
    : LayerImpl("LayerNormalization", o.name), options(std::move(o)) {
  supports_masking = true;
  if (options.axis.empty()) throw ValueError("LayerNormalization: axis must name at least one axis");
}

void LayerNormalizationImpl::build(const std::vector<TensorSpec>& inputs) {
  input_shape = inputs[0].shape;
  std::vector<std::int64_t> pshape;
  for (int a : normalized_axes(input_shape, options.axis)) {
    if (a == 0) throw ValueError("LayerNormalization: cannot normalize over the batch axis");
    if (input_shape.dims()[a] == kUnknownDim) {
      throw ShapeError("the normalized axes must be known, got " + input_shape.to_string());
    }
    pshape.push_back(input_shape.dims()[a]);
  }
  if (options.scale || options.rms_scaling) {
    gamma = add_weight("gamma", Shape(pshape), options.gamma_initializer,
                       {.regularizer = options.gamma_regularizer, .constraint = options.gamma_constraint});
  }
  if (options.center && !options.rms_scaling) {
    beta = add_weight("beta", Shape(pshape), options.beta_initializer,
                      {.regularizer = options.beta_regularizer, .constraint = options.beta_constraint});
  }
}

std::vector<Output> LayerNormalizationImpl::call(Graph& graph, const std::vector<Output>& inputs) {
  const Output& x = inputs[0];
  const Shape& s = x.shape();
  if (s.rank() != input_shape.rank() || !s.is_compatible_with(input_shape)) {
    throw ShapeError("expects input of shape " + input_shape.to_string() + ", got " + s.to_string());
  }
  auto axes_int = normalized_axes(s, options.axis);
  std::vector<std::int64_t> axes(axes_int.begin(), axes_int.end());
  std::vector<std::int64_t> bshape(static_cast<std::size_t>(s.rank()), 1);
  for (int a : axes_int) bshape[a] = s.dims()[a];
  auto param = [&](const Variable& v) { return ops::reshape(graph.variable(v), bshape); };
  Output mean = ops::reduce_mean(x, axes, true);
  Output centered = ops::sub(x, mean);
  Output variance = ops::reduce_mean(ops::square(centered), axes, true);
  Output inv = ops::div(1.f, ops::sqrt(ops::add(variance, static_cast<float>(options.epsilon))));
  if (options.rms_scaling) return {ops::mul(ops::mul(x, inv), param(gamma))};  // x itself, as Keras's
  if (options.scale) inv = ops::mul(inv, param(gamma));
  Output y = ops::mul(centered, inv);
  if (options.center) y = ops::add(y, param(beta));
  return {y};
}

LayerNormalization::LayerNormalization(LayerNormalizationOptions options)
    : Layer(std::make_shared<LayerNormalizationImpl>(std::move(options))) {}

namespace {
const bool layer_normalization_registered = register_keras_class(
    describe_layer<LayerNormalization>("LayerNormalization", &LayerNormalizationImpl::options));
}  // namespace

}  // namespace strata::layers
