// UpSampling3D: each voxel repeated size = (depth, rows, cols) times (nearest neighbour),
// as two passes of the 2-D upsampling op (pool_ops.h).
#pragma once

#include <string>

#include "layers/convolutional/conv3d_utils.h"
#include "layers/keras_class.h"
#include "layers/layer.h"

namespace strata::layers {

struct UpSampling3DOptions {  // Keras signature order (after size)
  std::string data_format;
  std::string name;

  static constexpr auto keras_fields() {
    return std::tuple{keras_field("data_format", &UpSampling3DOptions::data_format, Spelling::data_format)};
  }
};

class UpSampling3DImpl : public LayerImpl {
 public:
  UpSampling3DImpl(IntTriple size, UpSampling3DOptions options);
  std::vector<Output> call(Graph& graph, const std::vector<Output>& inputs) override;
  IntTriple size;
  UpSampling3DOptions options;
};

class UpSampling3D : public Layer {
 public:
  explicit UpSampling3D(IntTriple size = 2, UpSampling3DOptions options = {});
};

}  // namespace strata::layers
