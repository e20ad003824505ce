// strata_conv_lstm_loop: a ConvLSTM's two time loops side by side (docs/layers.md, "None
// dimensions"): the next-frame tutorial's model (examples/moving_fashion_next_frame.cc:
// ConvLSTM2D 5×5, 3×3, 1×1 of 8 filters, BatchNormalization between, a Conv3D head) defined
// over 7 known frames, whose loops are unrolled into the graph, and over None frames, whose
// loops are the conv_lstm_recurrence op, both fed the same batches of (8, 7, 32, 32, 1).
// Per round, one train_on_batch and one predict_on_batch of each, alternating; prints
// each's median in milliseconds and the per-round ratios None / known (median, min, max).
//   build/bench/strata_conv_lstm_loop [rounds, default 20]
#include <algorithm>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <random>
#include <vector>

#include "layers/convolutional/conv.h"
#include "layers/core/input_layer.h"
#include "layers/normalization/batch_normalization.h"
#include "layers/recurrent/conv_lstm.h"
#include "models/model.h"
#include "optimizers/optimizers.h"

using namespace strata;

namespace {

constexpr std::int64_t kBatch = 8, kFrames = 7, kSide = 32, kFilters = 8;

Model next_frame_model(std::int64_t frames) {
  auto in = Input({frames, kSide, kSide, 1});
  auto x = layers::ConvLSTM2D(kFilters, 5, {.padding = "same", .return_sequences = true})(in);
  x = layers::BatchNormalization()(x);
  x = layers::ConvLSTM2D(kFilters, 3, {.padding = "same", .return_sequences = true})(x);
  x = layers::BatchNormalization()(x);
  x = layers::ConvLSTM2D(kFilters, 1, {.padding = "same", .return_sequences = true})(x);
  Model m(in, layers::Conv3D(1, 3, {.padding = "same", .activation = "sigmoid"})(x));
  m.compile({.optimizer = optimizers::Adam({.learning_rate = 1e-3}), .loss = "binary_crossentropy"});
  return m;
}

double millis_since(std::chrono::steady_clock::time_point start) {
  return std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - start).count();
}

double median(std::vector<double> v) {
  std::sort(v.begin(), v.end());
  return v[v.size() / 2];
}

}  // namespace

int main(int argc, char** argv) {
  const int rounds = argc > 1 ? std::max(1, std::atoi(argv[1])) : 20;
  Tensor x(Shape{kBatch, kFrames, kSide, kSide, 1}), y(Shape{kBatch, kFrames, kSide, kSide, 1});
  std::mt19937 gen(7);
  std::uniform_real_distribution<float> unit(0.f, 1.f);
  for (float& v : x.values<float>()) v = unit(gen);
  for (float& v : y.values<float>()) v = unit(gen) > 0.5f ? 1.f : 0.f;
  Model known = next_frame_model(kFrames), unknown = next_frame_model(kUnknownDim);
  unknown.set_weights(known.get_weights());
  for (Model* m : {&known, &unknown}) {  // warm: compile, first runs
    m->train_on_batch(x, y);
    m->predict_on_batch(x);
  }
  std::vector<double> train[2], predict[2], train_ratio, predict_ratio;
  for (int r = 0; r < rounds; ++r) {
    for (int k = 0; k < 2; ++k) {
      Model& m = k == 0 ? known : unknown;
      auto start = std::chrono::steady_clock::now();
      m.train_on_batch(x, y);
      train[k].push_back(millis_since(start));
      start = std::chrono::steady_clock::now();
      m.predict_on_batch(x);
      predict[k].push_back(millis_since(start));
    }
    train_ratio.push_back(train[1].back() / train[0].back());
    predict_ratio.push_back(predict[1].back() / predict[0].back());
  }
  const auto report = [](const char* what, const std::vector<double>* ms, const std::vector<double>& ratio) {
    std::printf("%s: known frames (unrolled) %.1f ms, None frames (conv_lstm_recurrence) %.1f ms; "
                "None / known per round: median %.2f (min %.2f, max %.2f)\n",
                what, median(ms[0]), median(ms[1]), median(ratio), *std::min_element(ratio.begin(), ratio.end()),
                *std::max_element(ratio.begin(), ratio.end()));
  };
  std::printf("next-frame model, batch (%lld, %lld, %lld, %lld, 1), %d rounds\n", static_cast<long long>(kBatch),
              static_cast<long long>(kFrames), static_cast<long long>(kSide), static_cast<long long>(kSide), rounds);
  report("train_on_batch", train, train_ratio);
  report("predict_on_batch", predict, predict_ratio);
}
