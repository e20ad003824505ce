// Character-level text generation (Keras's "text generation with an LSTM" tutorial):
// an LSTM reads 40 characters and predicts the next one. The corpus is the fortune
// cookies Debian's `fortunes` package ships (/usr/share/games/fortunes). After every
// epoch the model writes samples at several temperatures from a random seed text.
#include <strata/strata.h>

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <iostream>
#include <map>
#include <sstream>

#include "tools/cli/flags.h"

using namespace strata;

namespace {

std::string read_corpus(const std::string& dir, std::int64_t max_chars) {
  std::vector<std::filesystem::path> files;
  for (const auto& e : std::filesystem::directory_iterator(dir)) {
    // The text files have no extension; skip the .dat indexes and links.
    if (e.is_regular_file() && !e.path().has_extension()) files.push_back(e.path());
  }
  std::sort(files.begin(), files.end());
  std::string text;
  for (const auto& f : files) {
    std::ifstream in(f);
    std::stringstream ss;
    ss << in.rdbuf();
    for (char c : ss.str()) {
      if (c == '%') continue;                                    // fortune separators
      if (static_cast<unsigned char>(c) >= 128 || c == '\t') c = ' ';  // ASCII only
      text += static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
    }
    if (max_chars > 0 && static_cast<std::int64_t>(text.size()) >= max_chars) break;
  }
  if (max_chars > 0 && static_cast<std::int64_t>(text.size()) > max_chars) text.resize(static_cast<std::size_t>(max_chars));
  return text;
}

// Draws an index from softmax(logits / temperature).
int sample(const float* logits, int n, double temperature, std::uint64_t draw, std::uint64_t seed) {
  std::vector<double> p(static_cast<std::size_t>(n));
  double mx = *std::max_element(logits, logits + n), sum = 0;
  for (int i = 0; i < n; ++i) sum += p[i] = std::exp((logits[i] - mx) / temperature);
  double u = Philox(seed, 77).uniform(draw) * sum;
  for (int i = 0; i < n; ++i) {
    if ((u -= p[i]) <= 0) return i;
  }
  return n - 1;
}

}  // namespace

int main(int argc, char** argv) {
  int epochs = 5;
  std::int64_t batch_size = 128;
  std::int64_t units = 128;
  std::int64_t maxlen = 40;
  std::int64_t step = 3;
  std::int64_t max_chars = 60000;
  std::int64_t generate = 200;
  std::int64_t seed = 1;
  int verbose = 1;
  std::string corpus_dir = "/usr/share/games/fortunes";
  cli::Flags flags("Trains a character-level LSTM on fortune cookies and writes new ones.");
  flags.add("epochs", &epochs, "passes over the text")
      .add("batch_size", &batch_size, "sequences per step")
      .add("units", &units, "LSTM units")
      .add("maxlen", &maxlen, "characters the model reads")
      .add("step", &step, "stride between training sequences")
      .add("max_chars", &max_chars, "use at most this many characters of the corpus (0 = all)")
      .add("generate", &generate, "characters to generate per sample")
      .add("seed", &seed, "global random seed")
      .add("verbose", &verbose, "0 silent, 1 progress bar, 2 one line per epoch")
      .add("corpus_dir", &corpus_dir, "directory of text files (Debian package `fortunes`)");
  flags.parse_or_exit(argc, argv);

  try {
    set_random_seed(static_cast<std::uint64_t>(seed));
    if (!std::filesystem::is_directory(corpus_dir)) {
      std::cerr << "error: no corpus at " << corpus_dir << " (apt-get install fortunes, or pass --corpus_dir)\n";
      return 1;
    }
    const std::string text = read_corpus(corpus_dir, max_chars);
    std::map<char, int> index;
    for (char c : text) index.emplace(c, 0);
    std::vector<char> chars;
    for (auto& [c, i] : index) {
      i = static_cast<int>(chars.size());
      chars.push_back(c);
    }
    const int vocab = static_cast<int>(chars.size());
    const std::int64_t n = (static_cast<std::int64_t>(text.size()) - maxlen - 1) / step;
    std::printf("corpus: %zu characters, %d distinct, %lld training sequences of %lld\n", text.size(), vocab,
                static_cast<long long>(n), static_cast<long long>(maxlen));
    Tensor x(Shape{n, maxlen}, DType::int32), y(Shape{n}, DType::int32);
    for (std::int64_t s = 0; s < n; ++s) {
      for (std::int64_t t = 0; t < maxlen; ++t) x.data<std::int32_t>()[s * maxlen + t] = index[text[s * step + t]];
      y.data<std::int32_t>()[s] = index[text[s * step + maxlen]];
    }

    Model model = Sequential({
        Input({maxlen}, {.dtype = DType::int32}),
        layers::Embedding(vocab, 32),
        layers::LSTM(units),
        layers::Dense(vocab),
    });
    model.summary();
    model.compile({.optimizer = optimizers::Adam({.learning_rate = 3e-3}),
                   .loss = losses::SparseCategoricalCrossentropy({.from_logits = true})});

    Tensor window(Shape{1, maxlen}, DType::int32);
    for (int epoch = 0; epoch < epochs; ++epoch) {
      std::printf("\nEpoch %d/%d\n", epoch + 1, epochs);
      model.fit(x, y, {.batch_size = batch_size, .epochs = 1, .verbose = verbose});
      const auto start = static_cast<std::size_t>(Philox(static_cast<std::uint64_t>(seed), 5).uniform(
                                                      static_cast<std::uint64_t>(epoch)) *
                                                  static_cast<float>(text.size() - static_cast<std::size_t>(maxlen)));
      const std::string prompt = text.substr(start, static_cast<std::size_t>(maxlen));
      for (double temperature : {0.2, 0.5, 1.0}) {
        std::string context = prompt, generated;
        for (std::int64_t k = 0; k < generate; ++k) {
          for (std::int64_t t = 0; t < maxlen; ++t) window.data<std::int32_t>()[t] = index[context[t]];
          Tensor logits = model.predict(window, {.verbose = 0});
          int next = sample(logits.data<float>(), vocab, temperature,
                            static_cast<std::uint64_t>(epoch * 100000 + k), static_cast<std::uint64_t>(seed));
          generated += chars[next];
          context = context.substr(1) + chars[next];
        }
        std::printf("--- temperature %.1f, seed \"%s\"\n%s\n", temperature, prompt.c_str(), generated.c_str());
      }
    }
    return 0;
  } catch (const Error& e) {
    std::cerr << "error: " << e.what() << "\n";
    return 1;
  }
}
