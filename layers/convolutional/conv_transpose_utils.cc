#include "layers/convolutional/conv_transpose_utils.h"

#include <algorithm>

#include "core/error.h"
#include "layers/convolutional/conv_utils.h"

namespace strata::layers {

TransposeAxis transpose_axis(const std::string& padding, std::int64_t in, std::int64_t k, std::int64_t s,
                             std::int64_t d, std::optional<std::int64_t> output_padding) {
  const std::int64_t eff = (k - 1) * d + 1;
  std::int64_t out = 0;
  if (padding == "valid") {
    out = output_padding ? (in - 1) * s + eff + *output_padding : (in - 1) * s + std::max(eff, s);
    return {out, 0, 0};
  }
  out = output_padding ? (in - 1) * s + eff % 2 + *output_padding : in * s;
  if ((out + s - 1) / s != in) {  // TensorFlow refuses this too (an even k_eff with a small output_padding)
    throw ShapeError("padding 'same' with kernel extent " + std::to_string(eff) + ", stride " + std::to_string(s) +
                     " and output_padding " + std::to_string(output_padding.value_or(0)) + " gives " +
                     std::to_string(out) + " output cells, which a stride-" + std::to_string(s) +
                     " convolution maps to " + std::to_string((out + s - 1) / s) + ", not the input's " +
                     std::to_string(in));
  }
  auto [before, after] = padding_amounts("same", out, k, s, d);
  return {out, before, after};
}

void check_output_padding(const std::string& layer, const std::vector<std::int64_t>& output_padding,
                          const std::vector<std::int64_t>& strides) {
  for (std::size_t i = 0; i < output_padding.size(); ++i) {
    if (output_padding[i] < 0 || output_padding[i] >= strides.at(i)) {
      throw ValueError(layer + ": output_padding must be non-negative and strictly less than strides, got "
                       "output_padding " + std::to_string(output_padding[i]) + " and strides " +
                       std::to_string(strides[i]) + " on axis " + std::to_string(i));
    }
  }
}

}  // namespace strata::layers
