#include "layers/pooling/pooling.h"

#include "core/error.h"
#include "core/ops.h"
#include "core/ops/pool_ops.h"

namespace strata::layers {

Pooling2DImpl::Pooling2DImpl(std::string class_name, bool max_, int spatial_rank_, IntPair pool_size_,
                             IntPair strides_, std::string padding_, std::string data_format_, std::string name_)
    : LayerImpl(class_name, std::move(name_)), max(max_), spatial_rank(spatial_rank_), pool_size(pool_size_),
      strides(strides_), padding(std::move(padding_)), data_format(std::move(data_format_)) {
  if (pool_size.first <= 0 || pool_size.second <= 0) throw ValueError(class_name + ": pool_size must be positive");
  if (strides.first <= 0 || strides.second <= 0) throw ValueError(class_name + ": strides must be positive");
  check_padding(padding, {"valid", "same"});
  is_channels_first(data_format);
}

std::vector<Output> Pooling2DImpl::call(Graph&, const std::vector<Output>& inputs) {
  const bool cf = is_channels_first(data_format);
  const int rank = spatial_rank + 2;
  expect_spatial_input(inputs[0], rank,
                       spatial_rank == 1 ? (cf ? "(batch, channels, steps)" : "(batch, steps, channels)")
                                         : (cf ? "(batch, channels, rows, cols)" : "(batch, rows, cols, channels)"));
  Output x = cf ? to_channels_last(inputs[0]) : inputs[0];
  if (spatial_rank == 1) x = ops::reshape(x, {-1, 1, x.shape()[1], x.shape()[2]});
  auto [pt, pb] = padding_amounts(padding, x.shape()[1], pool_size.first, strides.first, 1);
  auto [pl, pr] = padding_amounts(padding, x.shape()[2], pool_size.second, strides.second, 1);
  ops::Pool2DParams p{pool_size.vec(), strides.vec(), {pt, pb, pl, pr}};
  Output y = max ? ops::max_pool2d(x, p) : ops::avg_pool2d(x, p);
  if (spatial_rank == 1) y = ops::reshape(y, {-1, y.shape()[2], y.shape()[3]});
  return {cf ? to_channels_first(y) : y};
}

namespace {
std::shared_ptr<LayerImpl> make2d(const char* cls, bool max, IntPair pool, Pooling2DOptions o) {
  return std::make_shared<Pooling2DImpl>(cls, max, 2, pool, o.strides.value_or(pool), o.padding, o.data_format, o.name);
}
std::shared_ptr<LayerImpl> make1d(const char* cls, bool max, std::int64_t pool, Pooling1DOptions o) {
  return std::make_shared<Pooling2DImpl>(cls, max, 1, IntPair(1, pool), IntPair(1, o.strides.value_or(pool)),
                                         o.padding, o.data_format, o.name);
}
}  // namespace

MaxPooling2D::MaxPooling2D(IntPair pool_size, Pooling2DOptions o) : Layer(make2d("MaxPooling2D", true, pool_size, o)) {}
AveragePooling2D::AveragePooling2D(IntPair pool_size, Pooling2DOptions o)
    : Layer(make2d("AveragePooling2D", false, pool_size, o)) {}
MaxPooling1D::MaxPooling1D(std::int64_t pool_size, Pooling1DOptions o)
    : Layer(make1d("MaxPooling1D", true, pool_size, o)) {}
AveragePooling1D::AveragePooling1D(std::int64_t pool_size, Pooling1DOptions o)
    : Layer(make1d("AveragePooling1D", false, pool_size, o)) {}

namespace {
// 1-D pooling runs as 2-D with a unit row: its amounts are the second of each pair.
Pooling1DOptions options_1d(const Pooling2DImpl& l) {
  return {.strides = l.strides.second, .padding = l.padding, .data_format = l.data_format};
}
Pooling2DOptions options_2d(const Pooling2DImpl& l) {
  return {.strides = l.strides, .padding = l.padding, .data_format = l.data_format};
}
std::int64_t pool_size_1d(const Pooling2DImpl& l) { return l.pool_size.second; }

template <typename Pool>
KerasClass pool_1d(const char* cls) {
  return describe_layer<Pool>(cls, options_1d,
                              keras_field("pool_size", pool_size_1d, Spelling::window1).at_least(1));
}
template <typename Pool>
KerasClass pool_2d(const char* cls) {
  return describe_layer<Pool>(cls, options_2d, keras_field("pool_size", &Pooling2DImpl::pool_size).at_least(1));
}

const bool registered = [] {
  register_keras_class(pool_1d<MaxPooling1D>("MaxPooling1D"));
  register_keras_class(pool_2d<MaxPooling2D>("MaxPooling2D"));
  register_keras_class(pool_1d<AveragePooling1D>("AveragePooling1D"));
  register_keras_class(pool_2d<AveragePooling2D>("AveragePooling2D"));
  return true;
}();
}  // namespace

}  // namespace strata::layers
