// Local pooling layers: MaxPooling1D/2D, AveragePooling1D/2D. strides default to
// pool_size; padding "valid" or "same" (padded cells never count: average divides by
// the in-bounds cells). 1-D pooling runs as 2-D pooling with a unit row dimension.
#pragma once

#include <optional>
#include <string>

#include "layers/convolutional/conv_utils.h"
#include "layers/keras_class.h"
#include "layers/layer.h"

namespace strata::layers {

struct Pooling2DOptions {  // Keras signature order (after pool_size)
  std::optional<IntPair> strides;  // default: pool_size
  std::string padding = "valid";
  std::string data_format;
  std::string name;

  static constexpr auto keras_fields() {  // Keras writes padding before strides
    using O = Pooling2DOptions;
    return std::tuple{keras_field("padding", &O::padding, Spelling::padding),
                      keras_field("strides", &O::strides).at_least(1),
                      keras_field("data_format", &O::data_format, Spelling::data_format)};
  }
};

struct Pooling1DOptions {
  std::optional<std::int64_t> strides;
  std::string padding = "valid";
  std::string data_format;
  std::string name;

  static constexpr auto keras_fields() {
    using O = Pooling1DOptions;
    return std::tuple{keras_field("padding", &O::padding, Spelling::padding),
                      keras_field("strides", &O::strides, Spelling::window1).at_least(1),
                      keras_field("data_format", &O::data_format, Spelling::data_format)};
  }
};

class Pooling2DImpl : public LayerImpl {
 public:
  Pooling2DImpl(std::string class_name, bool max, int spatial_rank, IntPair pool_size, IntPair strides,
                std::string padding, std::string data_format, std::string name);
  std::vector<Output> call(Graph& graph, const std::vector<Output>& inputs) override;

  bool max;
  int spatial_rank;  // 1 or 2
  IntPair pool_size, strides;
  std::string padding, data_format;
};

class MaxPooling2D : public Layer {
 public:
  explicit MaxPooling2D(IntPair pool_size = 2, Pooling2DOptions options = {});
};
class AveragePooling2D : public Layer {
 public:
  explicit AveragePooling2D(IntPair pool_size, Pooling2DOptions options = {});
};
class MaxPooling1D : public Layer {
 public:
  explicit MaxPooling1D(std::int64_t pool_size = 2, Pooling1DOptions options = {});
};
class AveragePooling1D : public Layer {
 public:
  explicit AveragePooling1D(std::int64_t pool_size, Pooling1DOptions options = {});
};

}  // namespace strata::layers
