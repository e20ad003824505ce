#include "layers/convolutional/conv.h"

#include "core/error.h"
#include "core/ops.h"
#include "core/ops/array_ops.h"
#include "core/ops/conv_ops.h"
#include "layers/activations.h"
#include "layers/core/low_precision_product.h"

namespace strata::layers {

namespace {

std::string conv_class_name(int rank) { return "Conv" + std::to_string(rank) + "D"; }

}  // namespace

template <int Rank>
ConvImpl<Rank>::ConvImpl(std::int64_t filters_, Window<Rank> kernel_size_, ConvOptions<Rank> options_)
    : LayerImpl(conv_class_name(Rank), options_.name), filters(filters_), kernel_size(kernel_size_),
      options(std::move(options_)) {
  activity_regularizer = options.activity_regularizer;
  const std::string cls = conv_class_name(Rank);
  if (filters <= 0) throw ValueError(cls + ": filters must be positive, got " + std::to_string(filters));
  check_positive(cls, "kernel_size", window_vec(kernel_size));
  check_positive(cls, "strides", window_vec(options.strides));
  check_positive(cls, "dilation_rate", window_vec(options.dilation_rate));
  if (options.groups <= 0 || filters % options.groups != 0) {
    throw ValueError(cls + ": filters (" + std::to_string(filters) + ") must be divisible by groups (" +
                     std::to_string(options.groups) + ")");
  }
  if constexpr (Rank == 1) {
    check_padding(options.padding, {"valid", "same", "causal"});
  } else {
    check_padding(options.padding, {"valid", "same"});
  }
  is_channels_first(options.data_format);
  activations::validate(options.activation);
}

template <int Rank>
void ConvImpl<Rank>::build(const std::vector<TensorSpec>& inputs) {
  const Shape& s = inputs[0].shape;
  const std::int64_t channels = input_channels(s, Rank, is_channels_first(options.data_format));
  if (channels % options.groups != 0) {
    throw ShapeError("input channels " + std::to_string(channels) + " are not divisible by groups " +
                     std::to_string(options.groups) + " (input " + s.to_string() + ")");
  }
  std::vector<std::int64_t> dims = window_vec(kernel_size);
  dims.push_back(channels / options.groups);
  dims.push_back(filters);
  kernel = add_weight("kernel", Shape(dims), options.kernel_initializer,
                      {.regularizer = options.kernel_regularizer, .constraint = options.kernel_constraint});
  if (options.use_bias) {
    bias = add_weight("bias", Shape{filters}, options.bias_initializer,
                      {.regularizer = options.bias_regularizer, .constraint = options.bias_constraint});
  }
}

template <int Rank>
std::vector<Output> ConvImpl<Rank>::call(Graph& graph, const std::vector<Output>& inputs) {
  const bool cf = is_channels_first(options.data_format);
  expect_spatial_input(inputs[0], Rank + 2, spatial_layout(Rank, cf));
  Output x = cf ? to_channels_last(inputs[0]) : inputs[0];
  const std::int64_t expected = kernel.shape()[Rank] * options.groups;
  if (x.shape()[Rank + 1] != expected) {
    throw ShapeError("expects input with " + std::to_string(expected) + " channels (kernel " +
                     kernel.shape().to_string() + "), got " + inputs[0].shape().to_string());
  }
  const std::vector<std::int64_t> sizes(x.shape().dims().begin() + 1, x.shape().dims().begin() + 1 + Rank);
  const auto strides = window_vec(options.strides), dilation = window_vec(options.dilation_rate);
  const auto pads = padding_amounts(options.padding, sizes, window_vec(kernel_size), strides, dilation);
  Output y;
  if constexpr (Rank == 2) {
    if (graph.precision() != ComputePrecision::float32) {  // a bfloat16 or float16 policy
      // bfloat16: a oneDNN-fused convolution, bias and activation, rounded once.
      const bool fused = graph.precision() == ComputePrecision::bfloat16;
      check_low_precision_activation(graph, options.activation, fused);
      const ops::Conv2DParams params{strides, dilation, pads, options.groups};
      if (fused && fuses_into_one_op(options.activation)) {
        y = fused_low_precision_op(graph, x, graph.variable(kernel), options.use_bias ? graph.variable(bias) : Output{},
                                   [&](Output a, Output k, Output b, ComputePrecision p) {
                                     return ops::conv2d_bias_activation(
                                         a, k, b, options.activation == "relu" ? "relu" : "", params, p);
                                   });
        return {cf ? to_channels_first(y) : y};
      }
      y = low_precision_product(graph, fused, x, graph.variable(kernel),
                                options.use_bias ? graph.variable(bias) : Output{}, options.activation,
                                [&](Output a, Output k) {
                                  return ops::conv2d_bias_activation(a, k, Output{}, "",
                                                                     {strides, dilation, pads, options.groups});
                                });
      return {cf ? to_channels_first(y) : y};
    }
    // Bias and relu run inside the 2-D kernel; other activations follow as their own ops.
    const bool fused_relu = options.activation == "relu";
    y = ops::conv2d_bias_activation(x, graph.variable(kernel), options.use_bias ? graph.variable(bias) : Output{},
                                    fused_relu ? "relu" : "", {strides, dilation, pads, options.groups});
    if (!fused_relu) y = activations::apply(options.activation, y);
  } else {
    y = convolve(x, graph.variable(kernel), strides, dilation, pads, options.groups);
    if (options.use_bias) y = ops::add(y, graph.variable(bias));
    y = activations::apply(options.activation, y);
  }
  return {cf ? to_channels_first(y) : y};
}

template <int Rank>
Conv<Rank>::Conv(std::int64_t filters, Window<Rank> kernel_size, ConvOptions<Rank> options)
    : Layer(std::make_shared<ConvImpl<Rank>>(filters, kernel_size, std::move(options))) {}

template class ConvImpl<1>;
template class ConvImpl<2>;
template class ConvImpl<3>;
template class Conv<1>;
template class Conv<2>;
template class Conv<3>;

namespace {

// Keras 2 writes the tuples as lists ([3, 3]; [2] in 1-D); ints are read too.
template <int Rank>
KerasClass describe_conv() {
  return describe_layer<Conv<Rank>>(conv_class_name(Rank), &ConvImpl<Rank>::options,
                                    keras_field("filters", &ConvImpl<Rank>::filters).at_least(1),
                                    keras_field("kernel_size", &ConvImpl<Rank>::kernel_size, window_spelling(Rank))
                                        .at_least(1));
}

const bool conv_registered = [] {
  register_keras_class(describe_conv<1>());
  register_keras_class(describe_conv<2>());
  register_keras_class(describe_conv<3>());
  return true;
}();

}  // namespace

}  // namespace strata::layers
