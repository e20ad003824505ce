#include "layers/softmax.h"

#include "core/error.h"
#include "core/ops.h"

namespace strata::layers {

SoftmaxImpl::SoftmaxImpl(SoftmaxOptions options_)
    : LayerImpl("Softmax", options_.name), options(std::move(options_)) {}

std::vector<Output> SoftmaxImpl::call(Graph& graph, const std::vector<Output>& inputs) {
  Output x = inputs[0];
  const auto rank = static_cast<std::int64_t>(x.shape().rank());
  std::vector<std::int64_t> axes;
  for (std::int64_t a : options.axis.values) {
    if (a < -rank || a >= rank) {
      throw ValueError("axis " + std::to_string(a) + " is out of range for input " +
                       x.shape().to_string());
    }
    axes.push_back(a < 0 ? a + rank : a);
  }
  Output keep;
  if (inputs.size() == 2) {
    keep = ops::greater(inputs[1], ops::constant(graph, 0.5f));  // bool or float masks
    x = ops::add(x, ops::mul(ops::sub(ops::constant(graph, 1.0f), keep), -1e9f));
  }
  Output y;
  if (axes.size() == 1) {
    y = ops::softmax(x, static_cast<int>(axes[0]));
  } else {
    // exp(x - logsumexp(x, axes)), the max subtracted for range.
    const Output shifted = ops::sub(x, ops::stop_gradient(ops::reduce_max(x, axes, true)));
    const Output e = ops::exp(shifted);
    y = ops::div(e, ops::reduce_sum(e, axes, true));
  }
  return {keep.valid() ? ops::mul(y, keep) : y};
}

Softmax::Softmax(SoftmaxOptions options)
    : Layer(std::make_shared<SoftmaxImpl>(std::move(options))) {}

namespace {
const bool registered =
    register_keras_class(describe_layer<Softmax>("Softmax", &SoftmaxImpl::options));
}  // namespace

}  // namespace strata::layers
