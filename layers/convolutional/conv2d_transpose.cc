#include "layers/convolutional/conv2d_transpose.h"

#include "core/error.h"
#include "core/ops.h"
#include "core/ops/conv_ops.h"
#include "layers/activations.h"
#include "layers/convolutional/conv_transpose_utils.h"

namespace strata::layers {

Conv2DTransposeImpl::Conv2DTransposeImpl(std::int64_t filters_, IntPair kernel_size_, Conv2DTransposeOptions options_)
    : LayerImpl("Conv2DTranspose", options_.name), filters(filters_), kernel_size(kernel_size_),
      options(std::move(options_)) {
  if (filters <= 0) throw ValueError("Conv2DTranspose: filters must be positive, got " + std::to_string(filters));
  if (kernel_size.first <= 0 || kernel_size.second <= 0) throw ValueError("Conv2DTranspose: kernel_size must be positive");
  check_padding(options.padding, {"valid", "same"});
  is_channels_first(options.data_format);
  activations::validate(options.activation);
}

void Conv2DTransposeImpl::build(const std::vector<TensorSpec>& inputs) {
  const Shape& s = inputs[0].shape;
  if (s.rank() != 4) throw ShapeError("expects input of rank 4 (batch, rows, cols, channels), got " + s.to_string());
  std::int64_t channels = s.dims()[is_channels_first(options.data_format) ? 1 : 3];
  if (channels == kUnknownDim) throw ShapeError("the channel dimension of the input must be known, got " + s.to_string());
  kernel = add_weight("kernel", Shape{kernel_size.first, kernel_size.second, filters, channels},
                      options.kernel_initializer);
  if (options.use_bias) bias = add_weight("bias", Shape{filters}, options.bias_initializer);
}

std::vector<Output> Conv2DTransposeImpl::call(Graph& graph, const std::vector<Output>& inputs) {
  const bool cf = is_channels_first(options.data_format);
  expect_spatial_input(inputs[0], 4, cf ? "(batch, channels, rows, cols)" : "(batch, rows, cols, channels)");
  Output x = cf ? to_channels_last(inputs[0]) : inputs[0];
  if (x.shape()[3] != kernel.shape()[3]) {
    throw ShapeError("expects input with " + std::to_string(kernel.shape()[3]) + " channels (kernel " +
                     kernel.shape().to_string() + "), got " + inputs[0].shape().to_string());
  }
  auto rows = transpose_axis(options.padding, x.shape()[1], kernel_size.first, options.strides.first,
                             options.dilation_rate.first);
  auto cols = transpose_axis(options.padding, x.shape()[2], kernel_size.second, options.strides.second,
                             options.dilation_rate.second);
  Output y = ops::conv2d_backprop_input(
      x, graph.variable(kernel), {rows.out, cols.out},
      {options.strides.vec(), options.dilation_rate.vec(), {rows.before, rows.after, cols.before, cols.after}, 1});
  if (options.use_bias) y = ops::add(y, graph.variable(bias));
  y = activations::apply(options.activation, y);
  return {cf ? to_channels_first(y) : y};
}

Conv2DTranspose::Conv2DTranspose(std::int64_t filters, IntPair kernel_size, Conv2DTransposeOptions options)
    : Layer(std::make_shared<Conv2DTransposeImpl>(filters, kernel_size, std::move(options))) {}

namespace {
const bool registered = register_keras_class(
    describe_layer<Conv2DTranspose>("Conv2DTranspose", &Conv2DTransposeImpl::options,
                                    keras_field("filters", &Conv2DTransposeImpl::filters).at_least(1),
                                    keras_field("kernel_size", &Conv2DTransposeImpl::kernel_size).at_least(1))
        .unmodeled({"kernel_regularizer", "bias_regularizer", "activity_regularizer", "kernel_constraint", "bias_constraint"}));
}  // namespace

}  // namespace strata::layers
