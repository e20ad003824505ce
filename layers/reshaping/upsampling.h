// UpSampling1D/2D: each step / pixel repeated `size` times (nearest neighbour).
#pragma once

#include <string>

#include "layers/convolutional/conv_utils.h"
#include "layers/keras_class.h"
#include "layers/layer.h"

namespace strata::layers {

struct UpSampling2DOptions {  // Keras signature order (after size)
  std::string data_format;
  std::string interpolation = "nearest";  // only "nearest"
  std::string name;

  static constexpr auto keras_fields() {
    using O = UpSampling2DOptions;
    return std::tuple{keras_field("data_format", &O::data_format, Spelling::data_format),
                      keras_field("interpolation", &O::interpolation)};
  }
};
struct UpSampling1DOptions {
  std::string name;
};

class UpSamplingImpl : public LayerImpl {
 public:
  UpSamplingImpl(std::string class_name, int spatial_rank, IntPair size, std::string data_format, std::string name);
  std::vector<Output> call(Graph& graph, const std::vector<Output>& inputs) override;
  int spatial_rank;
  IntPair size;
  std::string data_format;
};

class UpSampling1D : public Layer {
 public:
  explicit UpSampling1D(std::int64_t size = 2, UpSampling1DOptions options = {});
};
class UpSampling2D : public Layer {
 public:
  explicit UpSampling2D(IntPair size = 2, UpSampling2DOptions options = {});
};

}  // namespace strata::layers
