// Recurrent classification: Fashion-MNIST images read row by row as sequences of 28
// timesteps of 28 pixels, Bidirectional(LSTM(64)) -> Dense(10), Adam, 5 epochs.
#include <strata/strata.h>

#include <cstdio>
#include <iostream>

#include "fashion_mnist_data.h"
#include "tools/cli/flags.h"

using namespace strata;

int main(int argc, char** argv) {
  int epochs = 5;
  std::int64_t batch_size = 64;
  std::int64_t units = 64;
  double learning_rate = 1e-3;
  int verbose = 1;
  std::int64_t seed = 1;
  std::int64_t train_samples = 0;  // 0 = all 60000
  std::string data_dir;
  cli::Flags flags("Classifies Fashion-MNIST with a bidirectional LSTM over image rows.");
  flags.add("epochs", &epochs, "passes over the training data")
      .add("batch_size", &batch_size, "samples per step")
      .add("units", &units, "LSTM units per direction")
      .add("learning_rate", &learning_rate, "Adam's learning rate")
      .add("verbose", &verbose, "0 silent, 1 progress bar, 2 one line per epoch")
      .add("seed", &seed, "global random seed (weights, shuffling)")
      .add("train_samples", &train_samples, "use only the first N training samples (0 = all)")
      .add("data_dir", &data_dir, "directory with the Fashion-MNIST files (default: Debian's)");
  flags.parse_or_exit(argc, argv);

  try {
    set_random_seed(static_cast<std::uint64_t>(seed));
    auto data = examples::load_fashion_mnist(data_dir, train_samples);
    const Tensor& x_train = data.x_train;
    const Tensor& y_train = data.y_train;
    const Tensor& x_test = data.x_test;
    std::cout << "train: " << x_train.shape().to_string() << ", test: " << x_test.shape().to_string() << "\n";

    // Each image is a sequence: 28 timesteps (rows) of 28 features (pixels).
    Model model = Sequential({
        Input({28, 28}),
        layers::Bidirectional(layers::LSTM(units)),
        layers::Dense(10),
    });
    model.summary();
    model.compile({.optimizer = optimizers::Adam({.learning_rate = learning_rate}),
                   .loss = losses::SparseCategoricalCrossentropy({.from_logits = true}),
                   .metrics = {"accuracy"}});
    model.fit(x_train, y_train, {.batch_size = batch_size, .epochs = epochs, .verbose = verbose});
    auto scores = model.evaluate(x_test, data.y_test, {.verbose = verbose ? 2 : 0});
    std::printf("Test accuracy: %.4f  (test loss %.4f)\n", scores.at("accuracy"), scores.at("loss"));
    return 0;
  } catch (const Error& e) {
    std::cerr << "error: " << e.what() << "\n";
    return 1;
  }
}
