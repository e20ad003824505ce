// The geometry of Keras's transposed convolutions (Conv1D/2D/3DTranspose), one spatial
// axis at a time: the output length Keras computes (TensorFlow's rule, keras-spec §2) and
// the padding of the forward convolution whose input gradient the layer is.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

namespace strata::layers {

struct TransposeAxis {
  std::int64_t out, before, after;
};

// k_eff = (k − 1)·d + 1. Without output_padding: valid (in − 1)·s + max(k_eff, s), same
// in·s. With it (op < s): valid (in − 1)·s + k_eff + op, same (in − 1)·s + k_eff % 2 + op.
// The padding is the forward convolution's over `out` cells ("same": Keras's rule).
TransposeAxis transpose_axis(const std::string& padding, std::int64_t in, std::int64_t k, std::int64_t s,
                             std::int64_t d, std::optional<std::int64_t> output_padding = std::nullopt);

// Throws ValueError (naming the layer) unless 0 <= output_padding < stride on each axis, as
// Keras requires.
void check_output_padding(const std::string& layer, const std::vector<std::int64_t>& output_padding,
                          const std::vector<std::int64_t>& strides);

}  // namespace strata::layers
