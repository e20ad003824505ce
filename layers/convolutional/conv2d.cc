#include "layers/convolutional/conv2d.h"

#include "core/error.h"
#include "core/ops.h"
#include "core/ops/conv_ops.h"
#include "layers/activations.h"

namespace strata::layers {

Conv2DImpl::Conv2DImpl(std::int64_t filters_, IntPair kernel_size_, Conv2DOptions options_)
    : LayerImpl("Conv2D", options_.name), filters(filters_), kernel_size(kernel_size_), options(std::move(options_)) {
  if (filters <= 0) throw ValueError("Conv2D: filters must be positive, got " + std::to_string(filters));
  if (kernel_size.first <= 0 || kernel_size.second <= 0) throw ValueError("Conv2D: kernel_size must be positive");
  if (options.groups <= 0 || filters % options.groups != 0) {
    throw ValueError("Conv2D: filters (" + std::to_string(filters) + ") must be divisible by groups (" +
                     std::to_string(options.groups) + ")");
  }
  check_padding(options.padding, {"valid", "same"});
  is_channels_first(options.data_format);
  activations::validate(options.activation);
}

void Conv2DImpl::build(const std::vector<TensorSpec>& inputs) {
  const Shape& s = inputs[0].shape;
  if (s.rank() != 4) throw ShapeError("expects input of rank 4 (batch, rows, cols, channels), got " + s.to_string());
  std::int64_t channels = s.dims()[is_channels_first(options.data_format) ? 1 : 3];
  if (channels == kUnknownDim) throw ShapeError("the channel dimension of the input must be known, got " + s.to_string());
  if (channels % options.groups != 0) {
    throw ShapeError("input channels " + std::to_string(channels) + " are not divisible by groups " +
                     std::to_string(options.groups) + " (input " + s.to_string() + ")");
  }
  kernel = add_weight("kernel", Shape{kernel_size.first, kernel_size.second, channels / options.groups, filters},
                      options.kernel_initializer);
  if (options.use_bias) bias = add_weight("bias", Shape{filters}, options.bias_initializer);
}

std::vector<Output> Conv2DImpl::call(Graph& graph, const std::vector<Output>& inputs) {
  const bool cf = is_channels_first(options.data_format);
  expect_spatial_input(inputs[0], 4, cf ? "(batch, channels, rows, cols)" : "(batch, rows, cols, channels)");
  Output x = cf ? to_channels_last(inputs[0]) : inputs[0];
  const std::int64_t expected = kernel.shape()[2] * options.groups;
  if (x.shape()[3] != expected) {
    throw ShapeError("expects input with " + std::to_string(expected) + " channels (kernel " +
                     kernel.shape().to_string() + "), got " + inputs[0].shape().to_string());
  }
  auto [pt, pb] = padding_amounts(options.padding, x.shape()[1], kernel_size.first, options.strides.first,
                                  options.dilation_rate.first);
  auto [pl, pr] = padding_amounts(options.padding, x.shape()[2], kernel_size.second, options.strides.second,
                                  options.dilation_rate.second);
  // Bias and relu run inside the conv kernel; other activations follow as their own ops.
  const bool fused_relu = options.activation == "relu";
  Output y = ops::conv2d_bias_activation(
      x, graph.variable(kernel), options.use_bias ? graph.variable(bias) : Output{}, fused_relu ? "relu" : "",
      {options.strides.vec(), options.dilation_rate.vec(), {pt, pb, pl, pr}, options.groups});
  if (!fused_relu) y = activations::apply(options.activation, y);
  return {cf ? to_channels_first(y) : y};
}

Conv2D::Conv2D(std::int64_t filters, IntPair kernel_size, Conv2DOptions options)
    : Layer(std::make_shared<Conv2DImpl>(filters, kernel_size, std::move(options))) {}

namespace {
// Keras 2 writes the tuples as lists ([3, 3]); ints are read too.
const bool registered = register_keras_class(
    describe_layer<Conv2D>("Conv2D", &Conv2DImpl::options, keras_field("filters", &Conv2DImpl::filters).at_least(1),
                           keras_field("kernel_size", &Conv2DImpl::kernel_size).at_least(1))
        .unmodeled({"kernel_regularizer", "bias_regularizer", "activity_regularizer", "kernel_constraint", "bias_constraint"}));
}  // namespace

}  // namespace strata::layers
