#include "layers/pooling/adaptive_pooling.h"

#include "core/error.h"
#include "core/ops.h"
#include "core/ops/array_ops.h"

namespace strata::layers {

namespace {
std::string adaptive_class(bool max, int rank) {
  return std::string(max ? "AdaptiveMaxPooling" : "AdaptiveAveragePooling") + std::to_string(rank) + "D";
}
}  // namespace

std::pair<std::int64_t, std::int64_t> adaptive_bin(std::int64_t length, std::int64_t bins, std::int64_t i) {
  const std::int64_t start = i * length / bins;                      // floor
  const std::int64_t end = ((i + 1) * length + bins - 1) / bins;     // ceil
  return {start, end - start};
}

template <int Rank>
AdaptivePoolingImpl<Rank>::AdaptivePoolingImpl(bool max_, Window<Rank> output_size_, AdaptivePoolingOptions o)
    : LayerImpl(adaptive_class(max_, Rank), o.name), max(max_), output_size(output_size_), options(std::move(o)) {
  check_positive(class_name(), "output_size", window_vec(output_size));
  is_channels_first(options.data_format);
}

template <int Rank>
std::vector<Output> AdaptivePoolingImpl<Rank>::call(Graph&, const std::vector<Output>& inputs) {
  Output x = inputs[0];
  const bool cf = is_channels_first(options.data_format);
  const Shape& s = x.shape();
  if (s.rank() != Rank + 2) {
    throw ShapeError("expects input of rank " + std::to_string(Rank + 2) + ", got " + s.to_string());
  }
  const std::vector<std::int64_t> bins = window_vec(output_size);
  const int first = cf ? 2 : 1;
  for (int d = 0; d < Rank; ++d) {
    if (s.dims()[first + d] == kUnknownDim) {
      throw ShapeError("the spatial sizes must be known for adaptive pooling, got " + s.to_string());
    }
  }
  // The bins of a box are the product of each axis's, so pooling axis after axis is the
  // box's max or mean (equal cells per bin along each axis).
  for (int d = 0; d < Rank; ++d) {
    const int axis = first + d;
    const std::int64_t length = x.shape().dims()[axis];
    std::vector<Output> pooled;
    for (std::int64_t i = 0; i < bins[d]; ++i) {
      const auto [start, size] = adaptive_bin(length, bins[d], i);
      std::vector<std::int64_t> before(static_cast<std::size_t>(Rank + 2), 0), after = before;
      before[axis] = start;
      after[axis] = length - start - size;
      const Output window = ops::crop(x, before, after);
      pooled.push_back(max ? ops::reduce_max(window, {axis}, true) : ops::reduce_mean(window, {axis}, true));
    }
    x = pooled.size() == 1 ? pooled[0] : ops::concat(pooled, axis);
  }
  return {x};
}

template <int Rank>
AdaptiveAveragePooling<Rank>::AdaptiveAveragePooling(Window<Rank> output_size, AdaptivePoolingOptions o)
    : Layer(std::make_shared<AdaptivePoolingImpl<Rank>>(false, output_size, std::move(o))) {}
template <int Rank>
AdaptiveMaxPooling<Rank>::AdaptiveMaxPooling(Window<Rank> output_size, AdaptivePoolingOptions o)
    : Layer(std::make_shared<AdaptivePoolingImpl<Rank>>(true, output_size, std::move(o))) {}

template class AdaptivePoolingImpl<1>;
template class AdaptivePoolingImpl<2>;
template class AdaptivePoolingImpl<3>;
template class AdaptiveAveragePooling<1>;
template class AdaptiveAveragePooling<2>;
template class AdaptiveAveragePooling<3>;
template class AdaptiveMaxPooling<1>;
template class AdaptiveMaxPooling<2>;
template class AdaptiveMaxPooling<3>;

namespace {
template <typename Pool, int R>
KerasClass describe_adaptive(bool max) {
  return describe_layer<Pool>(
      adaptive_class(max, R), &AdaptivePoolingImpl<R>::options,
      keras_field("output_size", &AdaptivePoolingImpl<R>::output_size, window_spelling(R)).at_least(1));
}

template <int R>
void register_adaptive_rank() {
  register_keras_class(describe_adaptive<AdaptiveAveragePooling<R>, R>(false));
  register_keras_class(describe_adaptive<AdaptiveMaxPooling<R>, R>(true));
}

const bool adaptive_pooling_registered = [] {
  register_adaptive_rank<1>();
  register_adaptive_rank<2>();
  register_adaptive_rank<3>();
  return true;
}();
}  // namespace

}  // namespace strata::layers
