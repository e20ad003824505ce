#include "layers/reshaping/upsampling.h"

#include <algorithm>
#include <cctype>

#include "core/error.h"
#include "core/ops.h"
#include "core/ops/array_ops.h"
#include "core/ops/pool_ops.h"
#include "layers/preprocessing/resizing.h"

namespace strata::layers {

namespace {

std::string upsampling_class_name(int rank) { return "UpSampling" + std::to_string(rank) + "D"; }

template <int Rank>
bool channels_first(const UpSamplingOptions<Rank>& o) {
  if constexpr (Rank == 1) {
    return false;
  } else {
    return is_channels_first(o.data_format);
  }
}

}  // namespace

template <int Rank>
UpSamplingImpl<Rank>::UpSamplingImpl(Window<Rank> size_, UpSamplingOptions<Rank> options_)
    : LayerImpl(upsampling_class_name(Rank), options_.name), size(size_), options(std::move(options_)) {
  check_positive(class_name(), "size", window_vec(size));
  channels_first(options);  // refuses an unknown data_format now, not at the first call
  if constexpr (Rank == 2) {
    // Keras lower-cases it, and writes it lower-cased.
    std::transform(options.interpolation.begin(), options.interpolation.end(), options.interpolation.begin(),
                   [](unsigned char ch) { return static_cast<char>(std::tolower(ch)); });
    if (options.interpolation != "nearest") {
      check_resize_interpolation(class_name() + " '" + name + "'", options.interpolation);
    }
  }
}

template <int Rank>
bool UpSamplingImpl<Rank>::interpolates() const {
  if constexpr (Rank == 2) {
    return options.interpolation != "nearest";
  } else {
    return false;
  }
}

template <int Rank>
void UpSamplingImpl<Rank>::build(const std::vector<TensorSpec>& inputs) {
  if constexpr (Rank == 2) {
    if (!interpolates()) return;
    const std::string where = class_name() + " '" + name + "'";
    at_run_ = has_unknown_image_size(inputs[0].shape, options.data_format, where);
    if (at_run_) return;  // resize_weights bounds the sizes when the program runs
    const auto [rows, cols] = image_size(inputs[0].shape, options.data_format, where);
    // resize_matrices bounds the output sizes; the products must not overflow first.
    constexpr std::int64_t kMaxSide = std::int64_t{1} << 28;
    if (size.first > kMaxSide / rows || size.second > kMaxSide / cols) {
      throw ValueError(where + ": size (" + std::to_string(size.first) + ", " + std::to_string(size.second) +
                       ") makes images of more than 2^28 rows or columns from " + inputs[0].shape.to_string());
    }
    matrices_ = resize_matrices(where, rows, cols, {0, rows}, {0, cols}, rows * size.first, cols * size.second,
                                options.interpolation);
  }
}

template <int Rank>
std::vector<Output> UpSamplingImpl<Rank>::call(Graph& graph, const std::vector<Output>& inputs) {
  const bool cf = channels_first(options);
  expect_spatial_input(inputs[0], Rank + 2, spatial_layout(Rank, cf));
  Output x = cf ? to_channels_last(inputs[0]) : inputs[0];
  if constexpr (Rank == 2) {
    if (interpolates()) {
      Output y = at_run_ ? resize_images_at_run(x, {.height_factor = size.first, .width_factor = size.second,
                                                    .interpolation = options.interpolation})
                         : resize_images(graph, x, matrices_);
      return {cf ? to_channels_first(y) : y};
    }
  }
  // Each spatial dim may be None until run time: the reshapes keep them as they come.
  const std::vector<std::int64_t> s = window_vec(size);
  const std::int64_t c = x.shape().dims().back();
  Output y;
  if constexpr (Rank == 1) {  // (N, L, 1, C), repeated along L
    y = ops::merge_axes(ops::upsample_nearest2d(ops::expand_dims(x, 2), {s[0], 1}), 2, 2);
  } else if constexpr (Rank == 2) {
    y = ops::upsample_nearest2d(x, {s[0], s[1]});
  } else {
    // One pass over (depth, rows) with the cols folded into the channels, then one over
    // the cols of every (depth, row) line.
    const Output lines = ops::upsample_nearest2d(ops::merge_axes(x, 3, 2), {s[0], s[1]});  // (N, D', H', W·C)
    const Output cols = ops::reshape(ops::merge_axes(lines, 0, 2), {ops::dim_from(0), ops::dim_from(1),
                                                                    ops::dim_from(3, 1), c}, {x});
    y = ops::upsample_nearest2d(cols, {1, s[2]});  // (N·D', H', W', C)
    y = ops::reshape(y, {ops::dim_from(0, 1), ops::dim_from(1, 1), ops::dim_from(2, 1), ops::dim_from(2), c},
                     {lines});
  }
  return {cf ? to_channels_first(y) : y};
}

template <int Rank>
UpSampling<Rank>::UpSampling(Window<Rank> size, UpSamplingOptions<Rank> options)
    : Layer(std::make_shared<UpSamplingImpl<Rank>>(size, std::move(options))) {}

template class UpSamplingImpl<1>;
template class UpSamplingImpl<2>;
template class UpSamplingImpl<3>;
template class UpSampling<1>;
template class UpSampling<2>;
template class UpSampling<3>;

namespace {

// 1-D size is written as an int; 2-D's interpolation is "nearest" when absent (Keras 2.0).
template <int Rank>
KerasClass describe_upsampling() {
  return describe_layer<UpSampling<Rank>>(
      upsampling_class_name(Rank), &UpSamplingImpl<Rank>::options,
      keras_field("size", &UpSamplingImpl<Rank>::size, Rank == 1 ? Spelling::unwrap1 : Spelling::plain).at_least(1));
}

const bool upsampling_registered = [] {
  register_keras_class(describe_upsampling<1>());
  register_keras_class(describe_upsampling<2>());
  register_keras_class(describe_upsampling<3>());
  return true;
}();

}  // namespace

}  // namespace strata::layers
