// Keras's IndexLookup: the engine StringLookup and IntegerLookup share. Maps tokens to
// indices in a vocabulary (or back, with invert), with Keras's layout of indices:
//
//   [mask (output_mode "int" only)] [num_oov_indices OOV indices] [tokens...]
//
// The vocabulary is either given (saved inline in the config, as Keras does) or learned
// by adapt (Keras's order: most frequent first, ties by token, highest first; saved in
// a .keras file's assets as vocabulary.txt, as Keras does). output_mode "tf_idf" weighs each
// index's count by an inverse document frequency, given with the vocabulary or learned by
// adapt (the documents each token appears in), saved as Keras saves it (the layer's
// vars/idf_weights in model.weights.h5). It lives in a lookup table
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
  std::string output_mode = "int";  // int, one_hot, multi_hot, count, tf_idf
  bool pad_to_max_tokens = false;
  bool sparse = false;  // Keras's sparse outputs, held dense (not with output_mode "int")
  bool floormod_oov = false;  // IntegerLookup's oov_method "floormod"
  std::optional<std::vector<std::int64_t>> salt;
  // Keras's saved vocabulary_size: the encodings' depth until a vocabulary is loaded
  // (a saved adapted layer's comes from the assets after the model is rebuilt).
  std::optional<std::int64_t> vocabulary_size;
};

// The options StringLookup and IntegerLookup share (Keras's IndexLookup arguments), from
// either layer's options struct; each layer adds what is its own.
template <typename Options>
IndexLookupConfig shared_lookup_config(const Options& o, bool strings) {
  // Keras takes "tf-idf" for "tf_idf" (and writes the latter).
  IndexLookupConfig c;
  c.strings = strings;
  c.max_tokens = o.max_tokens;
  c.num_oov_indices = o.num_oov_indices;
  if (o.mask_token) c.mask_token = Token(*o.mask_token);
  c.oov_token = o.oov_token;
  c.invert = o.invert;
  c.output_mode = o.output_mode == "tf-idf" ? "tf_idf" : o.output_mode;
  c.pad_to_max_tokens = o.pad_to_max_tokens;
  c.sparse = o.sparse;
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
  void set_int_vocabulary(const std::vector<std::int64_t>& vocabulary, const std::vector<double>& idf_weights);
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
  // set_*_vocabulary's weights: checked (the mode, one per term given) before the vocabulary
  // changes, then set for the terms just set, padded as Keras pads them.
  void check_given_idf_weights(std::size_t given, const std::vector<double>& idf_weights) const;
  void set_given_idf_weights(std::size_t given, const std::vector<double>& idf_weights);
  // tf_idf's adapt: each document's distinct tokens counted once.
  void count_documents(const Tensor& batch, bool elements_are_documents);
  // Every token's occurrences (the vocabulary's order).
  void count_tokens(const Tensor& batch);
  void publish();
  std::string where() const;

  IndexLookupConfig config_;
  std::vector<std::string> string_tokens_;
  std::vector<std::int64_t> int_tokens_;
  std::unordered_map<std::string, std::int64_t> string_counts_;
  std::unordered_map<std::int64_t, std::int64_t> int_counts_;
  std::unordered_map<std::string, std::int64_t> document_counts_;  // tf_idf's adapt
  std::unordered_map<std::int64_t, std::int64_t> int_document_counts_;
  std::int64_t num_documents_ = 0;
  std::vector<float> idf_weights_;
  TableHandle table_;
};

// The .keras state of a lookup layer, for register_keras_class: an adapted one's assets
// (vocabulary.txt: the vocabulary with its special tokens, one per line, joined by "\n"),
// and in output_mode "tf_idf" its weights (vars/idf_weights, special tokens and padding
// included), as Keras's save_assets and save_own_variables write them.
void describe_lookup_state(KerasClass& k);

// Keras's rules on idf_weights in a lookup layer's arguments: only with output_mode
// "tf_idf", and there with any vocabulary given. `where` names the layer.
void check_idf_weights_option(const std::string& where, const std::string& output_mode, bool vocabulary_given,
                              bool idf_weights_given);

}  // namespace strata::layers
