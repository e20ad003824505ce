#include "layers/reshaping/spatial_padding.h"

#include "core/error.h"
#include "core/ops/array_ops.h"

namespace strata::layers {

std::vector<std::int64_t> padding_vec(const IntPair& p) { return p.vec(); }
std::vector<std::int64_t> padding_vec(const Padding2D& p) {
  return {p.rows.first, p.rows.second, p.cols.first, p.cols.second};
}
std::vector<std::int64_t> padding_vec(const Padding3D& p) { return p.vec(); }

namespace {

std::string padding_class_name(bool remove, int rank) {
  return (remove ? "Cropping" : "ZeroPadding") + std::to_string(rank) + "D";
}

template <int Rank>
bool padding_channels_first(const ZeroPaddingOptions<Rank>& o) {
  return is_channels_first(o.data_format);
}

}  // namespace

template <int Rank>
SpatialPadImpl<Rank>::SpatialPadImpl(bool remove_, PaddingAmounts<Rank> amounts_, ZeroPaddingOptions<Rank> options_)
    : LayerImpl(padding_class_name(remove_, Rank), options_.name), remove(remove_), amounts(amounts_),
      options(std::move(options_)) {
  for (auto v : padding_vec(amounts)) {
    if (v < 0) throw ValueError(class_name() + ": amounts must be non-negative");
  }
  // Refuses an unknown data_format now, not at the first call.
  if (padding_channels_first(options) && remove && Rank == 1) {
    throw ValueError("Cropping1D takes no data_format (its inputs are channels last, as Keras's), got '" +
                     options.data_format + "'");
  }
}

template <int Rank>
std::vector<Output> SpatialPadImpl<Rank>::call(Graph&, const std::vector<Output>& inputs) {
  const Output& x = inputs[0];
  const bool cf = padding_channels_first(options);
  if (x.shape().rank() != Rank + 2) {
    throw ShapeError("expects input of rank " + std::to_string(Rank + 2) + " " + spatial_layout(Rank, cf) + ", got " +
                     x.shape().to_string());
  }
  std::vector<std::int64_t> before(Rank + 2, 0), after(Rank + 2, 0);
  const std::vector<std::int64_t> v = padding_vec(amounts);
  const int first = cf ? 2 : 1;
  for (int a = 0; a < Rank; ++a) {
    before[first + a] = v[2 * a], after[first + a] = v[2 * a + 1];
    const std::int64_t size = x.shape()[first + a];
    // Keras refuses a crop that leaves an axis empty.
    if (remove && size != kUnknownDim && v[2 * a] + v[2 * a + 1] >= size) {
      throw ShapeError("cannot crop " + std::to_string(v[2 * a]) + " + " + std::to_string(v[2 * a + 1]) +
                       " elements from an axis of " + std::to_string(size) + " (input " + x.shape().to_string() + ")");
    }
  }
  return {remove ? ops::crop(x, before, after) : ops::pad(x, before, after)};
}

template <int Rank>
ZeroPadding<Rank>::ZeroPadding(PaddingAmounts<Rank> padding, ZeroPaddingOptions<Rank> options)
    : Layer(std::make_shared<SpatialPadImpl<Rank>>(false, padding, std::move(options))) {}
template <int Rank>
Cropping<Rank>::Cropping(PaddingAmounts<Rank> cropping, CroppingOptions<Rank> options)
    : Layer(std::make_shared<SpatialPadImpl<Rank>>(true, cropping, std::move(options))) {}

template class SpatialPadImpl<1>;
template class SpatialPadImpl<2>;
template class SpatialPadImpl<3>;
template class ZeroPadding<1>;
template class ZeroPadding<2>;
template class ZeroPadding<3>;
template class Cropping<1>;
template class Cropping<2>;
template class Cropping<3>;

namespace {

// 1-D amounts are written (before, after); the others ((before, after), ...), the form
// Keras writes, and read from an int or symmetric per-axis amounts too. Cropping1D's config
// has no data_format (Keras's has none): one given is refused unless channels_last.
template <int Rank>
ZeroPaddingOptions<Rank> options_of(const SpatialPadImpl<Rank>& l) {
  return l.options;
}
template <int Rank, bool Remove>
constexpr auto option_fields() {
  if constexpr (Rank == 1 && Remove) {
    return std::tuple{keras_refused("data_format", "\"channels_last\"")
                          .unwritten()
                          .because("Cropping1D's inputs are channels_last")};
  } else {
    return ZeroPaddingOptions<Rank>::keras_fields();
  }
}
template <typename LayerT, int Rank, bool Remove>
KerasClass describe_padding() {
  return describe_layer<LayerT>(
      padding_class_name(Remove, Rank), &options_of<Rank>, option_fields<Rank, Remove>(),
      keras_field(Remove ? "cropping" : "padding", &SpatialPadImpl<Rank>::amounts,
                  Rank == 1 ? Spelling::plain : Spelling::pairs)
          .at_least(0));
}

const bool spatial_padding_registered = [] {
  register_keras_class(describe_padding<ZeroPadding<1>, 1, false>());
  register_keras_class(describe_padding<ZeroPadding<2>, 2, false>());
  register_keras_class(describe_padding<ZeroPadding<3>, 3, false>());
  register_keras_class(describe_padding<Cropping<1>, 1, true>());
  register_keras_class(describe_padding<Cropping<2>, 2, true>());
  register_keras_class(describe_padding<Cropping<3>, 3, true>());
  return true;
}();

}  // namespace

}  // namespace strata::layers
