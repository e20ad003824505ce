// ZeroPadding3D and Cropping3D: zeros added around, or elements removed from the ends of,
// the three spatial axes of (batch, depth, rows, cols, channels) — or channels_first.
#pragma once

#include <string>

#include "layers/convolutional/conv3d_utils.h"
#include "layers/keras_class.h"
#include "layers/layer.h"

namespace strata::layers {

struct ZeroPadding3DOptions {  // Keras signature order (after padding)
  std::string data_format;
  std::string name;

  static constexpr auto keras_fields() {
    return std::tuple{keras_field("data_format", &ZeroPadding3DOptions::data_format, Spelling::data_format)};
  }
};
using Cropping3DOptions = ZeroPadding3DOptions;

class Pad3DImpl : public LayerImpl {
 public:
  Pad3DImpl(std::string class_name, bool remove, Padding3D amounts, ZeroPadding3DOptions options);
  std::vector<Output> call(Graph& graph, const std::vector<Output>& inputs) override;
  bool remove;  // Cropping3D
  Padding3D amounts;
  ZeroPadding3DOptions options;
};

class ZeroPadding3D : public Layer {
 public:
  explicit ZeroPadding3D(Padding3D padding = 1, ZeroPadding3DOptions options = {});
};
class Cropping3D : public Layer {
 public:
  explicit Cropping3D(Padding3D cropping = 1, Cropping3DOptions options = {});
};

}  // namespace strata::layers
