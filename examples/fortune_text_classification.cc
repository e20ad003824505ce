// Text classification from raw text with TextVectorization, as Keras's "Text
// classification from scratch" recipe (keras.io/examples/nlp/text_classification_from_scratch),
// on the fortunes Debian's `fortunes` package ships: which of three collections
// (/usr/share/games/fortunes: computers, politics, science) a fortune comes from. The
// model takes the fortunes' text itself: TextVectorization (Keras's default
// standardization, adapted on the training fortunes) turns each into token indices, then
// the recipe's network at the data's scale: Embedding, Dropout, two strided Conv1D, global
// max pooling, Dense, Dropout and a softmax over the three collections.
//
// tests/reference/fortune_text_classification_keras.py trains the same model on the same
// split in Keras; docs/preprocessing.md ("Tutorial: text classification with
// TextVectorization") has both accuracies over several seeds. The trained model is saved
// as a .keras file with its vocabulary, loaded back, and must predict the same.
#include <strata/strata.h>

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <iostream>

#include "fortunes_data.h"
#include "tools/cli/flags.h"

using namespace strata;

namespace {

using examples::kFortuneCollections;
using examples::read_fortunes;

struct Split {
  std::vector<std::string> texts;
  std::vector<std::int32_t> labels;
};

// Every fifth fortune of each collection (in file order) is a test sample.
std::pair<Split, Split> load(const std::string& dir) {
  Split train, test;
  for (std::size_t label = 0; label < kFortuneCollections.size(); ++label) {
    const auto fortunes = read_fortunes(dir + "/" + kFortuneCollections[label]);
    for (std::size_t i = 0; i < fortunes.size(); ++i) {
      Split& s = i % 5 == 4 ? test : train;
      s.texts.push_back(fortunes[i]);
      s.labels.push_back(static_cast<std::int32_t>(label));
    }
  }
  return {train, test};
}

Tensor strings(const std::vector<std::string>& texts) {
  return Tensor::from_strings(Shape{static_cast<std::int64_t>(texts.size()), 1}, texts);
}

Tensor labels(const std::vector<std::int32_t>& values) {
  return Tensor::from_vector<std::int32_t>(Shape{static_cast<std::int64_t>(values.size())}, values);
}

}  // namespace

int main(int argc, char** argv) {
  int epochs = 10;
  std::int64_t batch_size = 32;
  std::int64_t max_tokens = 5000;
  std::int64_t sequence_length = 64;
  std::int64_t embedding_dim = 32;
  std::int64_t filters = 64;
  std::int64_t seed = 1;
  int verbose = 1;
  std::string data_dir = "/usr/share/games/fortunes", save = "fortune_text_classification.keras";
  cli::Flags flags("Classifies fortunes (computers, politics, science) from their text, with TextVectorization.");
  flags.add("epochs", &epochs, "passes over the training fortunes")
      .add("batch_size", &batch_size, "fortunes per step")
      .add("max_tokens", &max_tokens, "TextVectorization's vocabulary size, the mask and OOV tokens included")
      .add("sequence_length", &sequence_length, "tokens kept per fortune (padded or truncated)")
      .add("embedding_dim", &embedding_dim, "size of the token embeddings")
      .add("filters", &filters, "filters of each Conv1D and units of the hidden Dense")
      .add("seed", &seed, "global random seed (weights, shuffling, dropout)")
      .add("verbose", &verbose, "0 silent, 1 progress bar, 2 one line per epoch")
      .add("data_dir", &data_dir, "where the fortune collections are")
      .add("save", &save, "where to save the trained model (.keras)");
  flags.parse_or_exit(argc, argv);

  try {
    set_random_seed(static_cast<std::uint64_t>(seed));
    const auto [train, test] = load(data_dir);
    const Tensor x_train = strings(train.texts), x_test = strings(test.texts);
    const Tensor y_train = labels(train.labels), y_test = labels(test.labels);

    // The text layer learns its vocabulary from the training fortunes only.
    layers::TextVectorization vectorize({.max_tokens = max_tokens, .output_sequence_length = sequence_length});
    vectorize.adapt(x_train);
    std::printf("%lld training and %lld test fortunes, %lld tokens in the vocabulary\n",
                static_cast<long long>(train.texts.size()), static_cast<long long>(test.texts.size()),
                static_cast<long long>(vectorize.vocabulary_size()));

    auto text = Input({1}, {.dtype = DType::string, .name = "text"});
    auto x = layers::Embedding(vectorize.vocabulary_size(), embedding_dim)(vectorize(text));
    x = layers::Dropout(0.5)(x);
    x = layers::Conv1D(filters, 7, {.strides = 3, .activation = "relu"})(x);
    x = layers::Conv1D(filters, 7, {.strides = 3, .activation = "relu"})(x);
    x = layers::GlobalMaxPooling1D()(x);
    x = layers::Dense(filters, {.activation = "relu"})(x);
    x = layers::Dropout(0.5)(x);
    auto collection = layers::Dense(3, {.activation = "softmax", .name = "collection"})(x);
    Model model(text, collection);
    if (verbose) model.summary();
    model.compile({.optimizer = optimizers::Adam(), .loss = "sparse_categorical_crossentropy", .metrics = {"accuracy"}});
    model.fit(x_train, y_train, {.batch_size = batch_size, .epochs = epochs, .verbose = verbose});
    auto scores = model.evaluate(x_test, y_test, {.verbose = verbose ? 2 : 0});
    std::printf("Test accuracy: %.4f  (test loss %.4f)\n", scores.at("accuracy"), scores.at("loss"));

    // The vocabulary travels in the .keras file: loaded back, the model reads text alike.
    model.save(save);
    Model again = models::load_model(save);
    const Tensor a = model.predict(x_test), b = again.predict(x_test);
    float worst = 0.f;
    for (std::int64_t i = 0; i < a.size(); ++i) worst = std::max(worst, std::fabs(a.item(i) - b.item(i)));
    std::printf("Saved to %s; reloaded, predictions differ by at most %g\n", save.c_str(), worst);
    return worst <= 1e-6f ? 0 : 1;
  } catch (const Error& e) {
    std::cerr << "error: " << e.what() << "\n";
    return 1;
  }
}
