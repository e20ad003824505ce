// Text classification with a Transformer (Keras's "Text classification with Transformer"
// tutorial) on real text: which of three fortune-cookie collections Debian's `fortunes`
// package ships (/usr/share/games/fortunes: computers, politics, science) a fortune comes
// from. Tokens and their positions are embedded and summed, one Transformer encoder block
// (MultiHeadAttention, residual sums, LayerNormalization, a feed-forward network) reads
// them, and a small classifier pools over time.
//
// The tutorial writes the token + position embedding as a custom layer; here the positions
// are a second input (0, 1, ..., maxlen - 1 for every sample), so the model holds only
// Keras's built-in layers and Python Keras loads the saved file as it is.
// tests/reference/fortune_transformer_keras.py trains the same model on the same data in
// Keras, and checks that Keras loads this program's saved model with its predictions.
#include <strata/strata.h>

#include <algorithm>
#include <cctype>
#include <cstdio>
#include <iostream>
#include <map>
#include <sstream>

#include "fortunes_data.h"
#include "tools/cli/flags.h"

using namespace strata;

namespace {

using examples::kFortuneCollections;
using examples::read_fortunes;

// Lower-cased runs of ASCII letters and digits: the tokenizer the Keras script repeats.
std::vector<std::string> words_of(const std::string& text) {
  std::vector<std::string> words;
  std::string word;
  for (char c : text + " ") {
    const auto u = static_cast<unsigned char>(c);
    if (u < 128 && std::isalnum(u)) {
      word += static_cast<char>(std::tolower(u));
    } else if (!word.empty()) {
      words.push_back(word);
      word.clear();
    }
  }
  return words;
}

struct Split {
  std::vector<std::vector<std::string>> texts;
  std::vector<std::int64_t> labels;
};

// Every fifth fortune of each collection (in file order) is a test sample.
void load_split(const std::string& dir, Split& train, Split& test) {
  for (std::size_t label = 0; label < kFortuneCollections.size(); ++label) {
    const auto fortunes = read_fortunes(dir + "/" + kFortuneCollections[label]);
    for (std::size_t i = 0; i < fortunes.size(); ++i) {
      Split& s = i % 5 == 4 ? test : train;
      s.texts.push_back(words_of(fortunes[i]));
      s.labels.push_back(static_cast<std::int64_t>(label));
    }
  }
}

// Index 0 pads, 1 is out-of-vocabulary; then the training set's words, most frequent
// first (ties alphabetically), vocab_size - 2 of them at most.
std::map<std::string, std::int64_t> make_vocabulary(const Split& train, std::int64_t vocab_size) {
  std::map<std::string, std::int64_t> counts;
  for (const auto& text : train.texts) {
    for (const auto& w : text) ++counts[w];
  }
  std::vector<std::pair<std::string, std::int64_t>> ranked(counts.begin(), counts.end());
  std::stable_sort(ranked.begin(), ranked.end(), [](const auto& a, const auto& b) { return a.second > b.second; });
  std::map<std::string, std::int64_t> index;
  for (std::size_t i = 0; i < ranked.size() && static_cast<std::int64_t>(i) + 2 < vocab_size; ++i) {
    index[ranked[i].first] = static_cast<std::int64_t>(i) + 2;
  }
  return index;
}

// (samples, maxlen) token ids, truncated or padded with 0 at the end.
Tensor encode(const Split& s, const std::map<std::string, std::int64_t>& vocabulary, std::int64_t maxlen) {
  const auto n = static_cast<std::int64_t>(s.texts.size());
  std::vector<std::int32_t> ids(static_cast<std::size_t>(n * maxlen), 0);
  for (std::int64_t i = 0; i < n; ++i) {
    const auto& text = s.texts[static_cast<std::size_t>(i)];
    for (std::int64_t t = 0; t < std::min<std::int64_t>(maxlen, static_cast<std::int64_t>(text.size())); ++t) {
      const auto it = vocabulary.find(text[static_cast<std::size_t>(t)]);
      ids[static_cast<std::size_t>(i * maxlen + t)] = it == vocabulary.end() ? 1 : static_cast<std::int32_t>(it->second);
    }
  }
  return Tensor::from_vector(Shape{n, maxlen}, ids);
}

// (samples, maxlen): 0, 1, ..., maxlen - 1 in every row, what the position embedding reads.
Tensor positions_for(std::int64_t samples, std::int64_t maxlen) {
  std::vector<std::int32_t> ids(static_cast<std::size_t>(samples * maxlen));
  for (std::size_t i = 0; i < ids.size(); ++i) ids[i] = static_cast<std::int32_t>(static_cast<std::int64_t>(i) % maxlen);
  return Tensor::from_vector(Shape{samples, maxlen}, ids);
}

// Keras's tutorial's TransformerBlock: self-attention and a feed-forward network, each
// followed by dropout, a residual sum and layer normalization (epsilon 1e-6).
KerasTensor transformer_block(const KerasTensor& x, std::int64_t embed_dim, std::int64_t num_heads,
                              std::int64_t ff_dim, double rate) {
  KerasTensor attended = layers::MultiHeadAttention(num_heads, embed_dim)({x, x})[0];
  attended = layers::Dropout(rate)(attended);
  const KerasTensor out1 = layers::LayerNormalization({.epsilon = 1e-6})(layers::Add()({x, attended})[0]);
  KerasTensor ffn = layers::Dense(ff_dim, {.activation = "relu"})(out1);
  ffn = layers::Dropout(rate)(layers::Dense(embed_dim)(ffn));
  return layers::LayerNormalization({.epsilon = 1e-6})(layers::Add()({out1, ffn})[0]);
}

}  // namespace

