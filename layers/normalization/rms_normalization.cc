#include "layers/normalization/rms_normalization.h"

#include <algorithm>

#include "core/error.h"
#include "core/ops.h"

namespace strata::layers {

namespace {
// The axes normalized over, checked against the input and in Keras's order: its values sorted
// as given (so [-1, 1] stays [-1, 1]), which orders the dims of `scale`.
std::vector<int> axes_of(const Shape& s, std::vector<std::int64_t> axis) {
  std::sort(axis.begin(), axis.end());
  std::vector<int> out;
  for (auto a : axis) {
    if (a >= s.rank() || a < -s.rank()) {
      throw ValueError("axis " + std::to_string(a) + " is out of bounds for input shape " + s.to_string());
    }
    const int n = s.normalize_axis(static_cast<int>(a));
    if (n == 0) throw ValueError("RMSNormalization cannot normalize over the batch axis");
    out.push_back(n);
  }
  return out;
}
}  // namespace

RMSNormalizationImpl::RMSNormalizationImpl(RMSNormalizationOptions o)
    : LayerImpl("RMSNormalization", o.name), options(std::move(o)) {
  if (options.axis.empty()) throw ValueError("RMSNormalization: axis must name at least one axis");
}

void RMSNormalizationImpl::build(const std::vector<TensorSpec>& inputs) {
  const Shape& s = inputs[0].shape;
  std::vector<std::int64_t> dims;
  for (int a : axes_of(s, options.axis)) {
    if (s.dims()[a] == kUnknownDim) throw ShapeError("the normalized axes must be known, got " + s.to_string());
    dims.push_back(s.dims()[a]);
  }
  scale = add_weight("scale", Shape(dims), "ones");
}

std::vector<Output> RMSNormalizationImpl::call(Graph& graph, const std::vector<Output>& inputs) {
  const Output& x = inputs[0];
  std::vector<std::int64_t> axes;
  for (int a : axes_of(x.shape(), options.axis)) axes.push_back(a);
  const Output mean_square = ops::reduce_mean(ops::square(x), axes, true);
  const Output inverse_rms = ops::div(1.f, ops::sqrt(ops::add(mean_square, static_cast<float>(options.epsilon))));
  // `scale` broadcasts against the input as NumPy does, as Keras multiplies it; a shape that
  // does not broadcast is a definition-time ShapeError here.
  return {ops::mul(ops::mul(x, inverse_rms), graph.variable(scale))};
}

RMSNormalization::RMSNormalization(RMSNormalizationOptions options)
    : Layer(std::make_shared<RMSNormalizationImpl>(std::move(options))) {}

namespace {
const bool rms_normalization_registered = register_keras_class(
    describe_layer<RMSNormalization>("RMSNormalization", &RMSNormalizationImpl::options));
}  // namespace

}  // namespace strata::layers
