// The functional API with two inputs and two outputs, on Fashion-MNIST.
// Input "image" (28, 28, 1) goes through a small convnet; input "profile" holds the
// image's 28 row means and 28 column means (a hand-made summary) and goes through a
// Dense layer. Concatenate joins the two; two heads follow, each with its own loss:
//   "garment":  10 logits, sparse categorical crossentropy (from logits), weight 1.0
//   "footwear": sigmoid, binary crossentropy (sandal, sneaker, ankle boot = 1), weight 0.5
#include <strata/strata.h>

#include <cstdio>
#include <iostream>

#include "flags.h"

using namespace strata;

namespace {

struct Inputs {
  Tensor image, profile;
};

// Pixels to 0..1 with a channel axis, and the row/column means of each image.
Inputs prepare(const Tensor& raw) {
  const std::int64_t n = raw.shape()[0];
  Tensor image = raw.clone();
  for (float& v : image.values<float>()) v /= 255.0f;
  Tensor profile(Shape{n, 56});
  const float* px = image.data<float>();
  float* pp = profile.data<float>();
  for (std::int64_t i = 0; i < n; ++i) {
    for (int r = 0; r < 28; ++r) {
      for (int c = 0; c < 28; ++c) {
        float v = px[(i * 28 + r) * 28 + c] / 28.0f;
        pp[i * 56 + r] += v;
        pp[i * 56 + 28 + c] += v;
      }
    }
  }
  return {image.reshaped(Shape{n, 28, 28, 1}), profile};
}

// 1 for footwear (classes 5 sandal, 7 sneaker, 9 ankle boot), else 0; shape (N, 1).
Tensor footwear(const Tensor& labels) {
  Tensor out(Shape{labels.shape()[0], 1});
  for (std::int64_t i = 0; i < labels.size(); ++i) {
    int label = static_cast<int>(labels.item(i));
    out.data<float>()[i] = (label == 5 || label == 7 || label == 9) ? 1.f : 0.f;
  }
  return out;
}

}  // namespace

int main(int argc, char** argv) {
  int epochs = 2;
  std::int64_t batch_size = 64;
  std::int64_t train_samples = 20000;
  std::int64_t test_samples = 0;  // 0 = all 10000
  int verbose = 1;
  std::string data_dir;
  examples::Flags flags("A functional model with two inputs (image, profile) and two outputs on Fashion-MNIST.");
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
