#include "layers/convolutional/conv1d.h"

#include "core/error.h"
#include "core/ops.h"
#include "core/ops/conv_ops.h"
#include "layers/activations.h"
#include "layers/convolutional/conv_utils.h"

namespace strata::layers {

Conv1DImpl::Conv1DImpl(std::int64_t filters_, std::int64_t kernel_size_, Conv1DOptions options_)
    : LayerImpl("Conv1D", options_.name), filters(filters_), kernel_size(kernel_size_), options(std::move(options_)) {
  if (filters <= 0) throw ValueError("Conv1D: filters must be positive, got " + std::to_string(filters));
  if (kernel_size <= 0) throw ValueError("Conv1D: kernel_size must be positive");
  if (options.strides <= 0 || options.dilation_rate <= 0) throw ValueError("Conv1D: strides and dilation_rate must be positive");
  if (options.groups <= 0 || filters % options.groups != 0) {
    throw ValueError("Conv1D: filters (" + std::to_string(filters) + ") must be divisible by groups (" +
                     std::to_string(options.groups) + ")");
  }
  check_padding(options.padding, {"valid", "same", "causal"});
  is_channels_first(options.data_format);
  activations::validate(options.activation);
}

void Conv1DImpl::build(const std::vector<TensorSpec>& inputs) {
  const Shape& s = inputs[0].shape;
  if (s.rank() != 3) throw ShapeError("expects input of rank 3 (batch, steps, channels), got " + s.to_string());
  std::int64_t channels = s.dims()[is_channels_first(options.data_format) ? 1 : 2];
  if (channels == kUnknownDim) throw ShapeError("the channel dimension of the input must be known, got " + s.to_string());
  if (channels % options.groups != 0) {
    throw ShapeError("input channels " + std::to_string(channels) + " are not divisible by groups " +
                     std::to_string(options.groups));
  }
  kernel = add_weight("kernel", Shape{kernel_size, channels / options.groups, filters}, options.kernel_initializer);
  if (options.use_bias) bias = add_weight("bias", Shape{filters}, options.bias_initializer);
}

std::vector<Output> Conv1DImpl::call(Graph& graph, const std::vector<Output>& inputs) {
  const bool cf = is_channels_first(options.data_format);
  expect_spatial_input(inputs[0], 3, cf ? "(batch, channels, steps)" : "(batch, steps, channels)");
  Output x = cf ? to_channels_last(inputs[0]) : inputs[0];
  const std::int64_t steps = x.shape()[1], channels = x.shape()[2];
  const std::int64_t expected = kernel.shape()[1] * options.groups;
  if (channels != expected) {
    throw ShapeError("expects input with " + std::to_string(expected) + " channels (kernel " +
                     kernel.shape().to_string() + "), got " + inputs[0].shape().to_string());
  }
  auto [before, after] = padding_amounts(options.padding, steps, kernel_size, options.strides, options.dilation_rate);
  Output k = ops::reshape(graph.variable(kernel), {1, kernel_size, kernel.shape()[1], filters});
  Output y = ops::conv2d(ops::reshape(x, {-1, 1, steps, channels}), k,
                         {{1, options.strides}, {1, options.dilation_rate}, {0, 0, before, after}, options.groups});
  y = ops::reshape(y, {-1, y.shape()[2], filters});
  if (options.use_bias) y = ops::add(y, graph.variable(bias));
  y = activations::apply(options.activation, y);
  return {cf ? to_channels_first(y) : y};
}

Conv1D::Conv1D(std::int64_t filters, std::int64_t kernel_size, Conv1DOptions options)
    : Layer(std::make_shared<Conv1DImpl>(filters, kernel_size, std::move(options))) {}

namespace {
// Keras 2 writes the 1-tuples as one-element lists ("kernel_size": [2]); ints are read too.
const bool registered = register_keras_class(
    describe_layer<Conv1D>("Conv1D", &Conv1DImpl::options, keras_field("filters", &Conv1DImpl::filters).at_least(1),
                           keras_field("kernel_size", &Conv1DImpl::kernel_size, Spelling::window1).at_least(1))
        .unmodeled({"kernel_regularizer", "bias_regularizer", "activity_regularizer", "kernel_constraint", "bias_constraint"}));
}  // namespace

}  // namespace strata::layers
