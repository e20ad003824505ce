// keras.ops pooling and convolutions (issue #38): max_pool, average_pool and the adaptive
// pools run Keras's MaxPooling / AveragePooling / AdaptivePooling layers' code
// (layers/pooling); conv, depthwise_conv and separable_conv the convolution layers' graph ops
// (layers/convolutional) with the kernel given to the call (a NumPy constant or a tensor of
// known shape) in Keras's layouts: conv (window..., C, O), depthwise (window..., C,
// multiplier), conv_transpose (window..., O, C). 1-D runs as 2-D with a unit row, as the
// layers do. image.extract_patches is
// Keras's convolution with an identity kernel; image.gaussian_blur and image.sobel_edges
// convolve each channel with TensorFlow's fixed filters.
#include <cctype>
#include <cmath>
#include <map>
#include <memory>
#include <string>
#include <vector>

#include "core/error.h"
#include "core/ops.h"
#include "core/ops/array_ops.h"
#include "core/ops/conv_ops.h"
#include "layers/convolutional/conv_transpose.h"
#include "layers/convolutional/conv_utils.h"
#include "layers/core/op_call.h"
#include "layers/pooling/adaptive_pooling.h"
#include "layers/pooling/pooling.h"

namespace strata::layers::op_detail {

namespace {

using C = const OpCall&;

// An int-or-tuple argument ("pool_size", "strides", "dilation_rate") as one value per spatial
// axis; `fallback` when absent or None.
std::vector<std::int64_t> per_axis(C c, const std::string& key, int spatial, std::vector<std::int64_t> fallback) {
  const auto v = c.axes(key);
  if (!v) return fallback;
  if (v->size() == 1) return std::vector<std::int64_t>(static_cast<std::size_t>(spatial), v->front());
  if (static_cast<int>(v->size()) != spatial)
    refuse(c, key, std::to_string(spatial) + " values (one per spatial axis) are expected");
  for (auto e : *v)
    if (e < 1) refuse(c, key, "only positive values are");
  return *v;
}

std::string padding_of(C c) {
  std::string p = c.has("padding") ? c.text("padding") : "valid";
  for (auto& ch : p) ch = static_cast<char>(std::tolower(static_cast<unsigned char>(ch)));
  if (p != "valid" && p != "same") refuse(c, "padding", "only 'valid' and 'same' are");
  return p;
}

bool channels_first(C c) {
  const std::string f = c.text("data_format");
  if (!f.empty() && f != "channels_last" && f != "channels_first")
    refuse(c, "data_format", "only 'channels_last' and 'channels_first' are");
  return f == "channels_first";
}

// The input's spatial rank: 1 to 3 (rank 3 to 5 with batch and channels).
int spatial_rank(C c, const Output& x) {
  const int spatial = rank_of(x) - 2;
  if (spatial < 1 || spatial > 3)
    throw ValueError(c.where + ": expects an input of rank 3, 4 or 5, got " + x.shape().to_string());
  return spatial;
}

template <int Rank>
Window<Rank> window_of(const std::vector<std::int64_t>& v) {
  if constexpr (Rank == 1) return v[0];
  else if constexpr (Rank == 2) return IntPair(v[0], v[1]);
  else return IntTriple(v[0], v[1], v[2]);
}

template <int Rank>
Output pool_with(C c, bool max, const std::vector<std::int64_t>& size, const std::vector<std::int64_t>& strides) {
  PoolingOptions<Rank> o{.strides = window_of<Rank>(strides), .padding = padding_of(c),
                         .data_format = channels_first(c) ? "channels_first" : "channels_last"};
  const std::string cls = (max ? "MaxPooling" : "AveragePooling") + std::to_string(Rank) + "D";
  PoolingImpl<Rank> layer(cls, max, window_of<Rank>(size), std::move(o));
  return layer.call(c.graph, {c.arg(0)}).at(0);
}

// max_pool / average_pool: strides default to pool_size.
Output pool(C c, bool max) {
  const Output x = c.arg(0);
  const int spatial = spatial_rank(c, x);
  if (!c.has("pool_size")) throw ValueError(c.where + ": needs 'pool_size'");
  const auto size = per_axis(c, "pool_size", spatial, {});
  const auto strides = per_axis(c, "strides", spatial, size);
  if (spatial == 1) return pool_with<1>(c, max, size, strides);
  if (spatial == 2) return pool_with<2>(c, max, size, strides);
  return pool_with<3>(c, max, size, strides);
}

template <int Rank>
Output adaptive_pool_with(C c, bool max, const std::vector<std::int64_t>& size) {
  AdaptivePoolingImpl<Rank> layer(max, window_of<Rank>(size),
                                  {.data_format = channels_first(c) ? "channels_first" : "channels_last"});
  return layer.call(c.graph, {c.arg(0)}).at(0);
}

// adaptive_average_pool / adaptive_max_pool: the AdaptivePooling layers' bins (spatial sizes
// known).
Output adaptive_pool(C c, bool max) {
  const Output x = c.arg(0);
  const int spatial = spatial_rank(c, x);
  if (!c.has("output_size")) throw ValueError(c.where + ": needs 'output_size'");
  const auto size = per_axis(c, "output_size", spatial, {});
  if (spatial == 1) return adaptive_pool_with<1>(c, max, size);
  if (spatial == 2) return adaptive_pool_with<2>(c, max, size);
  return adaptive_pool_with<3>(c, max, size);
}

// The kernel's shape, every dim known (a tensor input's batch axis is not).
std::vector<std::int64_t> kernel_shape(C c, const Output& kernel, int spatial, const char* what) {
  const auto dims = kernel.shape().dims();
  if (static_cast<int>(dims.size()) != spatial + 2)
    throw ValueError(c.where + ": " + what + " " + kernel.shape().to_string() + " must have rank " +
                     std::to_string(spatial + 2) + " for an input with " + std::to_string(spatial) + " spatial axes");
  for (auto d : dims)
    if (d == kUnknownDim)
      throw NotImplementedError(c.where + ": " + what + " of unknown shape " + kernel.shape().to_string() +
                                " is not supported (a NumPy constant or a tensor of known shape is)");
  return dims;
}

struct Geometry {
  int spatial;
  bool cf;
  Output x;  // channels last
  std::vector<std::int64_t> sizes, strides, dilation;
  std::int64_t channels;
};

Geometry geometry_of(C c) {
  Geometry g{};
  g.spatial = spatial_rank(c, c.arg(0));
  g.cf = channels_first(c);
  g.x = g.cf ? to_channels_last(c.arg(0)) : c.arg(0);
  const auto dims = g.x.shape().dims();
  g.sizes.assign(dims.begin() + 1, dims.end() - 1);
  g.channels = known_size(c, "data_format", g.x, rank_of(g.x) - 1);
  const std::vector<std::int64_t> ones(static_cast<std::size_t>(g.spatial), 1);
  g.strides = per_axis(c, "strides", g.spatial, ones);
  g.dilation = per_axis(c, "dilation_rate", g.spatial, ones);
  return g;
}

Output finish(const Geometry& g, Output y) { return g.cf ? to_channels_first(y) : y; }

// x ⋆ kernel (window..., C, O).
Output conv(C c) {
  const Geometry g = geometry_of(c);
  const Output kernel = c.arg(1);
  const auto k = kernel_shape(c, kernel, g.spatial, "kernel");
  const std::int64_t in = k[static_cast<std::size_t>(g.spatial)];
  if (g.channels != in)
    throw ValueError(c.where + ": the input's " + std::to_string(g.channels) + " channels do not match the "
                     "kernel's " + std::to_string(in) + " input channels (Keras checks them equal)");
  const std::vector<std::int64_t> window(k.begin(), k.begin() + g.spatial);
  const auto pads = padding_amounts(padding_of(c), g.sizes, window, g.strides, g.dilation);
  return finish(g, convolve(g.x, kernel, g.strides, g.dilation, pads));
}

// keras.ops.conv_transpose: Conv1D/2D/3DTranspose's product (layers/convolutional/
// conv_transpose.h) with the call's kernel (window..., O, C), output_padding None or one value
// per spatial axis. Keras 3.15's ConvTranspose operation passes output_padding where its
// backend takes padding, so Keras fails to call the model it saves; Strata computes what the
// function computes called eagerly.
Output conv_transpose(C c) {
  const Geometry g = geometry_of(c);
  const Output kernel = c.arg(1);
  const auto k = kernel_shape(c, kernel, g.spatial, "kernel");
  if (k.back() != g.channels)
    throw ValueError(c.where + ": the input's " + std::to_string(g.channels) + " channels do not match the "
                     "kernel's " + std::to_string(k.back()) + " input channels (its last axis)");
  std::optional<std::vector<std::int64_t>> output_padding;
  if (const auto v = c.axes("output_padding")) {
    if (v->size() != 1 && static_cast<int>(v->size()) != g.spatial)
      refuse(c, "output_padding", std::to_string(g.spatial) + " values (one per spatial axis) are expected");
    output_padding = v->size() == 1 ? std::vector<std::int64_t>(static_cast<std::size_t>(g.spatial), v->front()) : *v;
  }
  try {
    return finish(g, transposed_convolution(g.x, kernel, padding_of(c), g.strides, g.dilation, output_padding));
  } catch (const ShapeError& e) {
    throw ShapeError(c.where + ": " + e.what());
  } catch (const ValueError& e) {
    throw ValueError(c.where + ": " + e.what());
  }
}

// The depthwise convolution: kernel (window..., C, M) as a grouped one, (window..., 1, C·M)
// with C groups (output channel c·M + m, as TensorFlow's).
Output depthwise(C c, const Geometry& g, const Output& kernel, const char* what) {
  if (g.spatial == 3) throw ValueError(c.where + ": 1-D and 2-D inputs only, as Keras's TensorFlow backend");
  const auto k = kernel_shape(c, kernel, g.spatial, what);
  const std::int64_t in = k[static_cast<std::size_t>(g.spatial)], multiplier = k.back();
  if (in != g.channels)
    throw ValueError(c.where + ": " + what + " " + kernel.shape().to_string() + " does not match the input's " +
                     std::to_string(g.channels) + " channels");
  std::vector<std::int64_t> grouped(k.begin(), k.begin() + g.spatial);
  const std::vector<std::int64_t> window = grouped;
  grouped.push_back(1);
  grouped.push_back(in * multiplier);
  const auto pads = padding_amounts(padding_of(c), g.sizes, window, g.strides, g.dilation);
  return convolve(g.x, ops::reshape(kernel, grouped), g.strides, g.dilation, pads, in);
}

Output depthwise_conv(C c) {
  const Geometry g = geometry_of(c);
  return finish(g, depthwise(c, g, c.arg(1), "kernel"));
}

// depthwise, then the pointwise kernel (1..., C·M, O) at stride 1 (tf.nn.separable_conv2d).
Output separable_conv(C c) {
  const Geometry g = geometry_of(c);
  const Output y = depthwise(c, g, c.arg(1), "depthwise_kernel");
  const Output pointwise = c.arg(2);
  const auto p = kernel_shape(c, pointwise, g.spatial, "pointwise_kernel");
  for (int a = 0; a < g.spatial; ++a)
    if (p[static_cast<std::size_t>(a)] != 1)
      throw ValueError(c.where + ": pointwise_kernel " + pointwise.shape().to_string() + " must be 1 along the window");
  const std::vector<std::int64_t> ones(static_cast<std::size_t>(g.spatial), 1);
  return finish(g, convolve(y, pointwise, ones, ones, std::vector<std::int64_t>(2 * ones.size(), 0)));
}

// image.extract_patches (a 2-D size) and image.extract_patches_3d (3-D) as Keras computes
// them: a convolution with the identity kernel (size..., C, Π size · C), output channel
// (position in the window, then channel) one value of the patch; strides default to size.
Output extract_patches(C c) {
  Geometry g = geometry_of(c);
  const auto size = c.axes("size");
  // One size is 2-D patches; Keras convolves rank-5 images with them in vain.
  const std::size_t sizes = size ? (size->size() == 1 ? 2 : size->size()) : 0;
  if (sizes < 2 || static_cast<int>(sizes) != g.spatial)
    refuse(c, "size", "one size per spatial axis of the images (rank 4 for 2-D patches, 5 for 3-D) is needed");
  const std::vector<std::int64_t> window = per_axis(c, "size", g.spatial, {});
  const auto given = c.axes("strides");
  if (!given || given->empty()) g.strides = window;
  std::int64_t cells = 1;
  for (auto w : window) cells *= w;
  const std::int64_t out = cells * g.channels;
  std::vector<std::int64_t> dims = window;
  dims.push_back(g.channels);
  dims.push_back(out);
  Tensor eye{Shape(dims)};
  float* k = eye.data<float>();
  for (std::int64_t i = 0; i < out * out; ++i) k[i] = 0.0f;
  for (std::int64_t i = 0; i < out; ++i) k[i * out + i] = 1.0f;  // eye(out) read as (window..., C, out)
  const Output kernel = c.graph.variable(Variable(c.where + "/patch_kernel", std::move(eye), false));
  const auto pads = padding_amounts(padding_of(c), g.sizes, window, g.strides, g.dilation);
  return finish(g, convolve(g.x, kernel, g.strides, g.dilation, pads));
}

// Two numbers (one per image axis) from a number or a list: gaussian_blur's kernel_size, sigma.
std::vector<double> two_numbers(C c, const std::string& key, std::vector<double> fallback) {
  if (!c.has(key)) return fallback;
  const ConfigValue& v = c.attrs.at(key);
  std::vector<double> out;
  if (const auto* d = std::get_if<std::vector<double>>(&v)) out = *d;
  if (const auto* l = std::get_if<std::vector<std::int64_t>>(&v)) out.assign(l->begin(), l->end());
  if (out.empty()) out.assign(2, c.number(key));
  if (out.size() != 2) refuse(c, key, "two values (height, width) are needed");
  return out;
}

// The images' 2-D geometry for the fixed-kernel filters: a batch of images (rank 4).
Geometry image_geometry(C c) {
  if (rank_of(c.arg(0)) != 4)
    throw NotImplementedError(c.where + ": images " + c.arg(0).shape().to_string() +
                              " are not supported (a batch of images, rank 4, is)");
  return geometry_of(c);
}

// Each channel convolved with the same filters, (kh, kw, M) row-major (stride 1), output channel
// c · M + m as tf.nn.depthwise_conv2d's; pads (top, bottom, left, right).
Output per_channel_filter(C c, const Geometry& g, const std::vector<float>& filters, std::int64_t kh, std::int64_t kw,
                          std::int64_t m, const std::vector<std::int64_t>& pads, const Output& x) {
  Tensor kernel{Shape{kh, kw, 1, g.channels * m}};
  float* k = kernel.data<float>();
  for (std::int64_t i = 0; i < kh * kw; ++i)
    for (std::int64_t ch = 0; ch < g.channels; ++ch)
      for (std::int64_t f = 0; f < m; ++f) k[i * g.channels * m + ch * m + f] = filters[i * m + f];
  const Output w = c.graph.variable(Variable(c.where + "/filter", std::move(kernel), false));
  return convolve(x, w, {1, 1}, {1, 1}, pads, g.channels);
}

// image.gaussian_blur as Keras's TensorFlow backend: the normalized Gaussians of kernel_size[0]
// taps (sigma[0]) and kernel_size[1] taps (sigma[1]), their outer product (the second's taps
// as rows) read row-major as (kernel_size[0], kernel_size[1]) (what Keras's reshape does, a
// transpose only when the sizes differ), each channel convolved with "same" zero padding.
Output gaussian_blur(C c) {
  const Geometry g = image_geometry(c);
  const std::vector<double> size = two_numbers(c, "kernel_size", {3, 3}), sigma = two_numbers(c, "sigma", {1, 1});
  const auto kh = static_cast<std::int64_t>(size[0]), kw = static_cast<std::int64_t>(size[1]);
  if (kh < 1 || kw < 1 || size[0] != static_cast<double>(kh) || size[1] != static_cast<double>(kw))
    refuse(c, "kernel_size", "positive integers are needed");
  auto gaussian = [](std::int64_t n, double s) {  // in float32, as Keras
    std::vector<float> k(static_cast<std::size_t>(n));
    float sum = 0.0f;
    for (std::int64_t i = 0; i < n; ++i) {
      const float x = (static_cast<float>(i) - (static_cast<float>(n) - 1.0f) / 2.0f) / static_cast<float>(s);
      k[static_cast<std::size_t>(i)] = std::exp(-0.5f * (x * x));
      sum += k[static_cast<std::size_t>(i)];
    }
    for (float& v : k) v /= sum;
    return k;
  };
  const std::vector<float> along0 = gaussian(kh, sigma[0]), along1 = gaussian(kw, sigma[1]);
  std::vector<float> filter;  // outer(along1, along0), row-major
  for (float a : along1)
    for (float b : along0) filter.push_back(a * b);
  const auto pads = padding_amounts("same", g.sizes, {kh, kw}, {1, 1}, {1, 1});
  return finish(g, per_channel_filter(c, g, filter, kh, kw, 1, pads, g.x));
}

// image.sobel_edges as tf.image.sobel_edges: the images reflect-padded by one pixel, each
// channel convolved with the Sobel filters dy [[-1,-2,-1],[0,0,0],[1,2,1]] and dx (its
// transpose): (batch, h, w, channels, 2), [dy, dx] last (channels_first: (batch, channels,
// h, w, 2)).
Output sobel_edges(C c) {
  const Geometry g = image_geometry(c);
  Output x = g.x;
  for (int axis = 1; axis <= 2; ++axis) {
    const std::int64_t n = known_size(c, "images", x, axis);
    if (n < 2) throw ValueError(c.where + ": reflect padding needs 2 or more pixels per axis, got " +
                                x.shape().to_string());
    x = ops::concat({slice(x, axis, 1, 2), x, slice(x, axis, n - 2, n - 1)}, axis);
  }
  const std::vector<float> filters = {-1, -1, -2, 0, -1, 1, 0, -2, 0, 0, 0, 2, 1, -1, 2, 0, 1, 1};  // (3, 3, [dy, dx])
  Output y = per_channel_filter(c, g, filters, 3, 3, 2, {0, 0, 0, 0}, x);  // (b, h, w, C · 2)
  y = ops::split_axis(y, 3, {g.channels, 2});
  return g.cf ? ops::transpose(y, {0, 3, 1, 2, 4}) : y;
}

}  // namespace

const std::map<std::string, OpFn>& conv_ops() {
  static const std::map<std::string, OpFn> t = {
      {"MaxPool", [](C c) { return pool(c, true); }},
      {"AveragePool", [](C c) { return pool(c, false); }},
      {"AdaptiveAveragePool", [](C c) { return adaptive_pool(c, false); }},
      {"AdaptiveMaxPool", [](C c) { return adaptive_pool(c, true); }},
      {"Conv", conv},
      {"ConvTranspose", conv_transpose},
      {"DepthwiseConv", depthwise_conv},
      {"SeparableConv", separable_conv},
      {"ExtractPatches", extract_patches},
      {"GaussianBlur", gaussian_blur},
      {"SobelEdges", sobel_edges},
  };
  return t;
}

}  // namespace strata::layers::op_detail
