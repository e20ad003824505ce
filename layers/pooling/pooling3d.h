// MaxPooling3D and AveragePooling3D over (batch, depth, rows, cols, channels) — or
// channels_first. strides default to pool_size; padding "valid" or "same" (padded cells
// never count). A box window is separable: pooling runs as 2-D pooling over (rows, cols)
// of every depth slice, then over depth, with the 2-D kernels (pool_ops.h). The average
// stays exact because the in-bounds cells of a box are the product of each axis's.
#pragma once

#include <optional>
#include <string>

#include "layers/convolutional/conv3d_utils.h"
#include "layers/keras_class.h"
#include "layers/layer.h"

namespace strata::layers {

struct Pooling3DOptions {  // Keras signature order (after pool_size)
  std::optional<IntTriple> strides;  // default: pool_size
  std::string padding = "valid";
  std::string data_format;
  std::string name;

  static constexpr auto keras_fields() {  // Keras writes padding before strides
    using O = Pooling3DOptions;
    return std::tuple{keras_field("padding", &O::padding, Spelling::padding),
                      keras_field("strides", &O::strides).at_least(1),
                      keras_field("data_format", &O::data_format, Spelling::data_format)};
  }
};

class Pooling3DImpl : public LayerImpl {
 public:
  Pooling3DImpl(std::string class_name, bool max, IntTriple pool_size, Pooling3DOptions options);
  std::vector<Output> call(Graph& graph, const std::vector<Output>& inputs) override;

  bool max;
  IntTriple pool_size;
  Pooling3DOptions options;  // strides always set
};

class MaxPooling3D : public Layer {
 public:
  explicit MaxPooling3D(IntTriple pool_size = 2, Pooling3DOptions options = {});
};
class AveragePooling3D : public Layer {
 public:
  explicit AveragePooling3D(IntTriple pool_size, Pooling3DOptions options = {});
};

}  // namespace strata::layers
