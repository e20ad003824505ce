// StringLookup: strings -> vocabulary indices (or back, with invert), Keras's layer on
// the string dtype. See layers/preprocessing/index_lookup.h for the index layout, adapt and saving.
//
//   auto lookup = layers::StringLookup({.vocabulary = std::vector<std::string>{"a", "b"}});
//   auto ids = lookup(Input({1}, {.dtype = DType::string}));   // "a" -> 1, "zz" -> 0 (OOV)
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "layers/preprocessing/index_lookup.h"

namespace strata::layers {

struct StringLookupOptions {  // Keras signature order
  std::optional<std::int64_t> max_tokens;
  std::int64_t num_oov_indices = 1;
  std::optional<std::string> mask_token;
  std::string oov_token = "[UNK]";
  std::optional<std::vector<std::string>> vocabulary;
  std::optional<std::vector<double>> idf_weights;  // output_mode "tf_idf" with a vocabulary
  bool invert = false;
  std::string output_mode = "int";
  bool pad_to_max_tokens = false;
  // Keras returns a tf.SparseTensor; Strata's tensors are dense, so the same values come
  // dense (tf.sparse.to_dense of Keras's output). Not with output_mode "int", as Keras.
  bool sparse = false;
  std::string encoding = "utf-8";
  std::string name;
  std::optional<std::vector<std::int64_t>> salt;
  // Keras's frozen vocabulary size, as saved configs hold it (written, not needed).
  std::optional<std::int64_t> vocabulary_size;

  static constexpr auto keras_fields() {
    using O = StringLookupOptions;
    return std::tuple{keras_field("invert", &O::invert), keras_field("max_tokens", &O::max_tokens),
                      keras_field("num_oov_indices", &O::num_oov_indices), keras_field("oov_token", &O::oov_token),
                      keras_field("mask_token", &O::mask_token), keras_field("output_mode", &O::output_mode),
                      keras_field("sparse", &O::sparse),
                      keras_field("pad_to_max_tokens", &O::pad_to_max_tokens),
                      keras_field("idf_weights", &O::idf_weights), keras_field("vocabulary", &O::vocabulary),
                      keras_field("vocabulary_size", &O::vocabulary_size), keras_unmodeled("oov_method", "\"farmhash\""),
                      keras_field("salt", &O::salt), keras_field("encoding", &O::encoding)};
  }
};

class StringLookupImpl : public IndexLookupImpl {
 public:
  explicit StringLookupImpl(StringLookupOptions options);
  StringLookupOptions options;
};

class StringLookup : public Layer {
  explicit StringLookup(std::shared_ptr<LayerImpl> impl) : Layer(std::move(impl)) {}

 public:
  explicit StringLookup(StringLookupOptions options = {});
  // The StringLookup behind a layer handle (one from a loaded model); ValueError otherwise.
  static StringLookup from(const Layer& layer);
  // Learns the vocabulary from string data (any shape), as Keras's adapt.
  void adapt(const Tensor& data) const;
  std::vector<std::string> get_vocabulary(bool include_special_tokens = true) const;
  // Keras's set_vocabulary; idf_weights only (and always) with output_mode "tf_idf".
  void set_vocabulary(const std::vector<std::string>& vocabulary,
                      const std::optional<std::vector<double>>& idf_weights = std::nullopt) const;
  // tf_idf's weights per index (special tokens and padding included); empty in other modes.
  std::vector<float> idf_weights() const;
  std::int64_t vocabulary_size() const;
  // adapt in steps (data/adapt.h adapts from a Dataset through these).
  IndexLookupImpl& lookup() const;
};

}  // namespace strata::layers
