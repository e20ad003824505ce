// The functional API with two inputs and two outputs, on Fashion-MNIST.
// Input "image" (28, 28, 1) goes through a small convnet; input "profile" holds the
// image's 28 row means and 28 column means (a hand-made summary) and goes through a
// Dense layer. Concatenate joins the two; two heads follow, each with its own loss:
//   "garment":  10 logits, sparse categorical crossentropy (from logits), weight 1.0
//   "footwear": sigmoid, binary crossentropy (sandal, sneaker, ankle boot = 1), weight 0.5
#include <strata/strata.h>

#include <cstdio>
#include <iostream>

#include "tools/cli/flags.h"

using namespace strata;

namespace {

struct Inputs {
  Tensor image, profile;
};

// Pixels to 0..1 with a channel axis, and the row/column means of each image, with
// keras.ops-style eager ops (core/eager.h).
Inputs prepare(const Tensor& raw) {
  const Tensor image = raw / 255.f;
  const Tensor profile = ops::concatenate({ops::mean(image, {2}), ops::mean(image, {1})}, 1);  // (N, 28 + 28)
  return {ops::expand_dims(image, -1), profile};
}

// 1 for footwear (classes 5 sandal, 7 sneaker, 9 ankle boot), else 0; shape (N, 1).
Tensor footwear(const Tensor& labels) {
  const Tensor classes = ops::one_hot(labels, 10);  // (N, 10)
  const Tensor is_footwear = ops::slice(classes, {0, 5}, {-1, 1}) + ops::slice(classes, {0, 7}, {-1, 1}) +
                             ops::slice(classes, {0, 9}, {-1, 1});
  return is_footwear;
}

}  // namespace

int main(int argc, char** argv) {
  int epochs = 2;
  std::int64_t batch_size = 64;
  std::int64_t train_samples = 20000;
  std::int64_t test_samples = 0;  // 0 = all 10000
  int verbose = 1;
  std::string data_dir;
  cli::Flags flags("A functional model with two inputs (image, profile) and two outputs on Fashion-MNIST.");
  flags.add("epochs", &epochs, "passes over the training data")
      .add("batch_size", &batch_size, "samples per step")
      .add("train_samples", &train_samples, "use only the first N training samples (0 = all)")
      .add("test_samples", &test_samples, "evaluate on the first N test samples only (0 = all)")
      .add("verbose", &verbose, "0 silent, 1 progress bar, 2 one line per epoch")
      .add("data_dir", &data_dir, "directory with the Fashion-MNIST files (default: Debian's)");
  flags.parse_or_exit(argc, argv);

  try {
    set_random_seed(1);
    auto data = datasets::fashion_mnist::load_data(data_dir);
    Tensor x_raw = data.x_train, y_raw = data.y_train;
    if (train_samples > 0 && train_samples < x_raw.shape()[0]) {
      x_raw = x_raw.slice_rows(0, train_samples);
      y_raw = y_raw.slice_rows(0, train_samples);
    }
    Tensor x_test_raw = data.x_test, y_test = data.y_test;
    if (test_samples > 0 && test_samples < x_test_raw.shape()[0]) {
      x_test_raw = x_test_raw.slice_rows(0, test_samples);
      y_test = y_test.slice_rows(0, test_samples);
    }
    Inputs train = prepare(x_raw), test = prepare(x_test_raw);

    auto image = Input({28, 28, 1}, {.name = "image"});
    auto profile = Input({56}, {.name = "profile"});
    auto x = layers::Conv2D(16, 3, {.activation = "relu"})(image);
    x = layers::MaxPooling2D(2)(x);
    x = layers::Conv2D(32, 3, {.activation = "relu"})(x);
    x = layers::GlobalAveragePooling2D()(x);
    auto p = layers::Dense(32, {.activation = "relu"})(profile);
    KerasTensor joined = layers::Concatenate()({x, p})[0];  // a list call returns a list
    auto hidden = layers::Dense(64, {.activation = "relu"})(joined);
    auto garment = layers::Dense(10, {.name = "garment"})(hidden);
    auto shoe = layers::Dense(1, {.activation = "sigmoid", .name = "footwear"})(hidden);
    Model model({image, profile}, {garment, shoe});
    model.summary();

    model.compile({.optimizer = optimizers::Adam({.learning_rate = 2e-3}),
                   .loss = {losses::SparseCategoricalCrossentropy({.from_logits = true}), losses::BinaryCrossentropy()},
                   .loss_weights = {1.0f, 0.5f},
                   .metrics = {"accuracy"}});
    model.fit({train.image, train.profile}, {y_raw, footwear(y_raw)},
              {.batch_size = batch_size, .epochs = epochs, .verbose = verbose});
    auto scores = model.evaluate({test.image, test.profile}, {y_test, footwear(y_test)},
                                 {.verbose = verbose ? 2 : 0});
    for (const auto& [name, value] : scores) std::printf("test %s: %.4f\n", name.c_str(), value);
    return 0;
  } catch (const Error& e) {
    std::cerr << "error: " << e.what() << "\n";
    return 1;
  }
}
