#include "layers/convolutional/conv3d_transpose.h"

#include "core/error.h"
#include "core/ops.h"
#include "core/ops/conv3d_ops.h"
#include "layers/activations.h"
#include "layers/convolutional/conv_transpose_utils.h"

namespace strata::layers {

Conv3DTransposeImpl::Conv3DTransposeImpl(std::int64_t filters_, IntTriple kernel_size_, Conv3DTransposeOptions options_)
    : LayerImpl("Conv3DTranspose", options_.name), filters(filters_), kernel_size(kernel_size_),
      options(std::move(options_)) {
  if (filters <= 0) throw ValueError("Conv3DTranspose: filters must be positive, got " + std::to_string(filters));
  for (auto v : kernel_size.vec()) {
    if (v <= 0) throw ValueError("Conv3DTranspose: kernel_size must be positive");
  }
  for (auto v : options.strides.vec()) {
    if (v <= 0) throw ValueError("Conv3DTranspose: strides must be positive");
  }
  for (auto v : options.dilation_rate.vec()) {
    if (v <= 0) throw ValueError("Conv3DTranspose: dilation_rate must be positive");
  }
  if (options.output_padding) check_output_padding("Conv3DTranspose", options.output_padding->vec(), options.strides.vec());
  check_padding(options.padding, {"valid", "same"});
  is_channels_first(options.data_format);
  activations::validate(options.activation);
}

void Conv3DTransposeImpl::build(const std::vector<TensorSpec>& inputs) {
  const Shape& s = inputs[0].shape;
  if (s.rank() != 5) {
    throw ShapeError("expects input of rank 5 (batch, depth, rows, cols, channels), got " + s.to_string());
  }
  const std::int64_t channels = s.dims()[is_channels_first(options.data_format) ? 1 : 4];
  if (channels == kUnknownDim) throw ShapeError("the channel dimension of the input must be known, got " + s.to_string());
  kernel = add_weight("kernel", Shape{kernel_size.first, kernel_size.second, kernel_size.third, filters, channels},
                      options.kernel_initializer);
  if (options.use_bias) bias = add_weight("bias", Shape{filters}, options.bias_initializer);
}

std::vector<Output> Conv3DTransposeImpl::call(Graph& graph, const std::vector<Output>& inputs) {
  const bool cf = is_channels_first(options.data_format);
  expect_spatial_input(inputs[0], 5, cf ? "(batch, channels, depth, rows, cols)" : "(batch, depth, rows, cols, channels)");
  Output x = cf ? to_channels_last(inputs[0]) : inputs[0];
  if (x.shape()[4] != kernel.shape()[4]) {
    throw ShapeError("expects input with " + std::to_string(kernel.shape()[4]) + " channels (kernel " +
                     kernel.shape().to_string() + "), got " + inputs[0].shape().to_string());
  }
  const auto window = kernel_size.vec(), strides = options.strides.vec(), dilation = options.dilation_rate.vec();
  std::vector<std::int64_t> size, pads;
  for (std::size_t a = 0; a < 3; ++a) {
    std::optional<std::int64_t> extra;
    if (options.output_padding) extra = options.output_padding->vec()[a];
    auto axis = transpose_axis(options.padding, x.shape()[static_cast<int>(a) + 1], window[a], strides[a],
                               dilation[a], extra);
    size.push_back(axis.out);
    pads.push_back(axis.before);
    pads.push_back(axis.after);
  }
  Output y = ops::conv3d_backprop_input(x, graph.variable(kernel), size, {strides, dilation, pads, 1});
  if (options.use_bias) y = ops::add(y, graph.variable(bias));
  y = activations::apply(options.activation, y);
  return {cf ? to_channels_first(y) : y};
}

Conv3DTranspose::Conv3DTranspose(std::int64_t filters, IntTriple kernel_size, Conv3DTransposeOptions options)
    : Layer(std::make_shared<Conv3DTransposeImpl>(filters, kernel_size, std::move(options))) {}

namespace {
const bool registered = register_keras_class(
    describe_layer<Conv3DTranspose>("Conv3DTranspose", &Conv3DTransposeImpl::options,
                                    keras_field("filters", &Conv3DTransposeImpl::filters).at_least(1),
                                    keras_field("kernel_size", &Conv3DTransposeImpl::kernel_size).at_least(1))
        .unmodeled({"kernel_regularizer", "bias_regularizer", "activity_regularizer", "kernel_constraint", "bias_constraint"}));
}  // namespace

}  // namespace strata::layers
