#include "layers/activations/softmax.h"

#include "core/error.h"
#include "core/ops.h"
#include "layers/activations.h"

namespace strata::layers {

namespace {
// What Keras's Softmax puts in place of a hidden input (float32; -3e4 for float16).
constexpr float kHiddenLogit = -1.0e9f;

// Keras's check at its call: the mask broadcasts against the inputs from the right, each
// known dim 1 or the input's, and has no more dims than they do.
void check_broadcastable(const std::string& where, const Shape& inputs, const Shape& mask) {
  bool fits = mask.rank() <= inputs.rank();
  for (int i = 1; fits && i <= mask.rank(); ++i) {
    const std::int64_t m = mask[mask.rank() - i], x = inputs[inputs.rank() - i];
    fits = m == kUnknownDim || x == kUnknownDim || m == 1 || m == x;
  }
  if (!fits) {
    throw ValueError(where + ": the mask must be broadcastable to the inputs (from the right, each mask dimension 1 "
                             "or the input's, and no more dimensions). Received: inputs.shape=" +
                     inputs.to_string() + ", mask.shape=" + mask.to_string());
  }
}
}  // namespace

SoftmaxImpl::SoftmaxImpl(SoftmaxOptions options_)
    : LayerImpl("Softmax", options_.name), options(std::move(options_)) {
  supports_masking = true;
}

std::vector<Output> SoftmaxImpl::call(Graph& graph, const std::vector<Output>& inputs) {
  return call_masked(graph, inputs, {});
}

std::vector<Output> SoftmaxImpl::call_masked(Graph& graph, const std::vector<Output>& all,
                                             const std::vector<Output>& masks) {
  const CallInputs<Output> call = split_call_inputs(*this, current_arguments, all);
  Output x = call.inputs[0];
  const Output mask = mask_argument_or_input_mask(call, masks);
  if (!mask.valid()) return {activations::softmax_over(x, options.axis.values)};
  check_broadcastable("Softmax '" + name + "'", x.shape(), mask.shape());
  // Keras keeps a bool mask's true positions and a numeric mask's values above 0.5 (an
  // integer mask's above 0: 0.5 cast to its dtype), then numpy.where(mask, inputs, -1e9).
  const Output as_float = mask.dtype() == DType::float32 ? mask : ops::cast(mask, DType::float32);
  const Output keep = ops::greater(as_float, ops::constant(graph, 0.5f));
  x = ops::where(keep, x, ops::constant(graph, kHiddenLogit));
  // Zeros where hidden: a row hidden entirely would otherwise be uniform.
  return {ops::where(keep, activations::softmax_over(x, options.axis.values), ops::constant(graph, 0.f))};
}

std::vector<Output> SoftmaxImpl::compute_mask(Graph&, const std::vector<Output>& all,
                                              const std::vector<Output>& masks) {
  // Keras passes on the mask given with the call, as given, else the input's.
  const Output mask = mask_argument_or_input_mask(split_call_inputs(*this, current_arguments, all), masks);
  if (!mask.valid()) return {};
  return {mask};
}

Softmax::Softmax(SoftmaxOptions options)
    : Layer(std::make_shared<SoftmaxImpl>(std::move(options))) {}

KerasTensor Softmax::operator()(const KerasTensor& input, SoftmaxCall call) const {
  if (!call.mask.defined()) return (*this)(input);
  return call_with({input, call.mask}, {{"mask", true}})[0];
}

namespace {
const bool softmax_registered =
    register_keras_class(describe_layer<Softmax>("Softmax", &SoftmaxImpl::options));
}  // namespace

}  // namespace strata::layers
