#include "layers/convolutional/depthwise_conv2d.h"

#include "core/error.h"
#include "core/ops.h"
#include "core/ops/conv_ops.h"
#include "layers/activations.h"
#include "layers/core/low_precision_product.h"

namespace strata::layers {

Output depthwise_conv2d(Output x, Output kernel, const std::string& padding, IntPair strides, IntPair dilation_rate) {
  const Shape& k = kernel.shape();
  const std::int64_t channels = k.dims()[2], dm = k.dims()[3];
  if (x.shape()[3] != channels) {
    throw ShapeError("expects input with " + std::to_string(channels) + " channels (depthwise kernel " +
                     k.to_string() + "), got " + x.shape().to_string());
  }
  auto [pt, pb] = padding_amounts(padding, x.shape()[1], k.dims()[0], strides.first, dilation_rate.first);
  auto [pl, pr] = padding_amounts(padding, x.shape()[2], k.dims()[1], strides.second, dilation_rate.second);
  // (kh, kw, C, dm) -> (kh, kw, 1, C·dm): group c owns output channels [c·dm, (c+1)·dm).
  Output grouped = ops::reshape(kernel, {k.dims()[0], k.dims()[1], 1, channels * dm});
  return ops::conv2d(x, grouped, {strides.vec(), dilation_rate.vec(), {pt, pb, pl, pr}, channels});
}

DepthwiseConv2DImpl::DepthwiseConv2DImpl(IntPair kernel_size_, DepthwiseConv2DOptions options_)
    : LayerImpl("DepthwiseConv2D", options_.name), kernel_size(kernel_size_), options(std::move(options_)) {
  activity_regularizer = options.activity_regularizer;
  check_positive("DepthwiseConv2D", "kernel_size", kernel_size.vec());
  if (options.depth_multiplier <= 0) throw ValueError("DepthwiseConv2D: depth_multiplier must be positive");
  check_padding(options.padding, {"valid", "same"});
  is_channels_first(options.data_format);
  activations::validate(options.activation);
}

void DepthwiseConv2DImpl::build(const std::vector<TensorSpec>& inputs) {
  const std::int64_t channels = input_channels(inputs[0].shape, 2, is_channels_first(options.data_format));
  depthwise_kernel = add_weight("depthwise_kernel",
                                Shape{kernel_size.first, kernel_size.second, channels, options.depth_multiplier},
                                options.depthwise_initializer,
                                {.regularizer = options.depthwise_regularizer, .constraint = options.depthwise_constraint});
  if (options.use_bias) {
    bias = add_weight("bias", Shape{channels * options.depth_multiplier}, options.bias_initializer,
                      {.regularizer = options.bias_regularizer, .constraint = options.bias_constraint});
  }
}

std::vector<Output> DepthwiseConv2DImpl::call(Graph& graph, const std::vector<Output>& inputs) {
  const bool cf = is_channels_first(options.data_format);
  expect_spatial_input(inputs[0], 4, cf ? "(batch, channels, rows, cols)" : "(batch, rows, cols, channels)");
  Output x = cf ? to_channels_last(inputs[0]) : inputs[0];
  if (graph.precision() == ComputePrecision::float16) {
    throw NotImplementedError("in float16 Keras's TensorFlow backend rounds the sum after each kernel tap, which "
                              "Strata does not emulate yet (bfloat16 it does; docs/precision.md)");
  }
  if (graph.precision() == ComputePrecision::bfloat16) {  // a oneDNN-fused convolution, rounded once
    check_low_precision_activation(graph, options.activation, true);
    Output y = low_precision_product(graph, true, x, graph.variable(depthwise_kernel),
                                     options.use_bias ? graph.variable(bias) : Output{}, options.activation,
                                     [&](Output a, Output k) {
                                       return depthwise_conv2d(a, k, options.padding, options.strides,
                                                               options.dilation_rate);
                                     });
    return {cf ? to_channels_first(y) : y};
  }
  Output y = depthwise_conv2d(x, graph.variable(depthwise_kernel), options.padding, options.strides,
                              options.dilation_rate);
  if (options.use_bias) y = ops::add(y, graph.variable(bias));
  y = activations::apply(options.activation, y);
  return {cf ? to_channels_first(y) : y};
}

DepthwiseConv2D::DepthwiseConv2D(IntPair kernel_size, DepthwiseConv2DOptions options)
    : Layer(std::make_shared<DepthwiseConv2DImpl>(kernel_size, std::move(options))) {}

namespace {
const bool depthwise_conv2d_registered = register_keras_class(
    describe_layer<DepthwiseConv2D>("DepthwiseConv2D", &DepthwiseConv2DImpl::options,
                                    keras_field("kernel_size", &DepthwiseConv2DImpl::kernel_size).at_least(1)));
}  // namespace

}  // namespace strata::layers
