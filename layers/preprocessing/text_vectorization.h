// TextVectorization: Keras's layer from text to token indices or bag-of-token encodings.
// Each row is standardized, split and made into ngrams (core/text.h, TensorFlow's string
// ops as Keras calls them), then its tokens are looked up in a vocabulary kept as a
// StringLookup keeps it (layers/preprocessing/index_lookup.h) with Keras's mask token ""
// and one OOV token "[UNK]":
//
//   auto text = Input({1}, {.dtype = DType::string});
//   layers::TextVectorization vectorize({.max_tokens = 20000, .output_sequence_length = 200});
//   vectorize.adapt(training_texts);                  // the vocabulary, most frequent first
//   auto ids = vectorize(text);                       // (batch, 200) int64, 0 pads, 1 is OOV
//
// output_mode "int" gives (batch, output_sequence_length) indices (without a length, or with
// ragged, each batch's rows padded to its longest, as Keras's ragged rows made dense);
// "multi_hot", "count"
// and "tf_idf" give (batch, depth) float32, depth being the vocabulary's size or max_tokens
// with pad_to_max_tokens. The tf_idf weights come from adapt (Keras's
// log(1 + documents / (1 + documents holding the token))), from idf_weights given with the
// vocabulary, or from a .keras file. The work runs on the CPU (core/ops/text_ops.h).
//
// Sparse and ragged outputs come dense (Strata has neither kind of tensor). Not supported:
// callables as standardize or split, encodings other than UTF-8.
#pragma once

#include <cstdint>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "layers/preprocessing/index_lookup.h"

namespace strata::layers {

struct TextVectorizationOptions {  // Keras signature order
  std::optional<std::int64_t> max_tokens;
  std::optional<std::string> standardize = "lower_and_strip_punctuation";  // nullopt: None
  std::optional<std::string> split = "whitespace";                         // nullopt: None
  // The ngram widths (Keras's tuple); Keras's integer n is {1, ..., n}. nullopt: none.
  std::optional<std::vector<std::int64_t>> ngrams;
  std::string output_mode = "int";  // int, multi_hot, count, tf_idf
  std::optional<std::int64_t> output_sequence_length;
  bool pad_to_max_tokens = false;
  std::optional<std::vector<std::string>> vocabulary;
  // Keras's vocabulary given as a file path: one term per line, read when the layer is
  // made (then saved inline in the config, as a given vocabulary is).
  std::optional<std::string> vocabulary_file;
  std::optional<std::vector<double>> idf_weights;  // tf_idf with a given vocabulary
  // Keras returns a tf.SparseTensor; Strata's tensors are dense, so the same values come
  // dense (tf.sparse.to_dense of Keras's output). Not with output_mode "int", as Keras.
  bool sparse = false;
  // Keras's tf.RaggedTensor rows ("int" only): Strata's tensors are dense, so the rows come
  // padded with 0 to the batch's longest (RaggedTensor.to_tensor()); output_sequence_length
  // then only cuts longer rows, as Keras's.
  bool ragged = false;
  std::string encoding = "utf-8";
  std::string name;
  // Keras's saved vocabulary size (the encodings' depth until the assets are read).
  std::optional<std::int64_t> vocabulary_size;

  static constexpr auto keras_fields() {
    using O = TextVectorizationOptions;
    return std::tuple{keras_field("max_tokens", &O::max_tokens), keras_field("standardize", &O::standardize),
                      keras_field("split", &O::split), keras_field("ngrams", &O::ngrams, Spelling::up_to),
                      keras_field("output_mode", &O::output_mode),
                      keras_field("output_sequence_length", &O::output_sequence_length),
                      keras_field("pad_to_max_tokens", &O::pad_to_max_tokens),
                      keras_field("sparse", &O::sparse),
                      keras_field("ragged", &O::ragged),
                      keras_field("vocabulary", &O::vocabulary), keras_field("idf_weights", &O::idf_weights),
                      keras_field("encoding", &O::encoding), keras_field("vocabulary_size", &O::vocabulary_size)};
  }
};

class TextVectorizationImpl : public LayerImpl, public AdaptableLayer {
 public:
  explicit TextVectorizationImpl(TextVectorizationOptions options);
  std::vector<Output> call(Graph& graph, const std::vector<Output>& inputs) override;

  // adapt in steps: each batch's rows (strings of shape (n,) or (n, 1); with split None,
  // rows along the last axis) made into tokens, counted.
  void reset_state() override;
  void update_state(const Tensor& batch) override;
  void finalize_state() override;

  IndexLookupImpl& lookup() { return *lookup_; }
  const IndexLookupImpl& lookup() const { return *lookup_; }
  TextVectorizationOptions options;

 private:
  std::string where() const;
  std::unique_ptr<IndexLookupImpl> lookup_;
};

class TextVectorization : public Layer {
  explicit TextVectorization(std::shared_ptr<LayerImpl> impl) : Layer(std::move(impl)) {}

 public:
  explicit TextVectorization(TextVectorizationOptions options = {});
  // The TextVectorization behind a layer handle (one from a loaded model); ValueError otherwise.
  static TextVectorization from(const Layer& layer);
  // Learns the vocabulary (and with tf_idf the idf weights) from strings: a rank-1 tensor
  // of documents, or (n, 1).
  void adapt(const Tensor& data) const;
  std::vector<std::string> get_vocabulary(bool include_special_tokens = true) const;
  // Keras's set_vocabulary; idf_weights only (and always) with output_mode "tf_idf".
  void set_vocabulary(const std::vector<std::string>& vocabulary,
                      const std::optional<std::vector<double>>& idf_weights = std::nullopt) const;
  std::int64_t vocabulary_size() const;
  // The tf_idf weights, one per index (empty in the other modes).
  std::vector<float> idf_weights() const;
};

}  // namespace strata::layers