int main(int argc, char** argv) {
  int epochs = 10;
  std::int64_t train_samples = 0;
  std::int64_t batch_size = 32;
  std::int64_t vocab_size = 5000;
  std::int64_t maxlen = 64;
  std::int64_t embed_dim = 32;
  std::int64_t num_heads = 2;
  std::int64_t ff_dim = 32;
  double dropout = 0.1;
  bool shuffle = true;
  int seed = 1;
  int verbose = 2;
  std::string data_dir = "/usr/share/games/fortunes";
  std::string save, initial;
  cli::Flags flags("Classifies fortunes (computers, politics, science) with a Transformer encoder block.");
  flags.add("epochs", &epochs, "passes over the training data")
      .add("batch_size", &batch_size, "samples per step")
      .add("train_samples", &train_samples, "train on the first N training fortunes only (0 = all)")
      .add("vocab_size", &vocab_size, "token ids, padding and out-of-vocabulary included")
      .add("maxlen", &maxlen, "tokens read per fortune")
      .add("embed_dim", &embed_dim, "embedding size of tokens and positions")
      .add("num_heads", &num_heads, "attention heads")
      .add("ff_dim", &ff_dim, "hidden units of the feed-forward network")
      .add("dropout", &dropout, "dropout rate of every Dropout layer")
      .add("shuffle", &shuffle, "shuffle the training data every epoch")
      .add("initial", &initial, "start from the weights of this saved model (same settings) instead of random ones")
      .add("seed", &seed, "random seed (weights, dropout, shuffling)")
      .add("verbose", &verbose, "0 silent, 1 progress bar, 2 one line per epoch")
      .add("data_dir", &data_dir, "where the fortune collections are")
      .add("save", &save, "write the trained model (.keras or .h5) and, beside it, the test inputs and predictions as .npy");
  flags.parse_or_exit(argc, argv);

  try {
    set_random_seed(static_cast<std::uint64_t>(seed));
    Split train, test;
    load_split(data_dir, train, test);
    const auto vocabulary = make_vocabulary(train, vocab_size);
    Tensor x_train = encode(train, vocabulary, maxlen);
    const Tensor x_test = encode(test, vocabulary, maxlen);
    Tensor y_train = Tensor::from_vector(Shape{x_train.shape()[0]}, train.labels);
    if (train_samples > 0 && train_samples < x_train.shape()[0]) {
      x_train = x_train.slice_rows(0, train_samples);
      y_train = y_train.slice_rows(0, train_samples);
    }
    const Tensor y_test = Tensor::from_vector(Shape{x_test.shape()[0]}, test.labels);
    const Tensor p_train = positions_for(x_train.shape()[0], maxlen), p_test = positions_for(x_test.shape()[0], maxlen);
    std::printf("%lld training and %lld test fortunes, %zu words in the vocabulary\n",
                static_cast<long long>(x_train.shape()[0]), static_cast<long long>(x_test.shape()[0]),
                vocabulary.size());

    auto tokens = Input({maxlen}, {.dtype = DType::int32, .name = "tokens"});
    auto positions = Input({maxlen}, {.dtype = DType::int32, .name = "positions"});
    const KerasTensor embedded = layers::Add()({layers::Embedding(vocab_size, embed_dim)(tokens),
                                                layers::Embedding(maxlen, embed_dim)(positions)})[0];
    KerasTensor x = transformer_block(embedded, embed_dim, num_heads, ff_dim, dropout);
    x = layers::GlobalAveragePooling1D()(x);
    x = layers::Dropout(dropout)(x);
    x = layers::Dense(20, {.activation = "relu"})(x);
    x = layers::Dropout(dropout)(x);
    const KerasTensor probabilities = layers::Dense(static_cast<std::int64_t>(kFortuneCollections.size()),
                                                    {.activation = "softmax"})(x);
    Model model({tokens, positions}, {probabilities});
    if (!initial.empty()) model.set_weights(models::load_model(initial).get_weights());
    if (verbose) model.summary();

    model.compile({.optimizer = optimizers::Adam(),
                   .loss = losses::SparseCategoricalCrossentropy(),
                   .metrics = {"accuracy"}});
    model.fit({x_train, p_train}, {y_train}, {.batch_size = batch_size, .epochs = epochs, .verbose = verbose, .shuffle = shuffle});
    const auto scores = model.evaluate({x_test, p_test}, {y_test}, {.verbose = 0});
    std::printf("test accuracy: %.4f  test loss: %.4f\n", scores.at("accuracy"), scores.at("loss"));

    if (!save.empty()) {
      model.save(save);
      const std::string stem = save.substr(0, save.find_last_of('.'));
      io::save_npy(stem + ".tokens.npy", x_test);
      io::save_npy(stem + ".positions.npy", p_test);
      io::save_npy(stem + ".predictions.npy", model.predict(std::vector<Tensor>{x_test, p_test}, {.verbose = 0})[0]);
      std::printf("saved %s and its test inputs and predictions (%s.*.npy)\n", save.c_str(), stem.c_str());
    }
    return 0;
  } catch (const Error& e) {
    std::cerr << "error: " << e.what() << "\n";
    return 1;
  }
}
