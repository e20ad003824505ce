// Image classification from scratch with augmentation layers, on Fashion-MNIST: Keras's
// "Image classification from scratch" recipe (keras.io/examples/vision/image_classification_from_scratch)
// at Fashion-MNIST's scale. The augmentation is part of the model, as in the recipe:
// RandomFlip("horizontal") and RandomRotation(0.1) change each training batch and pass
// images through unchanged in evaluate and predict. Then a small Xception-style network:
// a strided Conv2D stem, two blocks of two SeparableConv2D + BatchNormalization with a
// strided 1×1 Conv2D residual, a last SeparableConv2D, global average pooling, Dropout
// and a Dense classifier. Adam, sparse categorical crossentropy from logits.
//
// tests/reference/fashion_mnist_augmented_keras.py trains the same model in Keras with the
// same flags; docs/preprocessing.md ("Tutorial: augmentation layers") has both accuracies
// over several seeds. The trained model is saved as a .keras file Keras loads, and loaded
// back here: its predictions must match the trained model's (the exit code says).
#include <strata/strata.h>

#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstdio>
#include <iostream>

#include "fashion_mnist_data.h"
#include "tools/cli/flags.h"

using namespace strata;

namespace {

Model build_model(std::int64_t width, double rotation) {
  auto inputs = Input({28, 28, 1}, {.name = "image"});
  // Augmentation: active in fit only.
  auto x = layers::RandomFlip({.mode = "horizontal", .name = "flip"})(inputs);
  x = layers::RandomRotation(rotation, {.name = "rotate"})(x);
  // Entry block
  x = layers::Conv2D(width, 3, {.strides = 2, .padding = "same"})(x);
  x = layers::BatchNormalization()(x);
  x = layers::Activation("relu")(x);
  KerasTensor previous = x;
  for (std::int64_t size : {2 * width, 4 * width}) {
    x = layers::Activation("relu")(x);
    x = layers::SeparableConv2D(size, 3, {.padding = "same"})(x);
    x = layers::BatchNormalization()(x);
    x = layers::Activation("relu")(x);
    x = layers::SeparableConv2D(size, 3, {.padding = "same"})(x);
    x = layers::BatchNormalization()(x);
    x = layers::MaxPooling2D(3, {.strides = 2, .padding = "same"})(x);
    auto residual = layers::Conv2D(size, 1, {.strides = 2, .padding = "same"})(previous);  // project the residual
    x = layers::Add()({x, residual})[0];
    previous = x;
  }
  x = layers::SeparableConv2D(8 * width, 3, {.padding = "same"})(x);
  x = layers::BatchNormalization()(x);
  x = layers::Activation("relu")(x);
  x = layers::GlobalAveragePooling2D()(x);
  x = layers::Dropout(0.25)(x);
  auto logits = layers::Dense(10, {.name = "logits"})(x);
  return Model(inputs, logits);
}

}  // namespace

int main(int argc, char** argv) {
  int epochs = 5;
  std::int64_t batch_size = 64;
  double learning_rate = 1e-3;
  std::int64_t width = 16;
  double rotation = 0.1;
  int verbose = 1;
  std::int64_t seed = 1;
  std::int64_t train_samples = 20000;  // 0 = all 60000
  std::int64_t test_samples = 0;       // 0 = all 10000
  std::string data_dir, save = "fashion_mnist_augmented.keras";
  cli::Flags flags("Trains an Xception-style convnet with augmentation layers on Fashion-MNIST.");
  flags.add("epochs", &epochs, "passes over the training data")
      .add("batch_size", &batch_size, "samples per step")
      .add("learning_rate", &learning_rate, "Adam's learning rate")
      .add("width", &width, "filters of the stem; the blocks have 2x, 4x and 8x")
      .add("rotation", &rotation, "RandomRotation's factor (a fraction of a full turn)")
      .add("verbose", &verbose, "0 silent, 1 progress bar, 2 one line per epoch")
      .add("seed", &seed, "global random seed (weights, shuffling, augmentation, dropout)")
      .add("train_samples", &train_samples, "use only the first N training samples (0 = all)")
      .add("test_samples", &test_samples, "evaluate on the first N test samples only (0 = all)")
      .add("data_dir", &data_dir, "directory with the Fashion-MNIST files (default: Debian's)")
      .add("save", &save, "where to save the trained model (.keras)");
  flags.parse_or_exit(argc, argv);

  try {
    set_random_seed(static_cast<std::uint64_t>(seed));
    auto data = examples::load_fashion_mnist(data_dir, train_samples, test_samples, /*channel_axis=*/true);
    std::cout << "train: " << data.x_train.shape().to_string() << ", test: " << data.x_test.shape().to_string()
              << "\n";

    Model model = build_model(width, rotation);
    if (verbose) model.summary();
    model.compile({.optimizer = optimizers::Adam({.learning_rate = learning_rate}),
                   .loss = losses::SparseCategoricalCrossentropy({.from_logits = true}),
                   .metrics = {"accuracy"}});
    const auto start = std::chrono::steady_clock::now();
    model.fit(data.x_train, data.y_train, {.batch_size = batch_size, .epochs = epochs, .verbose = verbose});
    const double seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
    std::printf("Training: %.1f s (%.1f s per epoch)\n", seconds, seconds / epochs);

    auto scores = model.evaluate(data.x_test, data.y_test, {.verbose = verbose ? 2 : 0});
    std::printf("Test accuracy: %.4f  (test loss %.4f)\n", scores.at("accuracy"), scores.at("loss"));

    // The augmentation layers are saved with the model; loaded back, inference is the same.
    model.save(save);
    Model again = models::load_model(save);
    const Tensor some = data.x_test.slice_rows(0, 64);
    const Tensor a = model.predict(some), b = again.predict(some);
    float worst = 0.f;
    for (std::int64_t i = 0; i < a.size(); ++i) worst = std::max(worst, std::fabs(a.item(i) - b.item(i)));
    std::printf("Saved to %s; reloaded, predictions differ by at most %g\n", save.c_str(), worst);
    return worst <= 1e-6f ? 0 : 1;
  } catch (const Error& e) {
    std::cerr << "error: " << e.what() << "\n";
    return 1;
  }
}
