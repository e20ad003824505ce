#include "layers/convolutional/depthwise_conv1d.h"

#include "core/error.h"
#include "core/ops.h"
#include "core/ops/array_ops.h"
#include "layers/activations.h"
#include "layers/convolutional/depthwise_conv2d.h"

namespace strata::layers {

Output depthwise_conv1d(Output x, Output kernel, const std::string& padding, std::int64_t strides,
                        std::int64_t dilation_rate) {
  const Shape& k = kernel.shape();
  const Output rows = ops::expand_dims(x, 1);  // (N, 1, L, C)
  const Output kernel2d = ops::reshape(kernel, {1, k.dims()[0], k.dims()[1], k.dims()[2]});
  const Output y = depthwise_conv2d(rows, kernel2d, padding, {1, strides}, {1, dilation_rate});
  return ops::merge_axes(y, 1, 2);  // (N, 1, L', C·dm) -> (N, L', C·dm); L' may be None
}

DepthwiseConv1DImpl::DepthwiseConv1DImpl(std::int64_t kernel_size_, DepthwiseConv1DOptions options_)
    : LayerImpl("DepthwiseConv1D", options_.name), kernel_size(kernel_size_), options(std::move(options_)) {
  activity_regularizer = options.activity_regularizer;
  check_positive("DepthwiseConv1D", "kernel_size", {kernel_size});
  check_positive("DepthwiseConv1D", "strides", {options.strides});
  check_positive("DepthwiseConv1D", "dilation_rate", {options.dilation_rate});
  if (options.depth_multiplier <= 0) throw ValueError("DepthwiseConv1D: depth_multiplier must be positive");
  check_padding(options.padding, {"valid", "same"});
  is_channels_first(options.data_format);
  activations::validate(options.activation);
}

void DepthwiseConv1DImpl::build(const std::vector<TensorSpec>& inputs) {
  const std::int64_t channels = input_channels(inputs[0].shape, 1, is_channels_first(options.data_format));
  kernel = add_weight("kernel", Shape{kernel_size, channels, options.depth_multiplier}, options.depthwise_initializer,
                      {.regularizer = options.depthwise_regularizer, .constraint = options.depthwise_constraint});
  if (options.use_bias) {
    bias = add_weight("bias", Shape{channels * options.depth_multiplier}, options.bias_initializer,
                      {.regularizer = options.bias_regularizer, .constraint = options.bias_constraint});
  }
}

std::vector<Output> DepthwiseConv1DImpl::call(Graph& graph, const std::vector<Output>& inputs) {
  const bool cf = is_channels_first(options.data_format);
  expect_spatial_input(inputs[0], 3, cf ? "(batch, channels, steps)" : "(batch, steps, channels)");
  Output x = cf ? to_channels_last(inputs[0]) : inputs[0];
  Output y = depthwise_conv1d(x, graph.variable(kernel), options.padding, options.strides, options.dilation_rate);
  if (options.use_bias) y = ops::add(y, graph.variable(bias));
  y = activations::apply(options.activation, y);
  return {cf ? to_channels_first(y) : y};
}

DepthwiseConv1D::DepthwiseConv1D(std::int64_t kernel_size, DepthwiseConv1DOptions options)
    : Layer(std::make_shared<DepthwiseConv1DImpl>(kernel_size, std::move(options))) {}

namespace {
const bool depthwise_conv1d_registered = register_keras_class(describe_layer<DepthwiseConv1D>(
    "DepthwiseConv1D", &DepthwiseConv1DImpl::options,
    keras_field("kernel_size", &DepthwiseConv1DImpl::kernel_size, Spelling::window1).at_least(1)));
}  // namespace

}  // namespace strata::layers
