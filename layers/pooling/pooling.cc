#include "layers/pooling/pooling.h"

#include "core/error.h"
#include "core/ops.h"
#include "core/ops/array_ops.h"
#include "core/ops/pool_ops.h"

namespace strata::layers {

namespace {
std::string pooling_class(bool max, int rank) {
  return (max ? "MaxPooling" : "AveragePooling") + std::to_string(rank) + "D";
}

Output pool2d(bool max, Output x, const ops::Pool2DParams& p) {
  return max ? ops::max_pool2d(x, p) : ops::avg_pool2d(x, p);
}
}  // namespace

template <int Rank>
PoolingImpl<Rank>::PoolingImpl(std::string class_name, bool max_, Window<Rank> pool_size_,
                               PoolingOptions<Rank> options_)
    : LayerImpl(class_name, options_.name), max(max_), pool_size(pool_size_), options(std::move(options_)) {
  if (!options.strides) options.strides = pool_size;
  check_positive(class_name, "pool_size", window_vec(pool_size));
  check_positive(class_name, "strides", window_vec(*options.strides));
  check_padding(options.padding, {"valid", "same"});
  is_channels_first(options.data_format);
}

template <int Rank>
std::vector<Output> PoolingImpl<Rank>::call(Graph&, const std::vector<Output>& inputs) {
  const bool cf = is_channels_first(options.data_format);
  expect_spatial_input(inputs[0], Rank + 2, spatial_layout(Rank, cf));
  Output x = cf ? to_channels_last(inputs[0]) : inputs[0];
  const std::vector<std::int64_t> dims = x.shape().dims();
  const std::vector<std::int64_t> n(dims.begin() + 1, dims.end() - 1), k = window_vec(pool_size),
      s = window_vec(*options.strides);
  const std::int64_t c = dims.back();
  const std::vector<std::int64_t> pads = padding_amounts(options.padding, n, k, s, std::vector<std::int64_t>(Rank, 1));
  Output y;
  if constexpr (Rank == 1) {  // a unit row; the steps may be None until run time
    y = pool2d(max, ops::expand_dims(x, 1), {{1, k[0]}, {1, s[0]}, {0, 0, pads[0], pads[1]}});
    y = ops::merge_axes(y, 1, 2);
  } else if constexpr (Rank == 2) {
    y = pool2d(max, x, {k, s, pads});
  } else {  // (rows, cols) of every depth slice, then depth with the (rows · cols) cells as columns
    const bool known = n[0] != kUnknownDim && n[1] != kUnknownDim && n[2] != kUnknownDim;
    if (known && options.padding == "valid" && (n[0] < k[0] || n[1] < k[1] || n[2] < k[2])) {
      throw ShapeError("pool_size (" + std::to_string(k[0]) + ", " + std::to_string(k[1]) + ", " +
                       std::to_string(k[2]) + ") is larger than the input's (depth, rows, cols) (" +
                       std::to_string(n[0]) + ", " + std::to_string(n[1]) + ", " + std::to_string(n[2]) + ")");
    }
    // Dims None until run time are read then: of x (batch, depth), of the pooled slices
    // (rows, cols) and of the pooled depth.
    const Output slices = pool2d(max, ops::merge_axes(x, 0, 2),
                                 {{k[1], k[2]}, {s[1], s[2]}, {pads[2], pads[3], pads[4], pads[5]}});
    const Output cells = ops::reshape(slices, {ops::dim_from(0, 1), ops::dim_from(1, 1), -1, c}, {x});
    y = pool2d(max, cells, {{k[0], 1}, {s[0], 1}, {pads[0], pads[1], 0, 0}});
    y = ops::reshape(y, {ops::dim_from(0), ops::dim_from(1), ops::dim_from(1, 1), ops::dim_from(2, 1), c}, {slices});
  }
  return {cf ? to_channels_first(y) : y};
}

template <int Rank>
MaxPooling<Rank>::MaxPooling(Window<Rank> pool_size, PoolingOptions<Rank> o)
    : Layer(std::make_shared<PoolingImpl<Rank>>(pooling_class(true, Rank), true, pool_size, std::move(o))) {}
template <int Rank>
AveragePooling<Rank>::AveragePooling(Window<Rank> pool_size, PoolingOptions<Rank> o)
    : Layer(std::make_shared<PoolingImpl<Rank>>(pooling_class(false, Rank), false, pool_size, std::move(o))) {}

template class PoolingImpl<1>;
template class PoolingImpl<2>;
template class PoolingImpl<3>;
template class MaxPooling<1>;
template class MaxPooling<2>;
template class MaxPooling<3>;
template class AveragePooling<1>;
template class AveragePooling<2>;
template class AveragePooling<3>;

namespace {
template <typename Pool, int R>
KerasClass describe_pooling(bool max) {
  return describe_layer<Pool>(pooling_class(max, R), &PoolingImpl<R>::options,
                              keras_field("pool_size", &PoolingImpl<R>::pool_size, window_spelling(R)).at_least(1));
}

template <int R>
void register_pooling_rank() {
  register_keras_class(describe_pooling<MaxPooling<R>, R>(true));
  register_keras_class(describe_pooling<AveragePooling<R>, R>(false));
}

const bool pooling_registered = [] {
  register_pooling_rank<1>();
  register_pooling_rank<2>();
  register_pooling_rank<3>();
  return true;
}();
}  // namespace

}  // namespace strata::layers
