// Local pooling layers: MaxPooling1D/2D, AveragePooling1D/2D. strides default to
// pool_size; padding "valid" or "same" (padded cells never count: average divides by
// the in-bounds cells). 1-D pooling runs as 2-D pooling with a unit row dimension.
#pragma once

#include <optional>
#include <string>

#include "layers/conv_utils.h"
#include "layers/layer.h"

namespace strata::layers {

struct Pooling2DOptions {  // Keras signature order (after pool_size)
  std::optional<IntPair> strides;  // default: pool_size
  std::string padding = "valid";
  std::string data_format;
  std::string name;
};

struct Pooling1DOptions {
  std::optional<std::int64_t> strides;
  std::string padding = "valid";
  std::string data_format;
  std::string name;
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
