// A small convnet on Fashion-MNIST, as in Keras's "simple MNIST convnet" example:
// Conv2D(32, 3, relu) -> MaxPooling2D -> Conv2D(64, 3, relu) -> MaxPooling2D -> Flatten
// -> Dropout(--dropout) -> Dense(10), Adam, sparse categorical crossentropy from logits.
// Five epochs reach 0.88-0.90 test accuracy. The defaults (batch 32, dropout 0.25) are the
// settings that came closest to 0.90 in five epochs; Keras's example uses batch 128 and
// dropout 0.5 (`--batch_size=128 --dropout=0.5`), with which real Keras and Strata both
// reach about 0.885 (docs/conv_layers.md has the runs).
#include <strata/strata.h>

#include <chrono>
#include <cstdio>
#include <iostream>

#include "fashion_mnist_data.h"
#include "quantized_accuracy.h"
#include "tools/cli/flags.h"

using namespace strata;

namespace {

Model build_model(double dropout) {
  return Sequential({
      Input({28, 28, 1}),
      layers::Conv2D(32, 3, {.activation = "relu"}),
      layers::MaxPooling2D(2),
      layers::Conv2D(64, 3, {.activation = "relu"}),
      layers::MaxPooling2D(2),
      layers::Flatten(),
      layers::Dropout(dropout),
      layers::Dense(10),
  });
}

}  // namespace

int main(int argc, char** argv) {
  int epochs = 5;
  std::int64_t batch_size = 32;
  double learning_rate = 1e-3;
  int verbose = 1;
  std::int64_t seed = 1;
  std::int64_t train_samples = 0;  // 0 = all 60000
  std::int64_t test_samples = 0;   // 0 = all 10000
  double dropout = 0.25;
  std::string data_dir, quantize;
  cli::Flags flags("Trains a small convnet on Fashion-MNIST.");
  flags.add("epochs", &epochs, "passes over the training data")
      .add("batch_size", &batch_size, "samples per step")
      .add("learning_rate", &learning_rate, "Adam's learning rate")
      .add("verbose", &verbose, "0 silent, 1 progress bar, 2 one line per epoch")
      .add("dropout", &dropout, "rate of the Dropout layer before the classifier")
      .add("seed", &seed, "global random seed (weights, shuffling, dropout)")
      .add("train_samples", &train_samples, "use only the first N training samples (0 = all)")
      .add("test_samples", &test_samples, "evaluate on the first N test samples only (0 = all)")
      .add("data_dir", &data_dir, "directory with the Fashion-MNIST files (default: Debian's)")
      .add("quantize", &quantize, "after training: model.quantize(MODE) (\"int8\") and evaluate again");
  flags.parse_or_exit(argc, argv);

  try {
    set_random_seed(static_cast<std::uint64_t>(seed));
    auto data = examples::load_fashion_mnist(data_dir, train_samples, test_samples, /*channel_axis=*/true);
    const Tensor& x_train = data.x_train;
    const Tensor& y_train = data.y_train;
    const Tensor& x_test = data.x_test;
    const Tensor& y_test = data.y_test;
    std::cout << "train: " << x_train.shape().to_string() << ", test: " << x_test.shape().to_string() << "\n";

    Model model = build_model(dropout);
    model.summary();
    model.compile({.optimizer = optimizers::Adam({.learning_rate = learning_rate}),
                   .loss = losses::SparseCategoricalCrossentropy({.from_logits = true}),
                   .metrics = {"accuracy"}});
    auto start = std::chrono::steady_clock::now();
    model.fit(x_train, y_train, {.batch_size = batch_size, .epochs = epochs, .verbose = verbose});
    double seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
    std::printf("Training: %.1f s (%.1f s per epoch)\n", seconds, seconds / epochs);

    auto scores = model.evaluate(x_test, y_test, {.verbose = verbose ? 2 : 0});
    std::printf("Test accuracy: %.4f  (test loss %.4f)\n", scores.at("accuracy"), scores.at("loss"));
    if (!quantize.empty()) examples::report_quantized_accuracy(model, quantize, x_test, y_test, scores.at("accuracy"));
    return 0;
  } catch (const Error& e) {
    std::cerr << "error: " << e.what() << "\n";
    return 1;
  }
}
