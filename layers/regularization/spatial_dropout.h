// SpatialDropout1D/2D/3D: drops whole feature maps — one mask value per (sample, channel),
// shared over the spatial axes — in training; identity in inference.
#pragma once

#include <cstdint>
#include <optional>
#include <string>

#include "layers/keras_class.h"
#include "layers/layer.h"

namespace strata::layers {

struct SpatialDropoutOptions {  // Keras signature order (after rate)
  std::string data_format;      // 2-D and 3-D only
  std::optional<std::uint64_t> seed;
  std::string name;
  DTypePolicyName dtype;  // Keras's dtype=: this layer's dtype policy ("" the global one)

  static constexpr auto keras_fields() {  // Keras writes seed first
    using O = SpatialDropoutOptions;
    return std::tuple{keras_field("seed", &O::seed),
                      keras_field("data_format", &O::data_format, Spelling::data_format)};
  }
};

class SpatialDropoutImpl : public LayerImpl {
 public:
  SpatialDropoutImpl(std::string class_name, int spatial_rank, double rate, SpatialDropoutOptions options);
  std::vector<Output> call(Graph& graph, const std::vector<Output>& inputs) override;
  int spatial_rank;
  double rate;
  std::string data_format;
  std::uint64_t seed;  // options.seed, or drawn
  SpatialDropoutOptions options;
};

class SpatialDropout1D : public Layer {
 public:
  explicit SpatialDropout1D(double rate, SpatialDropoutOptions options = {});
};
class SpatialDropout2D : public Layer {
 public:
  explicit SpatialDropout2D(double rate, SpatialDropoutOptions options = {});
};
class SpatialDropout3D : public Layer {
 public:
  explicit SpatialDropout3D(double rate, SpatialDropoutOptions options = {});
};

}  // namespace strata::layers
