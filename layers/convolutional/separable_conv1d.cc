#include "layers/convolutional/separable_conv1d.h"

#include "core/error.h"
#include "core/ops.h"
#include "layers/activations.h"
#include "layers/convolutional/depthwise_conv1d.h"

namespace strata::layers {

SeparableConv1DImpl::SeparableConv1DImpl(std::int64_t filters_, std::int64_t kernel_size_,
                                         SeparableConv1DOptions options_)
    : LayerImpl("SeparableConv1D", options_.name), filters(filters_), kernel_size(kernel_size_),
      options(std::move(options_)) {
  activity_regularizer = options.activity_regularizer;
  if (filters <= 0) throw ValueError("SeparableConv1D: filters must be positive, got " + std::to_string(filters));
  check_positive("SeparableConv1D", "kernel_size", {kernel_size});
  check_positive("SeparableConv1D", "strides", {options.strides});
  check_positive("SeparableConv1D", "dilation_rate", {options.dilation_rate});
  if (options.depth_multiplier <= 0) throw ValueError("SeparableConv1D: depth_multiplier must be positive");
  check_padding(options.padding, {"valid", "same"});
  is_channels_first(options.data_format);
  activations::validate(options.activation);
}

void SeparableConv1DImpl::build(const std::vector<TensorSpec>& inputs) {
  const std::int64_t channels = input_channels(inputs[0].shape, 1, is_channels_first(options.data_format));
  const std::int64_t dm = options.depth_multiplier;
  depthwise_kernel = add_weight("depthwise_kernel", Shape{kernel_size, channels, dm}, options.depthwise_initializer,
                                {.regularizer = options.depthwise_regularizer, .constraint = options.depthwise_constraint});
  pointwise_kernel = add_weight("pointwise_kernel", Shape{1, channels * dm, filters}, options.pointwise_initializer,
                                {.regularizer = options.pointwise_regularizer, .constraint = options.pointwise_constraint});
  if (options.use_bias) {
    bias = add_weight("bias", Shape{filters}, options.bias_initializer,
                      {.regularizer = options.bias_regularizer, .constraint = options.bias_constraint});
  }
}

std::vector<Output> SeparableConv1DImpl::call(Graph& graph, const std::vector<Output>& inputs) {
  const bool cf = is_channels_first(options.data_format);
  expect_spatial_input(inputs[0], 3, cf ? "(batch, channels, steps)" : "(batch, steps, channels)");
  Output x = cf ? to_channels_last(inputs[0]) : inputs[0];
  Output y = depthwise_conv1d(x, graph.variable(depthwise_kernel), options.padding, options.strides,
                              options.dilation_rate);
  // The pointwise step is a product over channels: (N, L', C·dm) x (C·dm, filters).
  const Shape& p = pointwise_kernel.shape();
  y = ops::matmul(y, ops::reshape(graph.variable(pointwise_kernel), {p.dims()[1], p.dims()[2]}));
  if (options.use_bias) y = ops::add(y, graph.variable(bias));
  y = activations::apply(options.activation, y);
  return {cf ? to_channels_first(y) : y};
}

SeparableConv1D::SeparableConv1D(std::int64_t filters, std::int64_t kernel_size, SeparableConv1DOptions options)
    : Layer(std::make_shared<SeparableConv1DImpl>(filters, kernel_size, std::move(options))) {}

namespace {
// Weights in Keras's order (depthwise_kernel, pointwise_kernel, bias).
const bool separable_conv1d_registered = register_keras_class(
    describe_layer<SeparableConv1D>("SeparableConv1D", &SeparableConv1DImpl::options,
                                    keras_field("filters", &SeparableConv1DImpl::filters).at_least(1),
                                    keras_field("kernel_size", &SeparableConv1DImpl::kernel_size, Spelling::window1)
                                        .at_least(1)));
}  // namespace

}  // namespace strata::layers
