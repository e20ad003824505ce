// Strata side of bench/cnn.cc: the tutorial's CNN through the public model API
// (Sequential + compile + train_on_batch / predict_on_batch), and the conv2d op alone.
#include <strata/strata.h>

#include <algorithm>
#include <chrono>
#include <cstring>

#include "bench/cnn_workload.h"
#include "core/cpu/parallel.h"

namespace strata::bench {
namespace {

class StrataCnn : public CnnRunner {
 public:
  StrataCnn(const CnnConfig& c, const CnnData& data)
      : model_(Sequential({
            layers::Input({28, 28, 1}),
            layers::Conv2D(32, 3, {.activation = "relu"}),
            layers::MaxPooling2D(2),
            layers::Conv2D(64, 3, {.activation = "relu"}),
            layers::MaxPooling2D(2),
            layers::Flatten(),
            layers::Dropout(0.5),
            layers::Dense(10),
        })) {
    cpu::set_num_threads(c.threads);
    model_.compile({.optimizer = optimizers::Adam({.learning_rate = c.learning_rate}),
                    .loss = losses::SparseCategoricalCrossentropy({.from_logits = true})});
    for (std::int64_t b = 0; b + c.batch_size <= c.samples; b += c.batch_size) {
      Tensor x(Shape{c.batch_size, 28, 28, 1});
      std::memcpy(x.raw_data(), data.x.data() + b * 784, static_cast<std::size_t>(c.batch_size * 784) * 4);
      Tensor y(Shape{c.batch_size}, DType::int64);
      std::memcpy(y.raw_data(), data.y.data() + b, static_cast<std::size_t>(c.batch_size) * 8);
      x_.push_back(x);
      y_.push_back(y);
    }
  }
  std::string name() const override { return "strata"; }
  float train_epoch() override {
    float loss = 0;
    for (std::size_t b = 0; b < x_.size(); ++b) loss = model_.train_on_batch(x_[b], y_[b]).at("loss");
    return loss;
  }
  float predict_epoch() override {
    float sink = 0;
    for (const auto& x : x_) sink += model_.predict_on_batch(x).item(0);
    return sink;
  }

 private:
  Sequential model_;
  std::vector<Tensor> x_, y_;
};

}  // namespace

std::unique_ptr<CnnRunner> make_strata_cnn(const CnnConfig& c, const CnnData& d) {
  return std::make_unique<StrataCnn>(c, d);
}

double strata_conv2d_seconds(std::int64_t batch, int calls) {
  Graph g;
  Output x = g.placeholder({Shape{batch, 13, 13, 32}}, "x");
  Output k = g.placeholder({Shape{3, 3, 32, 64}}, "k");
  Program p(g, {x, k}, {ops::conv2d(x, k, {})});
  Tensor tx = Tensor::filled(Shape{batch, 13, 13, 32}, 0.5f), tk = Tensor::filled(Shape{3, 3, 32, 64}, 0.01f);
  std::vector<double> t;
  for (int i = 0; i < calls + 2; ++i) {
    auto t0 = std::chrono::steady_clock::now();
    p.run({tx, tk});
    if (i >= 2) t.push_back(std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count());
  }
  std::sort(t.begin(), t.end());
  return t[t.size() / 2];
}

}  // namespace strata::bench
