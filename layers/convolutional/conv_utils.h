// Helpers shared by the convolution, pooling and reshaping layers: Keras's int-or-pair
// arguments, "valid" / "same" / "causal" padding as explicit amounts, and data_format.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "core/graph.h"

namespace strata::layers {

// Keras's `int or tuple of 2 ints`: `.strides = 2` or `.strides = {2, 1}`.
struct IntPair {
  IntPair(std::int64_t v) : first(v), second(v) {}  // NOLINT: implicit, like Keras's ints
  IntPair(std::int64_t a, std::int64_t b) : first(a), second(b) {}
  std::int64_t first, second;
  std::vector<std::int64_t> vec() const { return {first, second}; }
  friend bool operator==(const IntPair&, const IntPair&) = default;
};

// Keras's ZeroPadding2D / Cropping2D amounts: `1` (all sides), `{1, 2}` (symmetric rows,
// symmetric cols) or `{{1, 2}, {3, 4}}` ((top, bottom), (left, right)).
struct Padding2D {
  Padding2D(std::int64_t v) : rows(v), cols(v) {}  // NOLINT: implicit, like Keras's ints
  Padding2D(IntPair rows_, IntPair cols_) : rows(rows_), cols(cols_) {}
  IntPair rows, cols;
};

// "channels_last" (also for "") or "channels_first"; throws ValueError otherwise.
bool is_channels_first(const std::string& data_format);
// Throws ValueError unless `padding` is one of `allowed` ("valid", "same", "causal").
void check_padding(const std::string& padding, const std::vector<std::string>& allowed);

// Padding (before, after) of one spatial axis for Keras's mode (keras-spec §2, Conv):
// valid -> (0, 0); same -> total max((ceil(n/s) − 1)·s + k_eff − n, 0), the extra cell
// after; causal -> (k_eff − 1, 0).
std::pair<std::int64_t, std::int64_t> padding_amounts(const std::string& padding, std::int64_t size,
                                                      std::int64_t kernel, std::int64_t stride,
                                                      std::int64_t dilation);

// Moves channels last (N, C, ...) -> (N, ..., C), and back.
Output to_channels_last(Output x);
Output to_channels_first(Output x);

// Throws ShapeError unless x has rank `rank` and known non-batch dims.
void expect_spatial_input(const Output& x, int rank, const std::string& layout);

}  // namespace strata::layers
