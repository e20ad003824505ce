#include "layers/reshaping/zero_padding.h"

#include "core/error.h"
#include "core/ops/array_ops.h"

namespace strata::layers {

SpatialPadImpl::SpatialPadImpl(std::string class_name, bool remove_, int spatial_rank_, Padding2D amounts_,
                               std::string data_format_, std::string name_)
    : LayerImpl(class_name, std::move(name_)), remove(remove_), spatial_rank(spatial_rank_), amounts(amounts_),
      data_format(std::move(data_format_)) {
  for (auto v : {amounts.rows.first, amounts.rows.second, amounts.cols.first, amounts.cols.second}) {
    if (v < 0) throw ValueError(class_name + ": amounts must be non-negative");
  }
  is_channels_first(data_format);
}

std::vector<Output> SpatialPadImpl::call(Graph&, const std::vector<Output>& inputs) {
  const Output& x = inputs[0];
  const int rank = spatial_rank + 2;
  if (x.shape().rank() != rank) {
    throw ShapeError("expects input of rank " + std::to_string(rank) + ", got " + x.shape().to_string());
  }
  std::vector<std::int64_t> before(static_cast<std::size_t>(rank), 0), after = before;
  const int first = is_channels_first(data_format) ? 2 : 1;
  if (spatial_rank == 1) {
    before[first] = amounts.cols.first, after[first] = amounts.cols.second;
  } else {
    before[first] = amounts.rows.first, after[first] = amounts.rows.second;
    before[first + 1] = amounts.cols.first, after[first + 1] = amounts.cols.second;
  }
  return {remove ? ops::crop(x, before, after) : ops::pad(x, before, after)};
}

ZeroPadding1D::ZeroPadding1D(IntPair padding, ZeroPaddingOptions o)
    : Layer(std::make_shared<SpatialPadImpl>("ZeroPadding1D", false, 1, Padding2D(0, padding), "", o.name)) {}
ZeroPadding2D::ZeroPadding2D(Padding2D padding, ZeroPaddingOptions o)
    : Layer(std::make_shared<SpatialPadImpl>("ZeroPadding2D", false, 2, padding, o.data_format, o.name)) {}

namespace {
// 1-D: an int or (before, after), channels_last only. 2-D: an int, (rows, cols) symmetric
// amounts, or ((top, bottom), (left, right)), the form Keras writes.
IntPair amounts_1d(const SpatialPadImpl& l) { return l.amounts.cols; }
ZeroPaddingOptions options_1d(const SpatialPadImpl&) { return {}; }
ZeroPaddingOptions options_2d(const SpatialPadImpl& l) { return {.data_format = l.data_format}; }

const bool registered = [] {
  register_keras_class(describe_layer<ZeroPadding1D>(
      "ZeroPadding1D", options_1d, std::tuple{keras_refused("data_format", "\"channels_last\"").unwritten().because("1-D layers are channels_last")},
      keras_field("padding", amounts_1d).at_least(0)));
  register_keras_class(describe_layer<ZeroPadding2D>(
      "ZeroPadding2D", options_2d, keras_field("padding", &SpatialPadImpl::amounts, Spelling::pairs).at_least(0)));
  return true;
}();
}  // namespace

}  // namespace strata::layers
