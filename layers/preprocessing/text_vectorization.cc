#include "layers/preprocessing/text_vectorization.h"

#include <fstream>
#include <sstream>

#include "core/error.h"
#include "core/ops/text_ops.h"
#include "core/text.h"

namespace strata::layers {

namespace {

std::string where_of(const TextVectorizationOptions& o) { return "TextVectorization '" + o.name + "'"; }

// Keras's checks of the arguments, then the lookup's options: mask token "", one OOV
// token "[UNK]", as Keras's TextVectorization makes its StringLookup.
IndexLookupConfig text_vectorization_config(TextVectorizationOptions& o) {
  const std::string where = where_of(o);
  if (o.output_mode == "binary") o.output_mode = "multi_hot";  // Keras's old names
  if (o.output_mode == "tf-idf") o.output_mode = "tf_idf";
  if (o.output_mode == "one_hot") {
    throw NotImplementedError(where + ": output_mode 'one_hot' is not supported (use 'multi_hot')");
  }
  if (o.output_mode != "int" && o.output_mode != "multi_hot" && o.output_mode != "count" && o.output_mode != "tf_idf") {
    throw ValueError(where + ": output_mode must be 'int', 'multi_hot', 'count' or 'tf_idf', got '" + o.output_mode +
                     "'");
  }
  try {
    text::parse_standardize(o.standardize.value_or(""));
    text::parse_split(o.split.value_or(""));
  } catch (const ValueError& e) {
    throw ValueError(where + ": " + e.what() + " (callables are not supported)");
  }
  if (o.ngrams) {
    for (std::int64_t w : *o.ngrams) {
      if (w < 1) throw ValueError(where + ": ngrams must be positive integers, got " + std::to_string(w));
    }
  }
  if (o.output_sequence_length && o.output_mode != "int") {
    throw ValueError(where + ": output_sequence_length must not be set if output_mode is not 'int', it is '" +
                     o.output_mode + "'");
  }
  if (o.ragged && o.output_mode != "int") {
    throw ValueError(where + ": `ragged` may only be true if `output_mode` is 'int'. Received: ragged=True and "
                     "output_mode=" + o.output_mode);
  }
  if (o.output_sequence_length && *o.output_sequence_length < 0) {
    throw ValueError(where + ": output_sequence_length must be >= 0, got " + std::to_string(*o.output_sequence_length));
  }
  if (o.encoding != "utf-8" && o.encoding != "UTF-8") {
    throw NotImplementedError(where + ": encoding '" + o.encoding + "' is not supported (strings are UTF-8 bytes)");
  }
  if (o.idf_weights && o.output_mode != "tf_idf") {
    throw ValueError(where + ": idf_weights should only be set if output_mode is 'tf_idf', it is '" + o.output_mode +
                     "'");
  }
  if (o.vocabulary_file) {
    if (o.vocabulary) throw ValueError(where + ": give the vocabulary or a vocabulary file, not both");
    if (o.output_mode == "tf_idf") {
      throw ValueError(where + ": output_mode 'tf_idf' does not support loading a vocabulary from file");
    }
    std::ifstream in(*o.vocabulary_file, std::ios::binary);
    if (!in) throw IOError(where + ": cannot read the vocabulary file '" + *o.vocabulary_file + "'");
    std::vector<std::string> terms;
    std::string line;
    while (std::getline(in, line)) {
      if (!line.empty() && line.back() == '\r') line.pop_back();
      terms.push_back(line);
    }
    o.vocabulary = std::move(terms);
    o.vocabulary_file.reset();
  }
  if (o.vocabulary && o.output_mode == "tf_idf" && !o.idf_weights) {
    throw ValueError(where + ": with a vocabulary in output_mode 'tf_idf', idf_weights must be given too");
  }
  IndexLookupConfig c;
  c.max_tokens = o.max_tokens;
  c.num_oov_indices = 1;
  c.mask_token = Token(std::string());
  c.oov_token = Token(std::string("[UNK]"));
  c.output_mode = o.output_mode;
  c.pad_to_max_tokens = o.pad_to_max_tokens;
  c.sparse = o.sparse;
  c.vocabulary_size = o.vocabulary_size;
  return c;
}

}  // namespace

TextVectorizationImpl::TextVectorizationImpl(TextVectorizationOptions options_)
    : LayerImpl("TextVectorization", options_.name), options(std::move(options_)) {
  lookup_ = std::make_unique<IndexLookupImpl>("TextVectorization", name, text_vectorization_config(options));
  if (options.vocabulary) {
    if (options.idf_weights) {
      lookup_->set_string_vocabulary(*options.vocabulary, *options.idf_weights);
    } else {
      lookup_->set_string_vocabulary(*options.vocabulary);
    }
  }
}

std::string TextVectorizationImpl::where() const { return "TextVectorization '" + name + "'"; }

std::vector<Output> TextVectorizationImpl::call(Graph&, const std::vector<Output>& inputs) {
  const Output x = inputs[0];
  if (x.dtype() != DType::string) {
    throw ValueError(where() + " expects string inputs (Input dtype \"string\"), got " + to_string(x.dtype()));
  }
  ops::TextVectorizeOptions o;
  o.standardize = options.standardize.value_or("");
  o.split = options.split.value_or("");
  o.ngrams = options.ngrams.value_or(std::vector<std::int64_t>{});
  o.output_mode = options.output_mode;
  if (options.output_mode == "int" && options.ragged) {  // rows to the batch's longest, cut at the length
    o.most_tokens = options.output_sequence_length.value_or(-1);
  } else if (options.output_mode == "int") {
    o.sequence_length = options.output_sequence_length.value_or(-1);
  } else {
    o.depth = lookup_->encoding_depth();
    if (lookup_->string_vocabulary(false).empty() && !options.pad_to_max_tokens && !options.vocabulary_size) {
      throw ValueError(where() + ": output_mode '" + options.output_mode +
                       "' needs the vocabulary before the layer is called; give a vocabulary or adapt it first");
    }
  }
  try {
    return {ops::text_vectorize(x, lookup_->table(), o)};
  } catch (const ValueError& e) {
    throw ValueError(where() + ": " + e.what());
  }
}

void TextVectorizationImpl::reset_state() { lookup_->reset_state(); }

void TextVectorizationImpl::update_state(const Tensor& batch) {
  if (options.vocabulary) {
    throw ValueError(where() + ": cannot adapt a layer given its vocabulary (as Keras); use set_vocabulary, or make "
                               "the layer without one");
  }
  if (batch.dtype() != DType::string) {
    throw ValueError(where() + ": adapt expects string data, got " + to_string(batch.dtype()));
  }
  if (batch.rank() == 0) throw ValueError(where() + ": adapt expects a batch of strings, got a scalar");
  text::TextOptions t;
  t.standardize = text::parse_standardize(options.standardize.value_or(""));
  t.split = text::parse_split(options.split.value_or(""));
  t.ngrams = options.ngrams.value_or(std::vector<std::int64_t>{});
  // Rows as Keras's adapt sees them: a rank-1 batch is one document per string.
  std::int64_t per_row = 1;
  if (batch.rank() > 1) {
    per_row = batch.shape().dims().back();
    if (t.split != text::Split::none && per_row != 1) {
      throw ValueError(where() + ": to split strings, adapt's data must have rank 1 or a last dimension of 1, got " +
                       batch.shape().to_string());
    }
  }
  const StringValue* s = batch.data<StringValue>();
  const std::int64_t rows = per_row == 0 ? 0 : batch.size() / per_row;
  std::vector<std::vector<std::string>> documents;
  std::vector<std::string_view> elements;
  for (std::int64_t r = 0; r < rows; ++r) {
    elements.clear();
    for (std::int64_t k = 0; k < per_row; ++k) elements.push_back(s[r * per_row + k].view());
    documents.push_back(text::row_tokens(elements, t));
  }
  lookup_->update_documents(documents);
}

void TextVectorizationImpl::finalize_state() { lookup_->finalize_state(); }

TextVectorization::TextVectorization(TextVectorizationOptions options)
    : Layer(std::make_shared<TextVectorizationImpl>(std::move(options))) {}

TextVectorization TextVectorization::from(const Layer& layer) {
  if (!dynamic_cast<TextVectorizationImpl*>(&layer.impl())) {
    throw ValueError("layer '" + layer.name() + "' is a " + layer.class_name() + ", not a TextVectorization");
  }
  return TextVectorization(layer.shared_impl());
}

namespace {
TextVectorizationImpl& impl_of(const Layer& l) { return static_cast<TextVectorizationImpl&>(l.impl()); }
}  // namespace

void TextVectorization::adapt(const Tensor& data) const {
  auto& l = impl_of(*this);
  l.reset_state();
  l.update_state(data);
  l.finalize_state();
}

std::vector<std::string> TextVectorization::get_vocabulary(bool include_special_tokens) const {
  return impl_of(*this).lookup().string_vocabulary(include_special_tokens);
}

void TextVectorization::set_vocabulary(const std::vector<std::string>& vocabulary,
                                       const std::optional<std::vector<double>>& idf_weights) const {
  auto& l = impl_of(*this);
  if (l.options.output_mode == "tf_idf") {
    if (!idf_weights) {
      throw ValueError("TextVectorization '" + name() + "': idf_weights must be set if output_mode is 'tf_idf'");
    }
    l.lookup().set_string_vocabulary(vocabulary, *idf_weights);
  } else {
    if (idf_weights) {
      throw ValueError("TextVectorization '" + name() + "': idf_weights should only be set if output_mode is 'tf_idf'");
    }
    l.lookup().set_string_vocabulary(vocabulary);
  }
}

std::int64_t TextVectorization::vocabulary_size() const { return impl_of(*this).lookup().vocabulary_size(); }
std::vector<float> TextVectorization::idf_weights() const { return impl_of(*this).lookup().idf_weights(); }

namespace {

std::string vocabulary_text(const IndexLookupImpl& l) {
  const auto v = l.string_vocabulary(true);
  std::ostringstream text;
  for (std::size_t i = 0; i < v.size(); ++i) text << (i ? "\n" : "") << v[i];
  return text.str();
}

const bool text_vectorization_registered = [] {
  KerasClass k = describe_layer<TextVectorization>("TextVectorization", +[](const TextVectorizationImpl& l) {
    TextVectorizationOptions o = l.options;
    o.vocabulary_size = l.lookup().vocabulary_size();
    return o;
  });
  // No variables: tf_idf's weights are state, saved by name as Keras saves them.
  k.vars([](const LayerImpl&) { return std::vector<KerasClass::VarGroup>{}; });
  // Keras 3 writes the adapted vocabulary (and tf_idf's weights) twice: for the layer and
  // for the StringLookup inside it, which its loader visits too.
  k.save_assets = [](const LayerImpl& impl) {
    const auto& l = static_cast<const TextVectorizationImpl&>(impl);
    std::map<std::string, std::string> files;
    if (!l.lookup().adapted() || l.options.vocabulary) return files;  // a given vocabulary is in the config
    const std::string text = vocabulary_text(l.lookup());
    files["vocabulary.txt"] = text;
    files["_lookup_layer/vocabulary.txt"] = text;
    return files;
  };
  k.load_assets = [](LayerImpl& impl, const std::function<std::optional<std::string>(const std::string&)>& read) {
    auto& l = static_cast<TextVectorizationImpl&>(impl);
    if (l.options.vocabulary) return;
    std::optional<std::string> text = read("vocabulary.txt");
    if (!text) text = read("_lookup_layer/vocabulary.txt");
    if (!text) return;
    // Python's splitlines, trailing empty lines dropped (the mask token "" leads, so the
    // vocabulary never ends with one).
    std::vector<std::string> lines;
    std::string line;
    std::istringstream in(*text);
    while (std::getline(in, line)) {
      if (!line.empty() && line.back() == '\r') line.pop_back();
      lines.push_back(line);
    }
    while (!lines.empty() && lines.back().empty()) lines.pop_back();
    if (lines.empty()) return;
    const std::vector<float> idf = l.lookup().idf_weights();  // the weights may have been read first
    l.lookup().set_string_vocabulary(lines);
    if (!idf.empty()) l.lookup().set_idf_weights(idf);
  };
  k.save_own_tensors = [](const LayerImpl& impl) {
    const auto& l = static_cast<const TextVectorizationImpl&>(impl);
    std::map<std::string, Tensor> out;
    if (l.options.output_mode != "tf_idf") return out;
    const auto& w = l.lookup().idf_weights();
    const Tensor t = Tensor::from_vector(Shape({static_cast<std::int64_t>(w.size())}), w);
    out["vars/idf_weights"] = t;
    out["_lookup_layer/vars/idf_weights"] = t;
    return out;
  };
  k.load_own_tensors = [](LayerImpl& impl, const std::function<std::optional<Tensor>(const std::string&)>& read) {
    auto& l = static_cast<TextVectorizationImpl&>(impl);
    if (l.options.output_mode != "tf_idf") return;
    std::optional<Tensor> t = read("vars/idf_weights");
    if (!t) t = read("_lookup_layer/vars/idf_weights");
    if (!t) return;
    const auto v = t->values<float>();
    l.lookup().set_idf_weights(std::vector<float>(v.begin(), v.end()));
  };
  return register_keras_class(std::move(k));
}();

}  // namespace

}  // namespace strata::layers
