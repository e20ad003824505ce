// Hashing: values -> bins by TensorFlow's string hashes, exactly as Keras's layer
// (core/fingerprint.h): strings by FarmHash Fingerprint64, or SipHash-2-4 with a salt;
// integers (and floats, truncated to integers first) hashed as their decimal text. With
// mask_value, that value goes to bin 0 and the rest to [1, num_bins). output_mode "int"
// gives the bins (int64); "one_hot", "multi_hot", "count" encode them (float32).
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "layers/keras_class.h"
#include "layers/layer.h"

namespace strata::layers {

struct HashingOptions {  // Keras signature order
  std::optional<Token> mask_value;
  // Keras's salt: two integers (the SipHash key); a single integer s is [s, s].
  std::optional<std::vector<std::int64_t>> salt;
  std::string output_mode = "int";
  // Keras returns a tf.SparseTensor; Strata's tensors are dense, so the same values come
  // dense (tf.sparse.to_dense of Keras's output). Not with output_mode "int", as Keras.
  bool sparse = false;
  std::string name;
  std::string dtype;  // the output dtype: "" is Keras's default (int64 for "int", else float32)

  static constexpr auto keras_fields() {
    using O = HashingOptions;
    return std::tuple{keras_field("salt", &O::salt, Spelling::bare_single), keras_field("mask_value", &O::mask_value),
                      keras_field("output_mode", &O::output_mode),
                      keras_field("sparse", &O::sparse), keras_field("dtype", &O::dtype)};
  }
};

class HashingImpl : public LayerImpl {
 public:
  HashingImpl(std::int64_t num_bins, HashingOptions options);
  std::vector<Output> call(Graph& graph, const std::vector<Output>& inputs) override;
  std::int64_t num_bins;
  HashingOptions options;
};

class Hashing : public Layer {
 public:
  Hashing(std::int64_t num_bins, HashingOptions options = {});
};

}  // namespace strata::layers
