#include "layers/convolutional/conv3d.h"

#include "core/error.h"
#include "core/ops.h"
#include "core/ops/conv3d_ops.h"
#include "layers/activations.h"

namespace strata::layers {

Conv3DImpl::Conv3DImpl(std::int64_t filters_, IntTriple kernel_size_, Conv3DOptions options_)
    : LayerImpl("Conv3D", options_.name), filters(filters_), kernel_size(kernel_size_), options(std::move(options_)) {
  if (filters <= 0) throw ValueError("Conv3D: filters must be positive, got " + std::to_string(filters));
  for (auto v : kernel_size.vec()) {
    if (v <= 0) throw ValueError("Conv3D: kernel_size must be positive");
  }
  for (auto v : options.strides.vec()) {
    if (v <= 0) throw ValueError("Conv3D: strides must be positive");
  }
  for (auto v : options.dilation_rate.vec()) {
    if (v <= 0) throw ValueError("Conv3D: dilation_rate must be positive");
  }
  if (options.groups <= 0 || filters % options.groups != 0) {
    throw ValueError("Conv3D: filters (" + std::to_string(filters) + ") must be divisible by groups (" +
                     std::to_string(options.groups) + ")");
  }
  check_padding(options.padding, {"valid", "same"});
  is_channels_first(options.data_format);
  activations::validate(options.activation);
}

void Conv3DImpl::build(const std::vector<TensorSpec>& inputs) {
  const Shape& s = inputs[0].shape;
  if (s.rank() != 5) {
    throw ShapeError("expects input of rank 5 (batch, depth, rows, cols, channels), got " + s.to_string());
  }
  const std::int64_t channels = s.dims()[is_channels_first(options.data_format) ? 1 : 4];
  if (channels == kUnknownDim) throw ShapeError("the channel dimension of the input must be known, got " + s.to_string());
  if (channels % options.groups != 0) {
    throw ShapeError("input channels " + std::to_string(channels) + " are not divisible by groups " +
                     std::to_string(options.groups) + " (input " + s.to_string() + ")");
  }
  kernel = add_weight("kernel",
                      Shape{kernel_size.first, kernel_size.second, kernel_size.third, channels / options.groups, filters},
                      options.kernel_initializer);
  if (options.use_bias) bias = add_weight("bias", Shape{filters}, options.bias_initializer);
}

std::vector<Output> Conv3DImpl::call(Graph& graph, const std::vector<Output>& inputs) {
  const bool cf = is_channels_first(options.data_format);
  expect_spatial_input(inputs[0], 5, cf ? "(batch, channels, depth, rows, cols)" : "(batch, depth, rows, cols, channels)");
  Output x = cf ? to_channels_last(inputs[0]) : inputs[0];
  const std::int64_t expected = kernel.shape()[3] * options.groups;
  if (x.shape()[4] != expected) {
    throw ShapeError("expects input with " + std::to_string(expected) + " channels (kernel " +
                     kernel.shape().to_string() + "), got " + inputs[0].shape().to_string());
  }
  const auto window = kernel_size.vec(), strides = options.strides.vec(), dilation = options.dilation_rate.vec();
  std::vector<std::int64_t> pads;
  for (std::size_t a = 0; a < 3; ++a) {
    auto [before, after] = padding_amounts(options.padding, x.shape()[static_cast<int>(a) + 1], window[a], strides[a],
                                           dilation[a]);
    pads.push_back(before);
    pads.push_back(after);
  }
  Output y = ops::conv3d(x, graph.variable(kernel), {strides, dilation, pads, options.groups});
  if (options.use_bias) y = ops::add(y, graph.variable(bias));
  y = activations::apply(options.activation, y);
  return {cf ? to_channels_first(y) : y};
}

Conv3D::Conv3D(std::int64_t filters, IntTriple kernel_size, Conv3DOptions options)
    : Layer(std::make_shared<Conv3DImpl>(filters, kernel_size, std::move(options))) {}

namespace {
// Keras 2 writes the tuples as lists ([3, 3, 3]); ints are read too.
const bool registered = register_keras_class(
    describe_layer<Conv3D>("Conv3D", &Conv3DImpl::options, keras_field("filters", &Conv3DImpl::filters).at_least(1),
                           keras_field("kernel_size", &Conv3DImpl::kernel_size).at_least(1))
        .unmodeled({"kernel_regularizer", "bias_regularizer", "activity_regularizer", "kernel_constraint", "bias_constraint"}));
}  // namespace

}  // namespace strata::layers
