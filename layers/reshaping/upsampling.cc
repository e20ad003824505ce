#include "layers/reshaping/upsampling.h"

#include <algorithm>
#include <cctype>

#include "core/error.h"
#include "core/ops.h"
#include "core/ops/pool_ops.h"
#include "layers/preprocessing/resizing.h"

namespace strata::layers {

namespace {

std::string keras_name(int rank) { return "UpSampling" + std::to_string(rank) + "D"; }

template <int Rank>
bool channels_first(const UpSamplingOptions<Rank>& o) {
  if constexpr (Rank == 1) {
    return false;
  } else {
    return is_channels_first(o.data_format);
  }
}

// x as `dims` (batch first, as -1); no op where x already has them.
Output reshaped(Output x, std::vector<std::int64_t> dims) {
  const std::vector<std::int64_t>& have = x.shape().dims();
  if (have.size() == dims.size() && std::equal(have.begin() + 1, have.end(), dims.begin() + 1)) return x;
  return ops::reshape(x, dims);
}

}  // namespace

template <int Rank>
UpSamplingImpl<Rank>::UpSamplingImpl(Window<Rank> size_, UpSamplingOptions<Rank> options_)
    : LayerImpl(keras_name(Rank), options_.name), size(size_), options(std::move(options_)) {
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
  if (interpolates()) {
    Output y = resize_images(graph, x, matrices_);
    return {cf ? to_channels_first(y) : y};
  }
  // Spatial dims and sizes, 1-D given a unit second axis.
  const std::vector<std::int64_t> dims = x.shape().dims();
  std::vector<std::int64_t> d(dims.begin() + 1, dims.end() - 1), s = window_vec(size);
  if (Rank == 1) d.push_back(1), s.push_back(1);
  const std::int64_t c = dims.back();
  // One pass over the first two spatial axes (3-D: cols folded into the channels), then
  // 3-D's cols.
  Output y = ops::upsample_nearest2d(reshaped(x, {-1, d[0], d[1], Rank == 3 ? d[2] * c : c}), {s[0], s[1]});
  if (Rank == 3) y = ops::upsample_nearest2d(reshaped(y, {-1, d[1] * s[1], d[2], c}), {1, s[2]});
  std::vector<std::int64_t> out{-1};
  for (int a = 0; a < Rank; ++a) out.push_back(d[a] * s[a]);
  out.push_back(c);
  y = reshaped(y, out);
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
      keras_name(Rank), &UpSamplingImpl<Rank>::options,
      keras_field("size", &UpSamplingImpl<Rank>::size, Rank == 1 ? Spelling::unwrap1 : Spelling::plain).at_least(1));
}

const bool registered = [] {
  register_keras_class(describe_upsampling<1>());
  register_keras_class(describe_upsampling<2>());
  register_keras_class(describe_upsampling<3>());
  return true;
}();

}  // namespace

}  // namespace strata::layers
