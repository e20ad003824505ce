// SpatialDropout1D/2D: drops whole feature maps — one mask value per (sample, channel),
// shared over the spatial axes — in training; identity in inference.
#pragma once

#include <cstdint>
#include <optional>
#include <string>

#include "layers/layer.h"

namespace strata::layers {

struct SpatialDropoutOptions {  // Keras signature order (after rate)
  std::string data_format;      // 2-D only
  std::optional<std::uint64_t> seed;
  std::string name;
};

class SpatialDropoutImpl : public LayerImpl {
 public:
  SpatialDropoutImpl(std::string class_name, int spatial_rank, double rate, SpatialDropoutOptions options);
  std::vector<Output> call(Graph& graph, const std::vector<Output>& inputs) override;
  int spatial_rank;
  double rate;
  std::string data_format;
  std::uint64_t seed;
};

class SpatialDropout1D : public Layer {
 public:
  explicit SpatialDropout1D(double rate, SpatialDropoutOptions options = {});
};
class SpatialDropout2D : public Layer {
 public:
  explicit SpatialDropout2D(double rate, SpatialDropoutOptions options = {});
};

}  // namespace strata::layers
