// Next-frame prediction with convolutional LSTMs, as Keras's "Next-frame video prediction
// with convolutional LSTMs" example (keras.io/examples/vision/conv_lstm), on moving
// Fashion-MNIST items instead of the Moving MNIST download: each sequence is one item,
// shrunk to 14×14, gliding and bouncing inside a 32×32 frame. The model sees frames
// 0..T-2 and predicts frames 1..T-1: three ConvLSTM2D layers (5×5, 3×3, 1×1, all
// return_sequences, BatchNormalization between) and a Conv3D with a sigmoid, trained with
// binary crossentropy as in the Keras example.
//
// The sequences are made by integer rules (moving_fashion below) that
// tests/reference/moving_fashion_next_frame_keras.py repeats exactly, so that Keras
// trains the same model on the same data; docs/recurrent.md ("Tutorial: next-frame
// prediction with ConvLSTM2D") has both test losses over several seeds.
#include <strata/strata.h>

#include <chrono>
#include <cstdio>
#include <iostream>
#include <vector>

#include "fashion_mnist_data.h"
#include "tools/cli/flags.h"

using namespace strata;

namespace {

constexpr std::int64_t kFrame = 32, kItem = 14, kTravel = kFrame - kItem;  // positions 0..kTravel

// The k-th number of sequence i's rule: integer arithmetic both languages do alike.
std::int64_t rule(std::int64_t i, std::int64_t k) { return ((i + 1) * 2654435761LL + k * 97) % 1000003; }

// A coordinate gliding at `speed` from `start`, bouncing off 0 and kTravel.
std::int64_t bounce(std::int64_t start, std::int64_t speed, std::int64_t t) {
  const std::int64_t period = 2 * kTravel;
  std::int64_t p = (start + speed * t) % period;
  if (p < 0) p += period;
  return p <= kTravel ? p : period - p;
}

// `count` sequences of `frames` frames (count, frames, 32, 32, 1), item i of `images`
// (n, 28, 28) in [0, 1] in sequence i: shrunk by 2×2 means, placed at a start and speed
// from rule(i, ·), the background 0.
Tensor moving_fashion(const Tensor& images, std::int64_t count, std::int64_t frames) {
  std::vector<float> out(static_cast<std::size_t>(count * frames * kFrame * kFrame), 0.f);
  for (std::int64_t i = 0; i < count; ++i) {
    float item[kItem][kItem];
    for (std::int64_t r = 0; r < kItem; ++r) {
      for (std::int64_t c = 0; c < kItem; ++c) {
        const std::int64_t base = i * 784 + 2 * r * 28 + 2 * c;
        item[r][c] = (images.item(base) + images.item(base + 1) + images.item(base + 28) + images.item(base + 29)) / 4.f;
      }
    }
    const std::int64_t x0 = rule(i, 1) % (kTravel + 1), y0 = rule(i, 2) % (kTravel + 1);
    std::int64_t vx = rule(i, 3) % 5 - 2, vy = rule(i, 4) % 5 - 2;
    if (vx == 0 && vy == 0) vx = 1;
    for (std::int64_t t = 0; t < frames; ++t) {
      const std::int64_t x = bounce(x0, vx, t), y = bounce(y0, vy, t);
      float* frame = out.data() + (i * frames + t) * kFrame * kFrame;
      for (std::int64_t r = 0; r < kItem; ++r) {
        for (std::int64_t c = 0; c < kItem; ++c) frame[(y + r) * kFrame + x + c] = item[r][c];
      }
    }
  }
  return Tensor::from_vector<float>(Shape{count, frames, kFrame, kFrame, 1}, out);
}

Model build_model(std::int64_t filters, std::int64_t steps) {
  auto frames = Input({steps, kFrame, kFrame, 1}, {.name = "frames"});
  auto x = layers::ConvLSTM2D(filters, 5, {.padding = "same", .return_sequences = true})(frames);
  x = layers::BatchNormalization()(x);
  x = layers::ConvLSTM2D(filters, 3, {.padding = "same", .return_sequences = true})(x);
  x = layers::BatchNormalization()(x);
  x = layers::ConvLSTM2D(filters, 1, {.padding = "same", .return_sequences = true})(x);
  auto next = layers::Conv3D(1, 3, {.padding = "same", .activation = "sigmoid", .name = "next_frames"})(x);
  return Model(frames, next);
}

}  // namespace

int main(int argc, char** argv) {
  int epochs = 5;
  std::int64_t batch_size = 8;
  std::int64_t filters = 8;
  std::int64_t frames = 8;
  std::int64_t train_sequences = 400;
  std::int64_t test_sequences = 100;
  double learning_rate = 1e-3;
  std::int64_t seed = 1;
  int verbose = 1;
  std::string data_dir;
  cli::Flags flags("Trains ConvLSTM2D layers to predict the next frame of moving Fashion-MNIST items.");
  flags.add("epochs", &epochs, "passes over the training sequences")
      .add("batch_size", &batch_size, "sequences per step")
      .add("filters", &filters, "filters of each ConvLSTM2D")
      .add("frames", &frames, "frames per sequence (the model sees all but the last)")
      .add("train_sequences", &train_sequences, "training sequences (one per training image, in order)")
      .add("test_sequences", &test_sequences, "test sequences (one per test image, in order)")
      .add("learning_rate", &learning_rate, "Adam's learning rate")
      .add("seed", &seed, "global random seed (weights, shuffling)")
      .add("verbose", &verbose, "0 silent, 1 progress bar, 2 one line per epoch")
      .add("data_dir", &data_dir, "directory with the Fashion-MNIST files (default: Debian's)");
  flags.parse_or_exit(argc, argv);

  try {
    set_random_seed(static_cast<std::uint64_t>(seed));
    auto data = examples::load_fashion_mnist(data_dir);
    const Tensor train = moving_fashion(data.x_train, train_sequences, frames);
    const Tensor test = moving_fashion(data.x_test, test_sequences, frames);
    // Frames 0..T-2 in, frames 1..T-1 out.
    const std::int64_t steps = frames - 1;
    auto shifted = [&](const Tensor& sequences, std::int64_t first) {
      return ops::slice(sequences, {0, first, 0, 0, 0}, {-1, steps, -1, -1, -1});
    };
    std::cout << "sequences: train " << train.shape().to_string() << ", test " << test.shape().to_string() << "\n";

    Model model = build_model(filters, steps);
    if (verbose) model.summary();
    model.compile({.optimizer = optimizers::Adam({.learning_rate = learning_rate}),
                   .loss = losses::BinaryCrossentropy(),
                   .metrics = {"mse"}});
    const auto start = std::chrono::steady_clock::now();
    model.fit(shifted(train, 0), shifted(train, 1), {.batch_size = batch_size, .epochs = epochs, .verbose = verbose});
    const double seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
    std::printf("Training: %.1f s (%.1f s per epoch)\n", seconds, seconds / epochs);
    auto scores = model.evaluate(shifted(test, 0), shifted(test, 1), {.verbose = verbose ? 2 : 0});
    std::printf("Test loss (binary crossentropy): %.4f  (mse %.5f)\n", scores.at("loss"), scores.at("mse"));
    return 0;
  } catch (const Error& e) {
    std::cerr << "error: " << e.what() << "\n";
    return 1;
  }
}
