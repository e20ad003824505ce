// keras.ops pooling and convolutions (issue #38): max_pool, average_pool and the adaptive
// pools run Keras's MaxPooling / AveragePooling / AdaptivePooling layers' code
// (layers/pooling); conv, depthwise_conv and separable_conv the convolution layers' graph ops
// (layers/convolutional) with the kernel given to the call (a NumPy constant or a tensor of
// known shape) in Keras's layouts: conv (window..., C, O), depthwise (window..., C,
// multiplier). 1-D runs as 2-D with a unit row, as the layers do.
#include <cctype>
#include <map>
#include <memory>
#include <string>
#include <vector>

#include "core/error.h"
#include "core/ops.h"
#include "core/ops/array_ops.h"
#include "core/ops/conv_ops.h"
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

}  // namespace

const std::map<std::string, OpFn>& conv_ops() {
  static const std::map<std::string, OpFn> t = {
      {"MaxPool", [](C c) { return pool(c, true); }},
      {"AveragePool", [](C c) { return pool(c, false); }},
      {"AdaptiveAveragePool", [](C c) { return adaptive_pool(c, false); }},
      {"AdaptiveMaxPool", [](C c) { return adaptive_pool(c, true); }},
      {"Conv", conv},
      {"DepthwiseConv", depthwise_conv},
      {"SeparableConv", separable_conv},
  };
  return t;
}

}  // namespace strata::layers::op_detail
