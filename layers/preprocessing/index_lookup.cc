#include "layers/preprocessing/index_lookup.h"

#include <algorithm>
#include <cmath>
#include <limits>
#include <set>
#include <sstream>

#include "core/error.h"
#include "core/ops/one_hot.h"
#include "core/string_pool.h"

namespace strata::layers {

IndexLookupImpl::IndexLookupImpl(std::string class_name, std::string name_, IndexLookupConfig config)
    : LayerImpl(std::move(class_name), std::move(name_)), config_(std::move(config)) {
  const auto& mode = config_.output_mode;
  if (mode != "int" && mode != "one_hot" && mode != "multi_hot" && mode != "count" && mode != "tf_idf") {
    throw ValueError(where() + ": output_mode must be 'int', 'one_hot', 'multi_hot', 'count' or 'tf_idf', got '" +
                     mode + "'");
  }
  if (config_.invert && mode != "int") {
    throw ValueError(where() + ": output_mode must be 'int' when invert is true, got '" + mode + "'");
  }
  if (config_.sparse && mode == "int") {
    throw ValueError(where() + ": `sparse` may only be true if `output_mode` is 'one_hot', 'multi_hot', 'count' or "
                               "'tf_idf'. Received: sparse=True and output_mode=int");
  }
  if (config_.num_oov_indices < 0) {
    throw ValueError(where() + ": num_oov_indices must be >= 0, got " + std::to_string(config_.num_oov_indices));
  }
  if (config_.max_tokens && *config_.max_tokens <= 1) {
    throw ValueError(where() + ": max_tokens must be greater than 1, got " + std::to_string(*config_.max_tokens));
  }
  if (config_.pad_to_max_tokens && !config_.max_tokens && mode != "int") {
    throw ValueError(where() + ": pad_to_max_tokens needs max_tokens");
  }
  if (config_.salt && config_.salt->size() != 2) {
    throw ValueError(where() + ": salt must be two integers");
  }
  auto check_kind = [&](const Token& t, const char* what) {
    if (std::holds_alternative<std::string>(t) != config_.strings) {
      throw ValueError(where() + ": " + what + " must be " + (config_.strings ? "a string" : "an integer"));
    }
  };
  if (config_.mask_token) check_kind(*config_.mask_token, "mask_token");
  check_kind(config_.oov_token, "oov_token");
  publish();  // an empty vocabulary: every token is OOV until one is set
}

std::string IndexLookupImpl::where() const { return class_name() + " '" + name + "'"; }

std::int64_t IndexLookupImpl::oov_start() const {
  return config_.mask_token && config_.output_mode == "int" ? 1 : 0;
}

std::int64_t IndexLookupImpl::vocabulary_size() const {
  return token_start() + static_cast<std::int64_t>(config_.strings ? string_tokens_.size() : int_tokens_.size());
}

void IndexLookupImpl::publish() {
  auto t = std::make_shared<IndexLookupTable>();
  t->string_keys = config_.strings;
  t->oov_start = oov_start();
  t->num_oov = config_.num_oov_indices;
  t->token_start = token_start();
  for (const auto& s : string_tokens_) t->string_tokens.push_back(intern_string(s));
  t->int_tokens = int_tokens_;
  t->index_tokens();
  t->idf_weights = idf_weights_;
  if (config_.mask_token) {
    t->has_mask = true;
    if (config_.strings) {
      t->string_mask = intern_string(std::get<std::string>(*config_.mask_token));
    } else {
      t->int_mask = std::get<std::int64_t>(*config_.mask_token);
    }
    // Keras: a mask token is index 0 in "int" mode; elsewhere it encodes to nothing.
    t->mask_output = config_.output_mode == "int" ? 0 : std::numeric_limits<std::int64_t>::max();
  }
  t->floormod_oov = config_.floormod_oov;
  if (config_.salt) {
    t->salt = std::pair{static_cast<std::uint64_t>((*config_.salt)[0]), static_cast<std::uint64_t>((*config_.salt)[1])};
  }
  if (config_.strings) {
    t->string_oov_token = intern_string(std::get<std::string>(config_.oov_token));
  } else {
    t->int_oov_token = std::get<std::int64_t>(config_.oov_token);
  }
  table_.set(std::move(t));
}

std::vector<Output> IndexLookupImpl::call(Graph&, const std::vector<Output>& inputs) {
  const Output x = inputs[0];
  const DType vocab = config_.strings ? DType::string : DType::int64;
  if (config_.invert) {
    if (x.dtype() != DType::int32 && x.dtype() != DType::int64) {
      throw ValueError(where() + " (invert) expects integer indices, got " + to_string(x.dtype()));
    }
    return {ops::index_lookup_invert(x, table_, vocab)};
  }
  if (config_.strings && x.dtype() != DType::string) {
    throw ValueError(where() + " expects string inputs (Input dtype \"string\"), got " + to_string(x.dtype()));
  }
  if (!config_.strings && x.dtype() != DType::int32 && x.dtype() != DType::int64) {
    throw ValueError(where() + " expects integer inputs, got " + to_string(x.dtype()));
  }
  const Output indices = ops::index_lookup(x, table_, vocab);
  if (config_.output_mode == "int") return {indices};
  if (config_.output_mode == "tf_idf") {
    // Keras's tf_idf: the count encoding times each index's weight, read from the table
    // when the program runs (set_vocabulary and adapt change them as they do the tokens).
    return {ops::tf_idf_weigh(ops::categorical_encode(indices, encoding_depth(), "count"), table_)};
  }
  return {ops::categorical_encode(indices, encoding_depth(), config_.output_mode)};
}

std::int64_t IndexLookupImpl::encoding_depth() const {
  const bool empty = config_.strings ? string_tokens_.empty() : int_tokens_.empty();
  return config_.pad_to_max_tokens ? *config_.max_tokens
         : empty && config_.vocabulary_size ? *config_.vocabulary_size
                                             : vocabulary_size();
}

std::vector<std::string> IndexLookupImpl::string_vocabulary(bool include_special_tokens) const {
  if (!config_.strings) throw ValueError(where() + " has an integer vocabulary");
  std::vector<std::string> out;
  if (include_special_tokens) {
    if (oov_start() == 1) out.push_back(std::get<std::string>(*config_.mask_token));
    for (std::int64_t i = 0; i < config_.num_oov_indices; ++i) out.push_back(std::get<std::string>(config_.oov_token));
  }
  out.insert(out.end(), string_tokens_.begin(), string_tokens_.end());
  return out;
}

std::vector<std::int64_t> IndexLookupImpl::int_vocabulary(bool include_special_tokens) const {
  if (config_.strings) throw ValueError(where() + " has a string vocabulary");
  std::vector<std::int64_t> out;
  if (include_special_tokens) {
    if (oov_start() == 1) out.push_back(std::get<std::int64_t>(*config_.mask_token));
    for (std::int64_t i = 0; i < config_.num_oov_indices; ++i) out.push_back(std::get<std::int64_t>(config_.oov_token));
  }
  out.insert(out.end(), int_tokens_.begin(), int_tokens_.end());
  return out;
}

namespace {

// Keras's checks on a vocabulary being set: special tokens only in front, in order; no
// repeated token; no more than max_tokens in all. Returns the tokens without the front.
template <typename T>
std::vector<T> strip_special(const std::vector<T>& vocabulary, const std::vector<T>& special,
                             const std::optional<T>& mask, const std::optional<T>& oov_when_inverted,
                             const std::string& where, auto&& show) {
  if (vocabulary.empty()) throw ValueError(where + ": cannot set an empty vocabulary");
  std::vector<T> tokens = vocabulary;
  if (vocabulary.size() >= special.size() && std::equal(special.begin(), special.end(), vocabulary.begin())) {
    tokens.erase(tokens.begin(), tokens.begin() + static_cast<std::ptrdiff_t>(special.size()));
  }
  std::set<T> seen;
  for (const T& t : tokens) {
    if (!seen.insert(t).second) {
      throw ValueError(where + ": the vocabulary repeats the term " + show(t) + "; make its terms unique");
    }
  }
  if (mask && seen.count(*mask)) {
    throw ValueError(where + ": the mask token " + show(*mask) +
                     " is in the vocabulary at an unexpected place; give it only first, or not at all");
  }
  if (oov_when_inverted && seen.count(*oov_when_inverted)) {
    throw ValueError(where + ": the OOV token " + show(*oov_when_inverted) +
                     " is in the vocabulary at an unexpected place");
  }
  return tokens;
}

}  // namespace

void IndexLookupImpl::set_tokens(std::vector<std::string> strings, std::vector<std::int64_t> ints) {
  const std::int64_t size = token_start() + static_cast<std::int64_t>(config_.strings ? strings.size() : ints.size());
  if (config_.max_tokens && size > *config_.max_tokens) {
    throw ValueError(where() + ": a vocabulary of " + std::to_string(size) + " (with mask and OOV indices) exceeds max_tokens " +
                     std::to_string(*config_.max_tokens));
  }
  string_tokens_ = std::move(strings);
  int_tokens_ = std::move(ints);
  publish();
}

void IndexLookupImpl::set_string_vocabulary(const std::vector<std::string>& vocabulary) {
  if (!config_.strings) throw ValueError(where() + " takes an integer vocabulary");
  std::vector<std::string> special;
  if (oov_start() == 1) special.push_back(std::get<std::string>(*config_.mask_token));
  for (std::int64_t i = 0; i < config_.num_oov_indices; ++i) special.push_back(std::get<std::string>(config_.oov_token));
  std::optional<std::string> mask, oov;
  if (config_.mask_token) mask = std::get<std::string>(*config_.mask_token);
  if (config_.invert) oov = std::get<std::string>(config_.oov_token);
  set_tokens(strip_special(vocabulary, special, mask, oov, where(), [](const std::string& s) { return "'" + s + "'"; }), {});
  adapted_ = true;
}

void IndexLookupImpl::set_int_vocabulary(const std::vector<std::int64_t>& vocabulary) {
  if (config_.strings) throw ValueError(where() + " takes a string vocabulary");
  std::vector<std::int64_t> special;
  if (oov_start() == 1) special.push_back(std::get<std::int64_t>(*config_.mask_token));
  for (std::int64_t i = 0; i < config_.num_oov_indices; ++i) special.push_back(std::get<std::int64_t>(config_.oov_token));
  std::optional<std::int64_t> mask, oov;
  if (config_.mask_token) mask = std::get<std::int64_t>(*config_.mask_token);
  if (config_.invert) oov = std::get<std::int64_t>(config_.oov_token);
  set_tokens({}, strip_special(vocabulary, special, mask, oov, where(), [](std::int64_t v) { return std::to_string(v); }));
  adapted_ = true;
}

void IndexLookupImpl::reset_state() {
  string_counts_.clear();
  int_counts_.clear();
  document_counts_.clear();
  int_document_counts_.clear();
  num_documents_ = 0;
}

void IndexLookupImpl::update_documents(const std::vector<std::vector<std::string>>& documents) {
  for (const auto& doc : documents) {
    for (const auto& token : doc) ++string_counts_[token];
    if (config_.output_mode != "tf_idf") continue;
    std::set<std::string> unique(doc.begin(), doc.end());
    for (const auto& token : unique) ++document_counts_[token];
  }
  num_documents_ += static_cast<std::int64_t>(documents.size());
}

void IndexLookupImpl::set_string_vocabulary(const std::vector<std::string>& vocabulary,
                                            const std::vector<double>& idf_weights) {
  check_given_idf_weights(vocabulary.size(), idf_weights);  // before anything changes
  set_string_vocabulary(vocabulary);
  set_given_idf_weights(vocabulary.size(), idf_weights);
}

void IndexLookupImpl::set_int_vocabulary(const std::vector<std::int64_t>& vocabulary,
                                         const std::vector<double>& idf_weights) {
  check_given_idf_weights(vocabulary.size(), idf_weights);
  set_int_vocabulary(vocabulary);
  set_given_idf_weights(vocabulary.size(), idf_weights);
}

void IndexLookupImpl::check_given_idf_weights(std::size_t given, const std::vector<double>& idf_weights) const {
  if (config_.output_mode != "tf_idf") {
    throw ValueError(where() + ": idf_weights are only taken when output_mode is 'tf_idf', it is '" +
                     config_.output_mode + "'");
  }
  if (idf_weights.size() != given) {
    throw ValueError(where() + ": idf_weights must be as long as the vocabulary, got " +
                     std::to_string(idf_weights.size()) + " weights for " + std::to_string(given) + " terms");
  }
}

void IndexLookupImpl::set_given_idf_weights(std::size_t given, const std::vector<double>& idf_weights) {
  // Keras's padding: the special tokens' weights are the mean weight when the vocabulary
  // came without them (np.average, in float64), then zeros up to max_tokens.
  const bool special_given = static_cast<std::int64_t>(given) == vocabulary_size();
  std::vector<float> w;
  if (!special_given) {
    double sum = 0;
    for (double x : idf_weights) sum += x;
    const double mean = sum / static_cast<double>(idf_weights.size());
    w.assign(static_cast<std::size_t>(token_start()), static_cast<float>(mean));
  }
  for (double x : idf_weights) w.push_back(static_cast<float>(x));
  if (config_.pad_to_max_tokens && config_.max_tokens && static_cast<std::int64_t>(w.size()) < *config_.max_tokens) {
    w.resize(static_cast<std::size_t>(*config_.max_tokens), 0.f);
  }
  set_idf_weights(std::move(w));
}

void IndexLookupImpl::set_idf_weights(std::vector<float> weights) {
  idf_weights_ = std::move(weights);
  publish();
}

void IndexLookupImpl::update_state(const Tensor& batch) {
  count_tokens(batch);
  if (config_.output_mode == "tf_idf") count_documents(batch, false);
}

void IndexLookupImpl::count_documents(const Tensor& batch, bool elements_are_documents) {
  // Keras: a scalar or a vector given to update_state is one document, the rows of a
  // matrix are documents (deeper data is refused: TensorFlow's unique takes vectors), and
  // adapt makes each element of a vector its own document.
  if (batch.rank() > 2) {
    throw ValueError(where() + ": output_mode 'tf_idf' adapts on documents of tokens, rank 1 or 2, got data of shape " +
                     batch.shape().to_string());
  }
  const std::int64_t documents = batch.rank() == 2 ? batch.shape()[0] : elements_are_documents ? batch.size() : 1;
  const std::int64_t length = documents == 0 ? 0 : batch.size() / documents;
  for (std::int64_t d = 0; d < documents; ++d) {
    if (config_.strings) {
      std::set<std::string> unique;
      for (std::int64_t i = 0; i < length; ++i) unique.insert(batch.data<StringValue>()[d * length + i].str());
      for (const auto& token : unique) ++document_counts_[token];
    } else {
      std::set<std::int64_t> unique;
      for (std::int64_t i = 0; i < length; ++i) {
        const std::int64_t k = d * length + i;
        unique.insert(batch.dtype() == DType::int32 ? batch.data<std::int32_t>()[k] : batch.data<std::int64_t>()[k]);
      }
      for (std::int64_t token : unique) ++int_document_counts_[token];
    }
  }
  num_documents_ += documents;
}

void IndexLookupImpl::count_tokens(const Tensor& batch) {
  if (config_.strings) {
    if (batch.dtype() != DType::string) {
      throw ValueError(where() + ": adapt expects string data, got " + to_string(batch.dtype()));
    }
    for (const StringValue& v : batch.values<StringValue>()) ++string_counts_[v.str()];
    return;
  }
  if (batch.dtype() == DType::int32) {
    for (auto v : batch.values<std::int32_t>()) ++int_counts_[v];
  } else if (batch.dtype() == DType::int64) {
    for (auto v : batch.values<std::int64_t>()) ++int_counts_[v];
  } else {
    throw ValueError(where() + ": adapt expects integer data, got " + to_string(batch.dtype()));
  }
}

namespace {

// Keras's order: np.lexsort((tokens, counts))[::-1], i.e. by count, then by token, both
// descending; then the first `keep`.
template <typename T>
std::vector<T> most_frequent(const std::unordered_map<T, std::int64_t>& counts, std::optional<std::int64_t> keep) {
  std::vector<std::pair<std::int64_t, T>> order;
  order.reserve(counts.size());
  for (const auto& [token, n] : counts) order.emplace_back(n, token);
  std::sort(order.begin(), order.end(), [](const auto& a, const auto& b) {
    return a.first != b.first ? a.first > b.first : a.second > b.second;
  });
  std::vector<T> out;
  for (const auto& p : order) {
    if (keep && static_cast<std::int64_t>(out.size()) >= *keep) break;
    out.push_back(p.second);
  }
  return out;
}

}  // namespace

void IndexLookupImpl::finalize_state() {
  std::optional<std::int64_t> keep;
  if (config_.max_tokens) keep = std::max<std::int64_t>(*config_.max_tokens - token_start(), 0);
  std::vector<std::string> strings;
  std::vector<std::int64_t> ints;
  if (config_.strings) {
    if (string_counts_.empty()) return;  // Keras keeps the vocabulary it had
    if (config_.mask_token) string_counts_.erase(std::get<std::string>(*config_.mask_token));
    string_counts_.erase(std::get<std::string>(config_.oov_token));
    strings = most_frequent(string_counts_, keep);
  } else {
    if (int_counts_.empty()) return;
    if (config_.mask_token) int_counts_.erase(std::get<std::int64_t>(*config_.mask_token));
    int_counts_.erase(std::get<std::int64_t>(config_.oov_token));
    ints = most_frequent(int_counts_, keep);
  }
  if (config_.output_mode == "tf_idf") {
    // Keras: log(1 + documents / (1 + documents holding the token)) in float64, cast to
    // float32; the OOV slots get the mean of those (a float32 mean), zeros pad to max_tokens.
    auto documents_holding = [](const auto& counts, const auto& token) {
      const auto it = counts.find(token);
      return it == counts.end() ? 0.0 : static_cast<double>(it->second);
    };
    std::vector<float> idf;
    const std::size_t terms = config_.strings ? strings.size() : ints.size();
    for (std::size_t i = 0; i < terms; ++i) {
      const double df = config_.strings ? documents_holding(document_counts_, strings[i])
                                        : documents_holding(int_document_counts_, ints[i]);
      idf.push_back(static_cast<float>(std::log(1.0 + static_cast<double>(num_documents_) / (1.0 + df))));
    }
    float sum = 0.f;
    for (float x : idf) sum += x;
    const float mean = idf.empty() ? 0.f : sum / static_cast<float>(idf.size());
    std::vector<float> w(static_cast<std::size_t>(token_start()), mean);
    w.insert(w.end(), idf.begin(), idf.end());
    if (config_.pad_to_max_tokens && config_.max_tokens && static_cast<std::int64_t>(w.size()) < *config_.max_tokens) {
      w.resize(static_cast<std::size_t>(*config_.max_tokens), 0.f);
    }
    idf_weights_ = std::move(w);
  }
  set_tokens(std::move(strings), std::move(ints));
  adapted_ = true;
  reset_state();
}

void IndexLookupImpl::adapt(const Tensor& data) {
  reset_state();
  count_tokens(data);
  if (config_.output_mode == "tf_idf") count_documents(data, true);
  finalize_state();
}

void check_idf_weights_option(const std::string& where, const std::string& output_mode, bool vocabulary_given,
                              bool idf_weights_given) {
  if (idf_weights_given && output_mode != "tf_idf") {
    throw ValueError(where + ": idf_weights should only be set if output_mode is 'tf_idf', it is '" + output_mode +
                     "'");
  }
  if (vocabulary_given && output_mode == "tf_idf" && !idf_weights_given) {
    throw ValueError(where + ": with a vocabulary in output_mode 'tf_idf', idf_weights must be given too");
  }
}

void describe_lookup_state(KerasClass& k) {
  k.save_assets = [](const LayerImpl& impl) {
    const auto& l = static_cast<const IndexLookupImpl&>(impl);
    std::map<std::string, std::string> files;
    if (!l.adapted()) return files;  // a given vocabulary is in the config
    std::ostringstream text;
    if (l.lookup_config().strings) {
      const auto v = l.string_vocabulary(true);
      for (std::size_t i = 0; i < v.size(); ++i) text << (i ? "\n" : "") << v[i];
    } else {
      const auto v = l.int_vocabulary(true);
      for (std::size_t i = 0; i < v.size(); ++i) text << (i ? "\n" : "") << v[i];
    }
    files["vocabulary.txt"] = text.str();
    return files;
  };
  k.load_assets = [](LayerImpl& impl, const std::function<std::optional<std::string>(const std::string&)>& read) {
    auto& l = static_cast<IndexLookupImpl&>(impl);
    std::optional<std::string> text = read("vocabulary.txt");
    if (!text) return;
    // Python's str.splitlines(), then trailing empty lines dropped, as Keras's load_assets.
    std::vector<std::string> lines;
    std::string line;
    std::istringstream in(*text);
    while (std::getline(in, line)) {
      if (!line.empty() && line.back() == '\r') line.pop_back();
      lines.push_back(line);
    }
    if (!text->empty() && text->back() == '\n') lines.push_back("");  // getline drops it
    // Keras drops trailing empty lines, losing a learned empty-string token; the saved
    // vocabulary_size says how many lines the vocabulary had, so Strata keeps them.
    const auto expected = static_cast<std::size_t>(l.lookup_config().vocabulary_size.value_or(0));
    while (!lines.empty() && lines.back().empty() && lines.size() > expected) lines.pop_back();
    if (lines.empty()) return;
    if (l.lookup_config().strings) {
      l.set_string_vocabulary(lines);
    } else {
      std::vector<std::int64_t> ints;
      for (const auto& s : lines) ints.push_back(std::stoll(s));
      l.set_int_vocabulary(ints);
    }
  };
  // No variables; in tf_idf mode vars/ holds the weights by a name of their own.
  k.vars([](const LayerImpl& impl) {
    const auto& l = static_cast<const IndexLookupImpl&>(impl);
    if (l.lookup_config().output_mode == "tf_idf") return std::vector<KerasClass::VarGroup>{};
    return std::vector<KerasClass::VarGroup>{{"vars", {}, {}}};
  });
  k.save_own_tensors = [](const LayerImpl& impl) {
    const auto& l = static_cast<const IndexLookupImpl&>(impl);
    std::map<std::string, Tensor> out;
    if (l.lookup_config().output_mode != "tf_idf") return out;
    const auto& w = l.idf_weights();
    out["vars/idf_weights"] = Tensor::from_vector(Shape({static_cast<std::int64_t>(w.size())}), w);
    return out;
  };
  k.load_own_tensors = [](LayerImpl& impl, const std::function<std::optional<Tensor>(const std::string&)>& read) {
    auto& l = static_cast<IndexLookupImpl&>(impl);
    if (l.lookup_config().output_mode != "tf_idf") return;
    const std::optional<Tensor> t = read("vars/idf_weights");
    if (!t) return;
    if (t->dtype() != DType::float32 || t->rank() != 1) {
      throw ValueError(l.class_name() + " '" + l.name + "': vars/idf_weights must be a float32 vector, got " +
                       to_string(t->dtype()) + " of shape " + t->shape().to_string());
    }
    const auto v = t->values<float>();
    l.set_idf_weights(std::vector<float>(v.begin(), v.end()));
  };
}

}  // namespace strata::layers
