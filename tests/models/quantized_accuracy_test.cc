// Issue #39's accuracy point: Keras's post-training int8 quantization of the
// Fashion-MNIST tutorials' MLP and CNN (examples/fashion_mnist_mlp.cc,
// examples/fashion_mnist_cnn.cc) keeps their test accuracy within half a point of
// float32's, as Keras's own quantized models do (tests/reference/fashion_mnist_int8_keras.py;
// docs/precision.md). Trained briefly on the real data (Debian's dataset-fashion-mnist,
// which scripts/install_deps.sh installs), evaluated on all 10000 test images: 0.5 points
// is 50 images.
#include <gtest/gtest.h>

#include <cmath>
#include <cstdio>

#include "strata.h"

using namespace strata;

namespace quantized_accuracy_test {

namespace {

struct Split {
  Tensor x_train, y_train, x_test, y_test;
};

Split fashion_mnist(std::int64_t train_samples, bool channel_axis) {
  auto data = datasets::fashion_mnist::load_data();
  auto images = [&](const Tensor& raw) {
    Tensor x = raw / 255.f;
    return channel_axis ? ops::expand_dims(x, -1) : x;
  };
  return {images(data.x_train).slice_rows(0, train_samples), data.y_train.slice_rows(0, train_samples),
          images(data.x_test), data.y_test};
}

// Trains, evaluates, quantizes in place and evaluates again: {float32, int8} accuracy.
std::pair<double, double> accuracies(Model model, const Split& data, int epochs) {
  model.compile({.optimizer = optimizers::Adam({.learning_rate = 1e-3}),
                 .loss = losses::SparseCategoricalCrossentropy({.from_logits = true}),
                 .metrics = {"accuracy"}});
  model.fit(data.x_train, data.y_train, {.batch_size = 32, .epochs = epochs, .verbose = 0});
  const double float_accuracy = model.evaluate(data.x_test, data.y_test, {.verbose = 0}).at("accuracy");
  model.quantize("int8");
  const double int8_accuracy = model.evaluate(data.x_test, data.y_test, {.verbose = 0}).at("accuracy");
  std::printf("test accuracy: float32 %.4f, int8 %.4f\n", float_accuracy, int8_accuracy);
  return {float_accuracy, int8_accuracy};
}

}  // namespace

TEST(QuantizedAccuracy, TheFashionMnistMlpInInt8IsWithinHalfAPointOfFloat32) {
  set_random_seed(1);
  const Split data = fashion_mnist(20000, false);
  const auto [float_accuracy, int8_accuracy] =
      accuracies(Sequential({Input({28, 28}), layers::Flatten(), layers::Dense(128, {.activation = "relu"}),
                             layers::Dense(10)}),
                 data, 2);
  EXPECT_GT(float_accuracy, 0.8) << "the float32 model did not learn: the comparison would say nothing";
  EXPECT_LE(std::fabs(int8_accuracy - float_accuracy), 0.005) << "float32 " << float_accuracy << ", int8 "
                                                               << int8_accuracy;
}

TEST(QuantizedAccuracy, TheFashionMnistCnnInInt8IsWithinHalfAPointOfFloat32) {
  set_random_seed(1);
  const Split data = fashion_mnist(10000, true);
  const auto [float_accuracy, int8_accuracy] = accuracies(
      Sequential({Input({28, 28, 1}), layers::Conv2D(32, 3, {.activation = "relu"}), layers::MaxPooling2D(2),
                  layers::Conv2D(64, 3, {.activation = "relu"}), layers::MaxPooling2D(2), layers::Flatten(),
                  layers::Dropout(0.25), layers::Dense(10)}),
      data, 1);
  EXPECT_GT(float_accuracy, 0.75) << "the float32 model did not learn: the comparison would say nothing";
  EXPECT_LE(std::fabs(int8_accuracy - float_accuracy), 0.005) << "float32 " << float_accuracy << ", int8 "
                                                               << int8_accuracy;
}

}  // namespace quantized_accuracy_test
