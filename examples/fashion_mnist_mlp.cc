// Quickstart: Keras's "basic classification" tutorial in C++.
// Fashion-MNIST (Debian's dataset-fashion-mnist), Flatten -> Dense(128, relu) -> Dense(10),
// Adam, sparse categorical crossentropy from logits, 10 epochs. Then the weights are saved,
// loaded into a freshly built model, and the two models' predictions are compared.
// --dtype_policy=mixed_bfloat16 (or mixed_float16) trains it as Keras's mixed precision
// guide does; --quantize=int8 quantizes it after training (docs/precision.md).
#include <strata/strata.h>

#include <cmath>
#include <cstdio>
#include <iostream>

#include "fashion_mnist_data.h"
#include "quantized_accuracy.h"
#include "tools/cli/flags.h"

using namespace strata;

namespace {

// Under a dtype policy (--dtype_policy=mixed_bfloat16, mixed_float16) as Keras's mixed
// precision guide builds it: every layer under the policy, the output layer in float32.
Model build_model(const std::string& dtype_policy) {
  set_dtype_policy(dtype_policy);
  const layers::Flatten flatten;
  const layers::Dense hidden(128, {.activation = "relu"});
  const layers::Dense logits(10);
  logits.set_dtype_policy("float32");
  Model model = Sequential({Input({28, 28}), flatten, hidden, logits});
  set_dtype_policy("float32");
  return model;
}

}  // namespace

int main(int argc, char** argv) {
  int epochs = 10;
  std::int64_t batch_size = 32;
  double learning_rate = 1e-3;
  int verbose = 1;
  std::int64_t seed = 1;
  std::int64_t train_samples = 0;  // 0 = all 60000
  std::string data_dir, quantize, dtype_policy = "float32";
  std::string weights_path = "fashion_mnist_mlp.weights.h5";
  cli::Flags flags("Trains an MLP on Fashion-MNIST, like Keras's basic classification tutorial.");
  flags.add("epochs", &epochs, "passes over the training data")
      .add("batch_size", &batch_size, "samples per step")
      .add("learning_rate", &learning_rate, "Adam's learning rate")
      .add("verbose", &verbose, "0 silent, 1 progress bar, 2 one line per epoch")
      .add("seed", &seed, "global random seed (weights, shuffling)")
      .add("train_samples", &train_samples, "use only the first N training samples (0 = all)")
      .add("data_dir", &data_dir, "directory with the Fashion-MNIST files (default: Debian's)")
      .add("weights", &weights_path, "where to save the trained weights")
      .add("quantize", &quantize, "after training: model.quantize(MODE) (\"int8\") and evaluate again")
      .add("dtype_policy", &dtype_policy,
           "train under Keras's policy: float32, mixed_bfloat16 or mixed_float16 (the output layer stays float32)");
  flags.parse_or_exit(argc, argv);

  try {
    set_random_seed(static_cast<std::uint64_t>(seed));
    auto data = examples::load_fashion_mnist(data_dir, train_samples);
    const Tensor& x_train = data.x_train;
    const Tensor& x_test = data.x_test;
    std::cout << "train: " << x_train.shape().to_string() << ", test: " << x_test.shape().to_string() << "\n";

    Model model = build_model(dtype_policy);
    model.summary();
    model.compile({.optimizer = optimizers::Adam({.learning_rate = learning_rate}),
                   .loss = losses::SparseCategoricalCrossentropy({.from_logits = true}),
                   .metrics = {"accuracy"}});
    model.fit(x_train, data.y_train, {.batch_size = batch_size, .epochs = epochs, .verbose = verbose});

    auto scores = model.evaluate(x_test, data.y_test, {.verbose = verbose ? 2 : 0});
    std::printf("Test accuracy: %.4f  (test loss %.4f)\n", scores.at("accuracy"), scores.at("loss"));

    model.save_weights(weights_path);
    Model reloaded = build_model(dtype_policy);
    reloaded.load_weights(weights_path);
    Tensor a = model.predict(x_test), b = reloaded.predict(x_test);
    float max_diff = 0.f;
    for (std::int64_t i = 0; i < a.size(); ++i) max_diff = std::max(max_diff, std::fabs(a.item(i) - b.item(i)));
    const bool match = max_diff == 0.f;
    std::printf("Saved weights to %s; a fresh model loaded them: predictions %s (max |difference| = %g)\n",
                weights_path.c_str(), match ? "match" : "DIFFER", max_diff);
    if (!quantize.empty()) examples::report_quantized_accuracy(model, quantize, x_test, data.y_test, scores.at("accuracy"));
    return match ? 0 : 1;
  } catch (const Error& e) {
    std::cerr << "error: " << e.what() << "\n";
    return 1;
  }
}
