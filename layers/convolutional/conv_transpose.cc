#include "layers/convolutional/conv_transpose.h"

#include <algorithm>

#include "core/error.h"
#include "core/ops.h"
#include "core/ops/array_ops.h"
#include "core/ops/conv_ops.h"
#include "layers/activations.h"

namespace strata::layers {

namespace {

std::string conv_transpose_class_name(int rank) { return "Conv" + std::to_string(rank) + "DTranspose"; }

// One spatial axis of a transposed convolution: the output length Keras computes and the
// padding of the forward convolution whose input gradient the layer is. For an input
// length unknown until run time, out is unknown, `offset` gives it then (in · s + offset)
// and a "same" padding is ops::kSamePad (worked out over the output's length).
struct TransposeAxis {
  std::int64_t out, before, after, offset;
};

// k_eff = (k − 1)·d + 1. Without output_padding: valid (in − 1)·s + max(k_eff, s), same
// in·s. With it (op < s): valid (in − 1)·s + k_eff + op, same (in − 1)·s + k_eff % 2 + op.
// The padding is the forward convolution's over `out` cells ("same": Keras's rule).
TransposeAxis transpose_axis(const std::string& padding, std::int64_t in, std::int64_t k, std::int64_t s,
                             std::int64_t d, std::optional<std::int64_t> output_padding) {
  const std::int64_t eff = (k - 1) * d + 1;
  const std::int64_t offset = padding == "valid"
                                  ? (output_padding ? eff + *output_padding : std::max(eff, s)) - s
                                  : (output_padding ? eff % 2 + *output_padding - s : 0);
  if (in == kUnknownDim) {
    const std::int64_t pad = padding == "valid" ? 0 : ops::kSamePad;
    return {kUnknownDim, pad, pad, offset};
  }
  const std::int64_t out = in * s + offset;
  if (padding == "valid") return {out, 0, 0, offset};
  if ((out + s - 1) / s != in) {  // TensorFlow refuses this too (an even k_eff with a small output_padding)
    throw ShapeError("padding 'same' with kernel extent " + std::to_string(eff) + ", stride " + std::to_string(s) +
                     " and output_padding " + std::to_string(output_padding.value_or(0)) + " gives " +
                     std::to_string(out) + " output cells, which a stride-" + std::to_string(s) +
                     " convolution maps to " + std::to_string((out + s - 1) / s) + ", not the input's " +
                     std::to_string(in));
  }
  auto [before, after] = padding_amounts("same", out, k, s, d);
  return {out, before, after, offset};
}

// Keras requires 0 <= output_padding < stride on each axis.
void check_output_padding(const std::string& cls, const std::vector<std::int64_t>& output_padding,
                          const std::vector<std::int64_t>& strides) {
  for (std::size_t i = 0; i < output_padding.size(); ++i) {
    if (output_padding[i] < 0 || output_padding[i] >= strides.at(i)) {
      throw ValueError(cls + ": output_padding must be non-negative and strictly less than strides, got "
                       "output_padding " + std::to_string(output_padding[i]) + " and strides " +
                       std::to_string(strides[i]) + " on axis " + std::to_string(i));
    }
  }
}

// The transposed convolution of channels-last x to `size` cells per spatial axis (an
// unknown one x's size · stride + offsets[axis]), on the kernel each rank runs.
template <int Rank>
Output convolve_transpose(Output x, Output kernel, const std::vector<std::int64_t>& size,
                          const std::vector<std::int64_t>& offsets, const std::vector<std::int64_t>& strides,
                          const std::vector<std::int64_t>& dilation, const std::vector<std::int64_t>& pads) {
  if constexpr (Rank == 1) {
    const std::int64_t filters = kernel.shape()[1];
    Output k = ops::reshape(kernel, {1, kernel.shape()[0], filters, kernel.shape()[2]});
    Output y = ops::conv2d_transpose(ops::expand_dims(x, 1), k, {1, size[0]},
                                     {{1, strides[0]}, {1, dilation[0]}, {0, 0, pads[0], pads[1]}, 1}, {0, offsets[0]});
    return ops::reshape(y, {ops::dim_from(0), ops::dim_from(2), filters}, {});
  } else if constexpr (Rank == 2) {
    return ops::conv2d_transpose(x, kernel, size, {strides, dilation, pads, 1}, offsets);
  } else {
    return ops::conv3d_transpose(x, kernel, size, {strides, dilation, pads, 1}, offsets);
  }
}

template <int Rank>
Output transposed_convolution_of_rank(Output x, Output kernel, const std::string& padding,
                                      const std::vector<std::int64_t>& strides,
                                      const std::vector<std::int64_t>& dilation,
                                      const std::optional<std::vector<std::int64_t>>& output_padding) {
  std::vector<std::int64_t> size, offsets, pads;
  for (int a = 0; a < Rank; ++a) {
    std::optional<std::int64_t> extra;
    if (output_padding) extra = (*output_padding)[static_cast<std::size_t>(a)];
    auto axis = transpose_axis(padding, x.shape()[a + 1], kernel.shape()[a], strides[static_cast<std::size_t>(a)],
                               dilation[static_cast<std::size_t>(a)], extra);
    size.push_back(axis.out);
    offsets.push_back(axis.offset);
    pads.push_back(axis.before);
    pads.push_back(axis.after);
  }
  return convolve_transpose<Rank>(x, kernel, size, offsets, strides, dilation, pads);
}

}  // namespace

Output transposed_convolution(Output x, Output kernel, const std::string& padding,
                              const std::vector<std::int64_t>& strides, const std::vector<std::int64_t>& dilation,
                              const std::optional<std::vector<std::int64_t>>& output_padding) {
  const int spatial = static_cast<int>(x.shape().rank()) - 2;
  if (spatial < 1 || spatial > 3)
    throw ShapeError("transposed convolution: expects 1 to 3 spatial axes, got " + x.shape().to_string());
  if (kernel.shape().rank() != spatial + 2 || kernel.shape()[spatial + 1] != x.shape()[spatial + 1])
    throw ShapeError("transposed convolution: kernel " + kernel.shape().to_string() +
                     " must be (window..., out_channels, in_channels) for input " + x.shape().to_string());
  const auto per_axis = [&](const std::vector<std::int64_t>& v) { return static_cast<int>(v.size()) == spatial; };
  if (!per_axis(strides) || !per_axis(dilation) || (output_padding && !per_axis(*output_padding)))
    throw ValueError("transposed convolution: strides, dilation and output_padding need one value per spatial axis");
  if (output_padding) check_output_padding("transposed convolution", *output_padding, strides);
  if (spatial == 1) return transposed_convolution_of_rank<1>(x, kernel, padding, strides, dilation, output_padding);
  if (spatial == 2) return transposed_convolution_of_rank<2>(x, kernel, padding, strides, dilation, output_padding);
  return transposed_convolution_of_rank<3>(x, kernel, padding, strides, dilation, output_padding);
}

template <int Rank>
ConvTransposeImpl<Rank>::ConvTransposeImpl(std::int64_t filters_, Window<Rank> kernel_size_,
                                           ConvTransposeOptions<Rank> options_)
    : LayerImpl(conv_transpose_class_name(Rank), options_.name), filters(filters_), kernel_size(kernel_size_),
      options(std::move(options_)) {
  activity_regularizer = options.activity_regularizer;
  const std::string cls = conv_transpose_class_name(Rank);
  if (filters <= 0) throw ValueError(cls + ": filters must be positive, got " + std::to_string(filters));
  check_positive(cls, "kernel_size", window_vec(kernel_size));
  check_positive(cls, "strides", window_vec(options.strides));
  check_positive(cls, "dilation_rate", window_vec(options.dilation_rate));
  if (options.output_padding) check_output_padding(cls, window_vec(*options.output_padding), window_vec(options.strides));
  check_padding(options.padding, {"valid", "same"});
  is_channels_first(options.data_format);
  activations::validate(options.activation);
}

template <int Rank>
void ConvTransposeImpl<Rank>::build(const std::vector<TensorSpec>& inputs) {
  const std::int64_t channels = input_channels(inputs[0].shape, Rank, is_channels_first(options.data_format));
  std::vector<std::int64_t> dims = window_vec(kernel_size);
  dims.push_back(filters);
  dims.push_back(channels);
  kernel = add_weight("kernel", Shape(dims), options.kernel_initializer,
                      {.regularizer = options.kernel_regularizer, .constraint = options.kernel_constraint});
  if (options.use_bias) {
    bias = add_weight("bias", Shape{filters}, options.bias_initializer,
                      {.regularizer = options.bias_regularizer, .constraint = options.bias_constraint});
  }
}

template <int Rank>
std::vector<Output> ConvTransposeImpl<Rank>::call(Graph& graph, const std::vector<Output>& inputs) {
  const bool cf = is_channels_first(options.data_format);
  Output x = cf ? to_channels_last(inputs[0]) : inputs[0];
  if (x.shape()[Rank + 1] != kernel.shape()[Rank + 1]) {
    throw ShapeError("expects input with " + std::to_string(kernel.shape()[Rank + 1]) + " channels (kernel " +
                     kernel.shape().to_string() + "), got " + inputs[0].shape().to_string());
  }
  std::optional<std::vector<std::int64_t>> output_padding;
  if (options.output_padding) output_padding = window_vec(*options.output_padding);
  Output y = transposed_convolution_of_rank<Rank>(x, graph.variable(kernel), options.padding,
                                                  window_vec(options.strides), window_vec(options.dilation_rate),
                                                  output_padding);
  if (options.use_bias) y = ops::add(y, graph.variable(bias));
  y = activations::apply(options.activation, y);
  return {cf ? to_channels_first(y) : y};
}

template <int Rank>
ConvTranspose<Rank>::ConvTranspose(std::int64_t filters, Window<Rank> kernel_size, ConvTransposeOptions<Rank> options)
    : Layer(std::make_shared<ConvTransposeImpl<Rank>>(filters, kernel_size, std::move(options))) {}

template class ConvTransposeImpl<1>;
template class ConvTransposeImpl<2>;
template class ConvTransposeImpl<3>;
template class ConvTranspose<1>;
template class ConvTranspose<2>;
template class ConvTranspose<3>;

namespace {

// Keras writes the tuples as lists ([3, 3]; [3] in 1-D); ints are read too.
template <int Rank>
KerasClass describe_conv_transpose() {
  using Impl = ConvTransposeImpl<Rank>;
  return describe_layer<ConvTranspose<Rank>>(
             conv_transpose_class_name(Rank), &Impl::options, keras_field("filters", &Impl::filters).at_least(1),
             keras_field("kernel_size", &Impl::kernel_size, window_spelling(Rank)).at_least(1));
}

const bool conv_transpose_registered = [] {
  register_keras_class(describe_conv_transpose<1>());
  register_keras_class(describe_conv_transpose<2>());
  register_keras_class(describe_conv_transpose<3>());
  return true;
}();

}  // namespace

}  // namespace strata::layers
