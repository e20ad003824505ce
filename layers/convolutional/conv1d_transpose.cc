#include "layers/convolutional/conv1d_transpose.h"

#include "core/error.h"
#include "core/ops.h"
#include "core/ops/conv_ops.h"
#include "layers/activations.h"
#include "layers/convolutional/conv_transpose_utils.h"

namespace strata::layers {

Conv1DTransposeImpl::Conv1DTransposeImpl(std::int64_t filters_, std::int64_t kernel_size_,
                                         Conv1DTransposeOptions options_)
    : LayerImpl("Conv1DTranspose", options_.name), filters(filters_), kernel_size(kernel_size_),
      options(std::move(options_)) {
  if (filters <= 0) throw ValueError("Conv1DTranspose: filters must be positive, got " + std::to_string(filters));
  if (kernel_size <= 0) throw ValueError("Conv1DTranspose: kernel_size must be positive");
  if (options.strides <= 0 || options.dilation_rate <= 0) {
    throw ValueError("Conv1DTranspose: strides and dilation_rate must be positive");
  }
  if (options.output_padding) check_output_padding("Conv1DTranspose", {*options.output_padding}, {options.strides});
  check_padding(options.padding, {"valid", "same"});
  is_channels_first(options.data_format);
  activations::validate(options.activation);
}

void Conv1DTransposeImpl::build(const std::vector<TensorSpec>& inputs) {
  const Shape& s = inputs[0].shape;
  if (s.rank() != 3) throw ShapeError("expects input of rank 3 (batch, steps, channels), got " + s.to_string());
  const std::int64_t channels = s.dims()[is_channels_first(options.data_format) ? 1 : 2];
  if (channels == kUnknownDim) throw ShapeError("the channel dimension of the input must be known, got " + s.to_string());
  kernel = add_weight("kernel", Shape{kernel_size, filters, channels}, options.kernel_initializer);
  if (options.use_bias) bias = add_weight("bias", Shape{filters}, options.bias_initializer);
}

std::vector<Output> Conv1DTransposeImpl::call(Graph& graph, const std::vector<Output>& inputs) {
  const bool cf = is_channels_first(options.data_format);
  expect_spatial_input(inputs[0], 3, cf ? "(batch, channels, steps)" : "(batch, steps, channels)");
  Output x = cf ? to_channels_last(inputs[0]) : inputs[0];
  const std::int64_t steps = x.shape()[1], channels = x.shape()[2];
  if (channels != kernel.shape()[2]) {
    throw ShapeError("expects input with " + std::to_string(kernel.shape()[2]) + " channels (kernel " +
                     kernel.shape().to_string() + "), got " + inputs[0].shape().to_string());
  }
  auto axis = transpose_axis(options.padding, steps, kernel_size, options.strides, options.dilation_rate,
                             options.output_padding);
  Output k = ops::reshape(graph.variable(kernel), {1, kernel_size, filters, channels});
  Output y = ops::conv2d_backprop_input(ops::reshape(x, {-1, 1, steps, channels}), k, {1, axis.out},
                                        {{1, options.strides}, {1, options.dilation_rate}, {0, 0, axis.before, axis.after}, 1});
  y = ops::reshape(y, {-1, axis.out, filters});
  if (options.use_bias) y = ops::add(y, graph.variable(bias));
  y = activations::apply(options.activation, y);
  return {cf ? to_channels_first(y) : y};
}

Conv1DTranspose::Conv1DTranspose(std::int64_t filters, std::int64_t kernel_size, Conv1DTransposeOptions options)
    : Layer(std::make_shared<Conv1DTransposeImpl>(filters, kernel_size, std::move(options))) {}

namespace {
// Keras writes the 1-tuples as one-element lists ("kernel_size": [3]); ints are read too.
const bool registered = register_keras_class(
    describe_layer<Conv1DTranspose>("Conv1DTranspose", &Conv1DTransposeImpl::options,
                                    keras_field("filters", &Conv1DTransposeImpl::filters).at_least(1),
                                    keras_field("kernel_size", &Conv1DTransposeImpl::kernel_size, Spelling::window1)
                                        .at_least(1))
        .unmodeled({"kernel_regularizer", "bias_regularizer", "activity_regularizer", "kernel_constraint", "bias_constraint"}));
}  // namespace

}  // namespace strata::layers
