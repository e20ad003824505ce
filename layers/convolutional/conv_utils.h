// Helpers shared by the convolution, pooling and reshaping layers of every spatial rank:
// Keras's int-or-tuple arguments (Window<Rank>), "valid" / "same" / "causal" padding as
// explicit amounts, data_format, and the input layout each rank expects.
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

// Keras's `int or tuple of 3 ints`: `.strides = 2` or `.strides = {2, 1, 1}`
// (depth, rows, cols).
struct IntTriple {
  IntTriple(std::int64_t v) : first(v), second(v), third(v) {}  // NOLINT: implicit, like Keras's ints
  IntTriple(std::int64_t a, std::int64_t b, std::int64_t c) : first(a), second(b), third(c) {}
  std::int64_t first, second, third;
  std::vector<std::int64_t> vec() const { return {first, second, third}; }
  friend bool operator==(const IntTriple&, const IntTriple&) = default;
};

// The window argument of a layer over `Rank` spatial axes, as Keras's signature has it:
// a plain integer for the 1-D layers (kernel_size=3), IntPair for 2-D, IntTriple for 3-D.
template <int Rank>
struct WindowOf;
template <>
struct WindowOf<1> {
  using type = std::int64_t;
};
template <>
struct WindowOf<2> {
  using type = IntPair;
};
template <>
struct WindowOf<3> {
  using type = IntTriple;
};
template <int Rank>
using Window = typename WindowOf<Rank>::type;

// A window's values, one per spatial axis.
inline std::vector<std::int64_t> window_vec(std::int64_t v) { return {v}; }
inline std::vector<std::int64_t> window_vec(const IntPair& v) { return v.vec(); }
inline std::vector<std::int64_t> window_vec(const IntTriple& v) { return v.vec(); }

// Keras's ZeroPadding2D / Cropping2D amounts: `1` (all sides), `{1, 2}` (symmetric rows,
// symmetric cols) or `{{1, 2}, {3, 4}}` ((top, bottom), (left, right)).
struct Padding2D {
  Padding2D(std::int64_t v) : rows(v), cols(v) {}  // NOLINT: implicit, like Keras's ints
  Padding2D(IntPair rows_, IntPair cols_) : rows(rows_), cols(cols_) {}
  IntPair rows, cols;
};

// Keras's ZeroPadding3D / Cropping3D amounts: `1` (all sides), `{1, 2, 3}` (symmetric per
// axis) or `{{1, 2}, {3, 4}, {5, 6}}` ((front, back), (top, bottom), (left, right)).
struct Padding3D {
  Padding3D(std::int64_t v) : depth(v), rows(v), cols(v) {}  // NOLINT: implicit, like Keras's ints
  Padding3D(IntPair depth_, IntPair rows_, IntPair cols_) : depth(depth_), rows(rows_), cols(cols_) {}
  IntPair depth, rows, cols;
  std::vector<std::int64_t> vec() const {
    return {depth.first, depth.second, rows.first, rows.second, cols.first, cols.second};
  }
};

// "channels_last" (also for "") or "channels_first"; throws ValueError otherwise.
bool is_channels_first(const std::string& data_format);
// Throws ValueError unless `padding` is one of `allowed` ("valid", "same", "causal").
void check_padding(const std::string& padding, const std::vector<std::string>& allowed);

// Padding (before, after) of one spatial axis for Keras's mode (keras-spec §2, Conv):
// valid -> (0, 0); same -> total max((ceil(n/s) − 1)·s + k_eff − n, 0), the extra cell
// after; causal -> (k_eff − 1, 0). "same" over a size unknown until run time (None) is
// (ops::kSamePad, ops::kSamePad) when it depends on the size (a stride above 1): the
// conv and pooling ops work it out when the program runs.
std::pair<std::int64_t, std::int64_t> padding_amounts(const std::string& padding, std::int64_t size,
                                                      std::int64_t kernel, std::int64_t stride,
                                                      std::int64_t dilation);

// The same for every spatial axis of an N-D window, flattened (before, after, before, ...).
std::vector<std::int64_t> padding_amounts(const std::string& padding, const std::vector<std::int64_t>& sizes,
                                          const std::vector<std::int64_t>& kernel,
                                          const std::vector<std::int64_t>& strides,
                                          const std::vector<std::int64_t>& dilation);

// The input layout a layer over `spatial_rank` axes expects, for messages:
// "(batch, rows, cols, channels)", or "(batch, channels, rows, cols)" channels first.
std::string spatial_layout(int spatial_rank, bool channels_first);

// Throws ValueError ("<layer>: <what> must be positive") unless every value of a window is.
void check_positive(const std::string& layer, const char* what, const std::vector<std::int64_t>& window);

// The channel count of a layer's input over `spatial_rank` axes, as build() sees it;
// throws ShapeError for another rank or an unknown channel dimension.
std::int64_t input_channels(const Shape& input, int spatial_rank, bool channels_first);

// Moves channels last (N, C, ...) -> (N, ..., C), and back.
Output to_channels_last(Output x);
Output to_channels_first(Output x);

// The convolution of channels-last x (batch, spatial..., channels) with a kernel of Keras's
// layout (window..., channels / groups, filters), the rank read from the kernel: strides
// and dilation per spatial axis, pads flattened (before, after, before, ...). 1-D runs as
// 2-D with a unit row axis, 2-D and 3-D on their own ops. Spatial dims may be None.
Output convolve(Output x, Output kernel, const std::vector<std::int64_t>& strides,
                const std::vector<std::int64_t>& dilation, const std::vector<std::int64_t>& pads,
                std::int64_t groups = 1);

// Throws ShapeError unless x has rank `rank` (its spatial dims may be None).
void expect_spatial_input(const Output& x, int rank, const std::string& layout);

}  // namespace strata::layers
