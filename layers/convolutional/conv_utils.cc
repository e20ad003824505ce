#include "layers/convolutional/conv_utils.h"

#include <algorithm>
#include <numeric>

#include "core/error.h"
#include "core/ops.h"
#include "core/ops/array_ops.h"
#include "core/ops/conv_ops.h"

namespace strata::layers {

bool is_channels_first(const std::string& data_format) {
  if (data_format.empty() || data_format == "channels_last") return false;
  if (data_format == "channels_first") return true;
  throw ValueError("data_format must be 'channels_last' or 'channels_first', got '" + data_format + "'");
}

void check_padding(const std::string& padding, const std::vector<std::string>& allowed) {
  if (std::find(allowed.begin(), allowed.end(), padding) != allowed.end()) return;
  std::string names;
  for (const auto& a : allowed) names += (names.empty() ? "'" : ", '") + a + "'";
  throw ValueError("padding '" + padding + "' is not one of " + names);
}

std::pair<std::int64_t, std::int64_t> padding_amounts(const std::string& padding, std::int64_t size,
                                                      std::int64_t kernel, std::int64_t stride,
                                                      std::int64_t dilation) {
  const std::int64_t eff = (kernel - 1) * dilation + 1;
  if (padding == "causal") return {eff - 1, 0};
  if (padding != "same") return {0, 0};
  if (size == kUnknownDim) {  // with a stride of 1 "same" pads don't depend on the size
    if (stride == 1) return {(eff - 1) / 2, eff - 1 - (eff - 1) / 2};
    return {ops::kSamePad, ops::kSamePad};
  }
  const std::int64_t out = (size + stride - 1) / stride;
  const std::int64_t total = std::max<std::int64_t>((out - 1) * stride + eff - size, 0);
  return {total / 2, total - total / 2};
}

std::vector<std::int64_t> padding_amounts(const std::string& padding, const std::vector<std::int64_t>& sizes,
                                          const std::vector<std::int64_t>& kernel,
                                          const std::vector<std::int64_t>& strides,
                                          const std::vector<std::int64_t>& dilation) {
  std::vector<std::int64_t> pads;
  for (std::size_t a = 0; a < sizes.size(); ++a) {
    auto [before, after] = padding_amounts(padding, sizes[a], kernel.at(a), strides.at(a), dilation.at(a));
    pads.push_back(before);
    pads.push_back(after);
  }
  return pads;
}

std::string spatial_layout(int spatial_rank, bool channels_first) {
  static const char* const axes[] = {"steps", "rows, cols", "depth, rows, cols"};
  if (spatial_rank < 1 || spatial_rank > 3) throw ValueError("spatial rank must be 1, 2 or 3, got " + std::to_string(spatial_rank));
  const std::string spatial = axes[spatial_rank - 1];
  return channels_first ? "(batch, channels, " + spatial + ")" : "(batch, " + spatial + ", channels)";
}

void check_positive(const std::string& layer, const char* what, const std::vector<std::int64_t>& window) {
  for (auto v : window) {
    if (v <= 0) throw ValueError(layer + ": " + what + " must be positive");
  }
}

std::int64_t input_channels(const Shape& input, int spatial_rank, bool channels_first) {
  if (input.rank() != spatial_rank + 2) {
    throw ShapeError("expects input of rank " + std::to_string(spatial_rank + 2) + " " +
                     spatial_layout(spatial_rank, false) + ", got " + input.to_string());
  }
  const std::int64_t channels = input.dims()[channels_first ? 1 : spatial_rank + 1];
  if (channels == kUnknownDim) {
    throw ShapeError("the channel dimension of the input must be known, got " + input.to_string());
  }
  return channels;
}

Output to_channels_last(Output x) {
  const int rank = x.shape().rank();
  std::vector<std::int64_t> perm{0};
  for (int i = 2; i < rank; ++i) perm.push_back(i);
  perm.push_back(1);
  return ops::transpose(x, perm);
}

Output to_channels_first(Output x) {
  const int rank = x.shape().rank();
  std::vector<std::int64_t> perm{0, rank - 1};
  for (int i = 1; i < rank - 1; ++i) perm.push_back(i);
  return ops::transpose(x, perm);
}

Output convolve(Output x, Output kernel, const std::vector<std::int64_t>& strides,
                const std::vector<std::int64_t>& dilation, const std::vector<std::int64_t>& pads,
                std::int64_t groups) {
  switch (kernel.shape().rank()) {
    case 3: {
      const std::int64_t filters = kernel.shape()[2];
      Output k = ops::reshape(kernel, {1, kernel.shape()[0], kernel.shape()[1], filters});
      // (N, 1, steps, C): the steps may be None until run time.
      Output y = ops::conv2d(ops::expand_dims(x, 1), k,
                             {{1, strides[0]}, {1, dilation[0]}, {0, 0, pads[0], pads[1]}, groups});
      return ops::merge_axes(y, 1, 2);
    }
    case 4:
      return ops::conv2d(x, kernel, {strides, dilation, pads, groups});
    case 5:
      return ops::conv3d(x, kernel, {strides, dilation, pads, groups});
    default:
      throw ShapeError("a convolution kernel has rank 3, 4 or 5 (window..., in, out), got " +
                       kernel.shape().to_string());
  }
}

void expect_spatial_input(const Output& x, int rank, const std::string& layout) {
  const Shape& s = x.shape();
  if (s.rank() != rank) {
    throw ShapeError("expects input of rank " + std::to_string(rank) + " " + layout + ", got " + s.to_string());
  }
}

}  // namespace strata::layers
