// A small convnet on Fashion-MNIST, as in Keras's "simple MNIST convnet" example:
// Conv2D(32, 3, relu) -> MaxPooling2D -> Conv2D(64, 3, relu) -> MaxPooling2D -> Flatten
// -> Dropout(0.5, --dropout) -> Dense(10), Adam, sparse categorical crossentropy from logits.
// Five epochs reach about 0.90 test accuracy.
#include <strata/strata.h>

#include <chrono>
#include <cstdio>
#include <iostream>

#include "flags.h"

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

// (N, 28, 28) pixels 0..255 -> (N, 28, 28, 1) in 0..1.
Tensor images(const Tensor& raw) {
  Tensor out = raw.clone();
  for (float& v : out.values<float>()) v /= 255.0f;
  auto d = out.shape().dims();
  d.push_back(1);
  return out.reshaped(Shape(d));
}

}  // namespace

int main(int argc, char** argv) {
  int epochs = 5;
  std::int64_t batch_size = 128;
  double learning_rate = 1e-3;
  int verbose = 1;
  std::int64_t seed = 1;
  std::int64_t train_samples = 0;  // 0 = all 60000
  std::int64_t test_samples = 0;   // 0 = all 10000
  double dropout = 0.5;
  std::string data_dir;
  examples::Flags flags("Trains a small convnet on Fashion-MNIST.");
  flags.add("epochs", &epochs, "passes over the training data")
      .add("batch_size", &batch_size, "samples per step")
      .add("learning_rate", &learning_rate, "Adam's learning rate")
      .add("verbose", &verbose, "0 silent, 1 progress bar, 2 one line per epoch")
      .add("dropout", &dropout, "rate of the Dropout layer before the classifier")
      .add("seed", &seed, "global random seed (weights, shuffling, dropout)")
      .add("train_samples", &train_samples, "use only the first N training samples (0 = all)")
      .add("test_samples", &test_samples, "evaluate on the first N test samples only (0 = all)")
      .add("data_dir", &data_dir, "directory with the Fashion-MNIST files (default: Debian's)");
  flags.parse_or_exit(argc, argv);

  try {
    set_random_seed(static_cast<std::uint64_t>(seed));
    auto data = datasets::fashion_mnist::load_data(data_dir);
    Tensor x_train = images(data.x_train), y_train = data.y_train;
    if (train_samples > 0 && train_samples < x_train.shape()[0]) {
      x_train = x_train.slice_rows(0, train_samples);
      y_train = y_train.slice_rows(0, train_samples);
    }
    Tensor x_test = images(data.x_test), y_test = data.y_test;
    if (test_samples > 0 && test_samples < x_test.shape()[0]) {
      x_test = x_test.slice_rows(0, test_samples);
      y_test = y_test.slice_rows(0, test_samples);
    }
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
    return 0;
  } catch (const Error& e) {
    std::cerr << "error: " << e.what() << "\n";
    return 1;
  }
}
