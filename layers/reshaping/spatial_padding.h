// ZeroPadding1D/2D/3D add zeros around the spatial axes; Cropping1D/2D/3D remove elements
// from their ends. Every rank is one pad (or crop) op with per-axis (before, after) amounts.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "layers/convolutional/conv_utils.h"
#include "layers/keras_class.h"
#include "layers/layer.h"

namespace strata::layers {

// The amounts argument as Keras's signature has it: (before, after) for 1-D, Padding2D
// and Padding3D (an int, symmetric per-axis amounts, or (before, after) per axis) above.
template <int Rank>
struct PaddingAmountsOf;
template <>
struct PaddingAmountsOf<1> {
  using type = IntPair;
};
template <>
struct PaddingAmountsOf<2> {
  using type = Padding2D;
};
template <>
struct PaddingAmountsOf<3> {
  using type = Padding3D;
};
template <int Rank>
using PaddingAmounts = typename PaddingAmountsOf<Rank>::type;

// (before, after) of each spatial axis, flattened.
std::vector<std::int64_t> padding_vec(const IntPair& p);
std::vector<std::int64_t> padding_vec(const Padding2D& p);
std::vector<std::int64_t> padding_vec(const Padding3D& p);

template <int Rank>
struct ZeroPaddingOptions {  // Keras signature order (after the amounts)
  std::string data_format;
  std::string name;
  DTypePolicyName dtype;  // Keras's dtype=: this layer's dtype policy ("" the global one)

  static constexpr auto keras_fields() {
    return std::tuple{keras_field("data_format", &ZeroPaddingOptions::data_format, Spelling::data_format)};
  }
};
template <int Rank>
using CroppingOptions = ZeroPaddingOptions<Rank>;
// Keras's ZeroPadding1D takes a data_format (channels_first pads axis 2); its Cropping1D
// takes none, so a Cropping1D given channels_first is refused.

template <int Rank>
class SpatialPadImpl : public LayerImpl {
 public:
  // `remove`: crop instead of pad (Cropping<Rank>).
  SpatialPadImpl(bool remove, PaddingAmounts<Rank> amounts, ZeroPaddingOptions<Rank> options);
  std::vector<Output> call(Graph& graph, const std::vector<Output>& inputs) override;
  bool remove;
  PaddingAmounts<Rank> amounts;
  ZeroPaddingOptions<Rank> options;
};

template <int Rank>
class ZeroPadding : public Layer {
 public:
  explicit ZeroPadding(PaddingAmounts<Rank> padding = 1, ZeroPaddingOptions<Rank> options = {});
};
template <int Rank>
class Cropping : public Layer {
 public:
  // Keras's defaults: Cropping1D and Cropping3D crop 1 from each end, Cropping2D nothing.
  explicit Cropping(PaddingAmounts<Rank> cropping = Rank == 2 ? 0 : 1, CroppingOptions<Rank> options = {});
};

using ZeroPadding1D = ZeroPadding<1>;
using ZeroPadding2D = ZeroPadding<2>;
using ZeroPadding3D = ZeroPadding<3>;
using Cropping1D = Cropping<1>;
using Cropping2D = Cropping<2>;
using Cropping3D = Cropping<3>;
using ZeroPadding1DOptions = ZeroPaddingOptions<1>;
using ZeroPadding2DOptions = ZeroPaddingOptions<2>;
using ZeroPadding3DOptions = ZeroPaddingOptions<3>;
using Cropping1DOptions = CroppingOptions<1>;
using Cropping2DOptions = CroppingOptions<2>;
using Cropping3DOptions = CroppingOptions<3>;

extern template class SpatialPadImpl<1>;
extern template class SpatialPadImpl<2>;
extern template class SpatialPadImpl<3>;
extern template class ZeroPadding<1>;
extern template class ZeroPadding<2>;
extern template class ZeroPadding<3>;
extern template class Cropping<1>;
extern template class Cropping<2>;
extern template class Cropping<3>;

}  // namespace strata::layers
