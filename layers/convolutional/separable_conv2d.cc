#include "layers/convolutional/separable_conv2d.h"

#include "core/error.h"
#include "core/ops.h"
#include "core/ops/conv_ops.h"
#include "layers/activations.h"
#include "layers/convolutional/depthwise_conv2d.h"

namespace strata::layers {

SeparableConv2DImpl::SeparableConv2DImpl(std::int64_t filters_, IntPair kernel_size_, SeparableConv2DOptions options_)
    : LayerImpl("SeparableConv2D", options_.name), filters(filters_), kernel_size(kernel_size_),
      options(std::move(options_)) {
  activity_regularizer = options.activity_regularizer;
  if (filters <= 0) throw ValueError("SeparableConv2D: filters must be positive, got " + std::to_string(filters));
  check_positive("SeparableConv2D", "kernel_size", kernel_size.vec());
  if (options.depth_multiplier <= 0) throw ValueError("SeparableConv2D: depth_multiplier must be positive");
  check_padding(options.padding, {"valid", "same"});
  is_channels_first(options.data_format);
  activations::validate(options.activation);
}

void SeparableConv2DImpl::build(const std::vector<TensorSpec>& inputs) {
  const std::int64_t channels = input_channels(inputs[0].shape, 2, is_channels_first(options.data_format));
  const std::int64_t dm = options.depth_multiplier;
  depthwise_kernel = add_weight("depthwise_kernel", Shape{kernel_size.first, kernel_size.second, channels, dm},
                                options.depthwise_initializer,
                                {.regularizer = options.depthwise_regularizer, .constraint = options.depthwise_constraint});
  pointwise_kernel = add_weight("pointwise_kernel", Shape{1, 1, channels * dm, filters}, options.pointwise_initializer,
                                {.regularizer = options.pointwise_regularizer, .constraint = options.pointwise_constraint});
  if (options.use_bias) {
    bias = add_weight("bias", Shape{filters}, options.bias_initializer,
                      {.regularizer = options.bias_regularizer, .constraint = options.bias_constraint});
  }
}

std::vector<Output> SeparableConv2DImpl::call(Graph& graph, const std::vector<Output>& inputs) {
  const bool cf = is_channels_first(options.data_format);
  expect_spatial_input(inputs[0], 4, cf ? "(batch, channels, rows, cols)" : "(batch, rows, cols, channels)");
  Output x = cf ? to_channels_last(inputs[0]) : inputs[0];
  Output y = depthwise_conv2d(x, graph.variable(depthwise_kernel), options.padding, options.strides,
                              options.dilation_rate);
  y = ops::conv2d(y, graph.variable(pointwise_kernel), {});
  if (options.use_bias) y = ops::add(y, graph.variable(bias));
  y = activations::apply(options.activation, y);
  return {cf ? to_channels_first(y) : y};
}

SeparableConv2D::SeparableConv2D(std::int64_t filters, IntPair kernel_size, SeparableConv2DOptions options)
    : Layer(std::make_shared<SeparableConv2DImpl>(filters, kernel_size, std::move(options))) {}

namespace {
// Weights in Keras's order (depthwise_kernel, pointwise_kernel, bias), all in the layer's
// own "vars" in a .keras file.
const bool separable_conv2d_registered = register_keras_class(
    describe_layer<SeparableConv2D>("SeparableConv2D", &SeparableConv2DImpl::options,
                                    keras_field("filters", &SeparableConv2DImpl::filters).at_least(1),
                                    keras_field("kernel_size", &SeparableConv2DImpl::kernel_size).at_least(1)));
}  // namespace

}  // namespace strata::layers
