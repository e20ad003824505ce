// Keras's IndexLookup: the engine StringLookup and IntegerLookup share. Maps tokens to
// indices in a vocabulary (or back, with invert), with Keras's layout of indices:
//
//   [mask (output_mode "int" only)] [num_oov_indices OOV indices] [tokens...]
//
// The vocabulary is either given (saved inline in the config, as Keras does) or learned
// by adapt (Keras's order: most frequent first, ties by token, highest first; saved in
// a .keras file's assets as vocabulary.txt, as Keras does). It lives in a lookup table
// owned by the layer (core/ops/lookup_ops.h), never as a graph constant. The outputs are
// integers (or tokens, or float encodings of them): nothing flows back through them.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <unordered_map>
#include <vector>

#include "core/ops/lookup_ops.h"
#include "layers/adapt.h"
#include "layers/keras_class.h"
#include "layers/layer.h"

namespace strata::layers {

// The options both lookup layers resolve to.
struct IndexLookupConfig {
  bool strings = true;  // StringLookup; false: IntegerLookup (int64 vocabulary)
  std::optional<std::int64_t> max_tokens;
  std::int64_t num_oov_indices = 1;
  std::optional<Token> mask_token;
  Token oov_token;
  bool invert = false;
  std::string output_mode = "int";  // int, one_hot, multi_hot, count
  bool pad_to_max_tokens = false;
  bool floormod_oov = false;  // IntegerLookup's oov_method "floormod"
  std::optional<std::vector<std::int64_t>> salt;
  // Keras's saved vocabulary_size: the encodings' depth until a vocabulary is loaded
  // (a saved adapted layer's comes from the assets after the model is rebuilt).
  std::optional<std::int64_t> vocabulary_size;
  // Whether output_mode "tf_idf" is taken (TextVectorization's lookup; the lookup layers
  // still refuse it).
  bool tf_idf = false;
};

// The options StringLookup and IntegerLookup share (Keras's IndexLookup arguments), from
// either layer's options struct; each layer adds what is its own.
template <typename Options>
IndexLookupConfig shared_lookup_config(const Options& o, bool strings) {
  IndexLookupConfig c;
  c.strings = strings;
  c.max_tokens = o.max_tokens;
  c.num_oov_indices = o.num_oov_indices;
  if (o.mask_token) c.mask_token = Token(*o.mask_token);
  c.oov_token = o.oov_token;
  c.invert = o.invert;
  c.output_mode = o.output_mode;
  c.pad_to_max_tokens = o.pad_to_max_tokens;
  c.salt = o.salt;
  c.vocabulary_size = o.vocabulary_size;
  return c;
}

class IndexLookupImpl : public LayerImpl, public AdaptableLayer {
 public:
  IndexLookupImpl(std::string class_name, std::string name, IndexLookupConfig config);
  std::vector<Output> call(Graph& graph, const std::vector<Output>& inputs) override;

  // Keras's get_vocabulary / set_vocabulary. A vocabulary may start with the special
  // tokens in their places (as get_vocabulary gives them); they are recognized.
  std::vector<std::string> string_vocabulary(bool include_special_tokens = true) const;
  std::vector<std::int64_t> int_vocabulary(bool include_special_tokens = true) const;
  void set_string_vocabulary(const std::vector<std::string>& vocabulary);
  void set_int_vocabulary(const std::vector<std::int64_t>& vocabulary);
  // Tokens plus the mask and OOV indices.
  std::int64_t vocabulary_size() const;

  // adapt, in steps (Keras's reset_state / update_state / finalize_state): batches of
  // tokens in, the vocabulary out. adapt(data) is all three on one tensor.
  void reset_state() override;
  void update_state(const Tensor& batch) override;
  void finalize_state() override;
  void adapt(const Tensor& data);
  // update_state for documents already made tokens (TextVectorization's rows): counts
  // every token, and with tf_idf the documents each token appears in.
  void update_documents(const std::vector<std::vector<std::string>>& documents);

  // output_mode "tf_idf": Keras's set_vocabulary(vocabulary, idf_weights), one weight per
  // term; without the special tokens in front, their weights are the weights' mean, and
  // with pad_to_max_tokens zeros fill up to max_tokens.
  void set_string_vocabulary(const std::vector<std::string>& vocabulary, const std::vector<double>& idf_weights);
  // The weights as a saved layer holds them (special tokens and padding included).
  void set_idf_weights(std::vector<float> weights);
  const std::vector<float>& idf_weights() const { return idf_weights_; }

  // The table the layer's ops read, and the width of its encodings (max_tokens when
  // padded; else the vocabulary's size, or the saved one before a vocabulary is loaded).
  const TableHandle& table() const { return table_; }
  std::int64_t encoding_depth() const;

  // True when the vocabulary came from adapt or set_vocabulary (saved as an asset, as
  // Keras does), false when given to the constructor (saved in the config).
  bool adapted() const { return adapted_; }
  const IndexLookupConfig& lookup_config() const { return config_; }

 protected:
  // Sets tokens (special tokens already removed) and publishes the table.
  void set_tokens(std::vector<std::string> strings, std::vector<std::int64_t> ints);
  bool adapted_ = false;

 private:
  std::int64_t oov_start() const;
  std::int64_t token_start() const { return oov_start() + config_.num_oov_indices; }
  void publish();
  std::string where() const;

  IndexLookupConfig config_;
  std::vector<std::string> string_tokens_;
  std::vector<std::int64_t> int_tokens_;
  std::unordered_map<std::string, std::int64_t> string_counts_;
  std::unordered_map<std::int64_t, std::int64_t> int_counts_;
  std::unordered_map<std::string, std::int64_t> document_counts_;  // tf_idf's adapt
  std::int64_t num_documents_ = 0;
  std::vector<float> idf_weights_;
  TableHandle table_;
};

// The .keras assets of an adapted lookup layer (vocabulary.txt: the vocabulary with its
// special tokens, one per line, joined by "\n"), for register_keras_class.
void describe_lookup_assets(KerasClass& k);

}  // namespace strata::layers
