// IntegerLookup: integers -> vocabulary indices (or back, with invert), Keras's layer.
// See layers/preprocessing/index_lookup.h for the index layout, adapt and saving.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "layers/preprocessing/index_lookup.h"

namespace strata::layers {

struct IntegerLookupOptions {  // Keras signature order
  std::optional<std::int64_t> max_tokens;
  std::int64_t num_oov_indices = 1;
  std::optional<std::int64_t> mask_token;
  std::int64_t oov_token = -1;
  std::optional<std::vector<std::int64_t>> vocabulary;
  std::string vocabulary_dtype = "int64";
  std::optional<std::vector<double>> idf_weights;  // output_mode "tf_idf" with a vocabulary
  bool invert = false;
  std::string output_mode = "int";
  // Keras returns a tf.SparseTensor; Strata's tensors are dense, so the same values come
  // dense (tf.sparse.to_dense of Keras's output). Not with output_mode "int", as Keras.
  bool sparse = false;
  bool pad_to_max_tokens = false;
  std::string oov_method = "floormod";  // or "farmhash"
  std::optional<std::vector<std::int64_t>> salt;
  std::string name;
  // Keras's frozen vocabulary size, as saved configs hold it (written, not needed).
  std::optional<std::int64_t> vocabulary_size;

  static constexpr auto keras_fields() {
    using O = IntegerLookupOptions;
    return std::tuple{keras_field("invert", &O::invert), keras_field("max_tokens", &O::max_tokens),
                      keras_field("num_oov_indices", &O::num_oov_indices), keras_field("oov_token", &O::oov_token),
                      keras_field("mask_token", &O::mask_token), keras_field("output_mode", &O::output_mode),
                      keras_field("sparse", &O::sparse),
                      keras_field("pad_to_max_tokens", &O::pad_to_max_tokens),
                      keras_field("vocabulary_dtype", &O::vocabulary_dtype),
                      keras_field("idf_weights", &O::idf_weights), keras_field("vocabulary", &O::vocabulary),
                      keras_field("vocabulary_size", &O::vocabulary_size), keras_field("oov_method", &O::oov_method),
                      keras_field("salt", &O::salt)};
  }
};

class IntegerLookupImpl : public IndexLookupImpl {
 public:
  explicit IntegerLookupImpl(IntegerLookupOptions options);
  IntegerLookupOptions options;
};

class IntegerLookup : public Layer {
  explicit IntegerLookup(std::shared_ptr<LayerImpl> impl) : Layer(std::move(impl)) {}

 public:
  explicit IntegerLookup(IntegerLookupOptions options = {});
  // The IntegerLookup behind a layer handle (one from a loaded model); ValueError otherwise.
  static IntegerLookup from(const Layer& layer);
  void adapt(const Tensor& data) const;
  std::vector<std::int64_t> get_vocabulary(bool include_special_tokens = true) const;
  // Keras's set_vocabulary; idf_weights only (and always) with output_mode "tf_idf".
  void set_vocabulary(const std::vector<std::int64_t>& vocabulary,
                      const std::optional<std::vector<double>>& idf_weights = std::nullopt) const;
  // tf_idf's weights per index (special tokens and padding included); empty in other modes.
  std::vector<float> idf_weights() const;
  std::int64_t vocabulary_size() const;
  IndexLookupImpl& lookup() const;
};

}  // namespace strata::layers
