// Local pooling layers: MaxPooling1D/2D/3D and AveragePooling1D/2D/3D, one rank-generic
// implementation. strides default to pool_size; padding "valid" or "same" (padded cells
// never count: average divides by the in-bounds cells). Every rank runs on the 2-D kernels
// (pool_ops.h): 1-D as 2-D with a unit row dimension; 3-D, whose box window is separable,
// as 2-D pooling over (rows, cols) of every depth slice, then over depth. The 3-D average
// stays exact because the in-bounds cells of a box are the product of each axis's.
#pragma once

#include <optional>
#include <string>
#include <tuple>
#include <vector>

#include "layers/convolutional/conv_utils.h"
#include "layers/keras_class.h"
#include "layers/layer.h"

namespace strata::layers {

template <int Rank>
struct PoolingOptions {  // Keras signature order (after pool_size)
  std::optional<Window<Rank>> strides;  // default: pool_size
  std::string padding = "valid";
  std::string data_format;
  std::string name;
  DTypePolicyName dtype;  // Keras's dtype=: this layer's dtype policy ("" the global one)

  static constexpr auto keras_fields() {  // Keras writes padding before strides
    using O = PoolingOptions;
    return std::tuple{keras_field("padding", &O::padding, Spelling::padding),
                      keras_field("strides", &O::strides, window_spelling(Rank)).at_least(1),
                      keras_field("data_format", &O::data_format, Spelling::data_format)};
  }
};
using Pooling1DOptions = PoolingOptions<1>;
using Pooling2DOptions = PoolingOptions<2>;
using Pooling3DOptions = PoolingOptions<3>;

template <int Rank>
class PoolingImpl : public LayerImpl {
 public:
  PoolingImpl(std::string class_name, bool max, Window<Rank> pool_size, PoolingOptions<Rank> options);
  std::vector<Output> call(Graph& graph, const std::vector<Output>& inputs) override;
  // Max pooling commutes with rounding; average pooling's low-precision sums are not checked
  // against Keras yet.
  LowPrecisionForm low_precision_form() const override {
    return max ? LowPrecisionForm::low_precision : LowPrecisionForm::refused;
  }

  bool max;
  Window<Rank> pool_size;
  PoolingOptions<Rank> options;  // strides always set
};

template <int Rank>
class MaxPooling : public Layer {
 public:
  explicit MaxPooling(Window<Rank> pool_size = 2, PoolingOptions<Rank> options = {});
};
template <int Rank>
class AveragePooling : public Layer {
 public:
  explicit AveragePooling(Window<Rank> pool_size, PoolingOptions<Rank> options = {});
};

using MaxPooling1D = MaxPooling<1>;
using MaxPooling2D = MaxPooling<2>;
using MaxPooling3D = MaxPooling<3>;
using AveragePooling1D = AveragePooling<1>;
using AveragePooling2D = AveragePooling<2>;
using AveragePooling3D = AveragePooling<3>;

}  // namespace strata::layers
