// Adaptive pooling: AdaptiveAveragePooling1D/2D/3D and AdaptiveMaxPooling1D/2D/3D pool each
// spatial axis of length L into `output_size` bins, bin i over [floor(i·L/out),
// ceil((i+1)·L/out)) — windows of ceil(L/out) cells or one more, overlapping where L is not
// a multiple of out — axis after axis, as Keras 3.15's TensorFlow backend does. The
// spatial sizes must be known at definition.
#pragma once

#include <string>
#include <tuple>

#include "layers/convolutional/conv_utils.h"
#include "layers/keras_class.h"
#include "layers/layer.h"

namespace strata::layers {

struct AdaptivePoolingOptions {  // Keras signature order (after output_size)
  std::string data_format;
  std::string name;
  DTypePolicyName dtype;  // Keras's dtype=: this layer's dtype policy ("" the global one)

  static constexpr auto keras_fields() {
    return std::tuple{keras_field("data_format", &AdaptivePoolingOptions::data_format, Spelling::data_format)};
  }
};

template <int Rank>
class AdaptivePoolingImpl : public LayerImpl {
 public:
  AdaptivePoolingImpl(bool max, Window<Rank> output_size, AdaptivePoolingOptions options);
  std::vector<Output> call(Graph& graph, const std::vector<Output>& inputs) override;

  bool max;
  Window<Rank> output_size;
  AdaptivePoolingOptions options;
};

template <int Rank>
class AdaptiveAveragePooling : public Layer {
 public:
  explicit AdaptiveAveragePooling(Window<Rank> output_size, AdaptivePoolingOptions options = {});
};
template <int Rank>
class AdaptiveMaxPooling : public Layer {
 public:
  explicit AdaptiveMaxPooling(Window<Rank> output_size, AdaptivePoolingOptions options = {});
};

using AdaptiveAveragePooling1D = AdaptiveAveragePooling<1>;
using AdaptiveAveragePooling2D = AdaptiveAveragePooling<2>;
using AdaptiveAveragePooling3D = AdaptiveAveragePooling<3>;
using AdaptiveMaxPooling1D = AdaptiveMaxPooling<1>;
using AdaptiveMaxPooling2D = AdaptiveMaxPooling<2>;
using AdaptiveMaxPooling3D = AdaptiveMaxPooling<3>;

// Bin i of `bins` over an axis of `length` cells: its first cell and its size.
std::pair<std::int64_t, std::int64_t> adaptive_bin(std::int64_t length, std::int64_t bins, std::int64_t i);

}  // namespace strata::layers
