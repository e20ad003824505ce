// HashedCrossing: crosses two or more categorical features (strings or integers, each
// of shape (), (batch) or (batch, 1)) by tf.sparse.cross_hashed's FingerprintCat64
// scheme, exactly (core/ops/hash_ops.h), into `num_bins` bins. output_mode "int" gives
// the bins (int64), "one_hot" encodes them (float32).
#pragma once

#include <cstdint>
#include <string>

#include "layers/keras_class.h"
#include "layers/layer.h"

namespace strata::layers {

struct HashedCrossingOptions {  // Keras signature order
  std::string output_mode = "int";
  // Keras's one_hot output as a tf.SparseTensor: the same values, dense here (Strata's
  // tensors are dense). With "int" Keras's output is dense either way.
  bool sparse = false;
  std::string name;
  std::string dtype;  // "" is Keras's default: int64 for "int", float32 for "one_hot"

  static constexpr auto keras_fields() {
    using O = HashedCrossingOptions;
    return std::tuple{keras_field("output_mode", &O::output_mode),
                      keras_field("sparse", &O::sparse), keras_field("dtype", &O::dtype)};
  }
};

class HashedCrossingImpl : public LayerImpl {
 public:
  HashedCrossingImpl(std::int64_t num_bins, HashedCrossingOptions options);
  std::vector<Output> call(Graph& graph, const std::vector<Output>& inputs) override;
  bool accepts_input_count(std::size_t n) const override { return n >= 2; }
  std::int64_t num_bins;
  HashedCrossingOptions options;
};

class HashedCrossing : public Layer {
 public:
  HashedCrossing(std::int64_t num_bins, HashedCrossingOptions options = {});
};

}  // namespace strata::layers
