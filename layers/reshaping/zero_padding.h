// ZeroPadding1D/2D: zeros added around the spatial axes.
#pragma once

#include <string>

#include "layers/convolutional/conv_utils.h"
#include "layers/keras_class.h"
#include "layers/layer.h"

namespace strata::layers {

struct ZeroPaddingOptions {
  std::string data_format;  // 2-D only
  std::string name;

  static constexpr auto keras_fields() {
    return std::tuple{keras_field("data_format", &ZeroPaddingOptions::data_format, Spelling::data_format)};
  }
};

// Also used by Cropping1D/2D (remove = true).
class SpatialPadImpl : public LayerImpl {
 public:
  SpatialPadImpl(std::string class_name, bool remove, int spatial_rank, Padding2D amounts, std::string data_format,
                 std::string name);
  std::vector<Output> call(Graph& graph, const std::vector<Output>& inputs) override;
  bool remove;
  int spatial_rank;
  Padding2D amounts;  // 1-D: cols
  std::string data_format;
};

class ZeroPadding1D : public Layer {
 public:
  // `padding` = (before, after); an int pads both sides.
  explicit ZeroPadding1D(IntPair padding = 1, ZeroPaddingOptions options = {});
};
class ZeroPadding2D : public Layer {
 public:
  explicit ZeroPadding2D(Padding2D padding = 1, ZeroPaddingOptions options = {});
};

}  // namespace strata::layers
