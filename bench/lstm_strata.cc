// Strata side of bench/lstm.cc: Sequential + compile + train_on_batch / predict_on_batch.
#include <strata/strata.h>

#include <cstring>

#include "bench/lstm_workload.h"
#include "core/cpu/parallel.h"

namespace strata::bench {
namespace {

class StrataLstm : public LstmRunner {
 public:
  StrataLstm(const LstmConfig& c, const LstmData& data) : model_(build(c)) {
    cpu::set_num_threads(c.threads);
    model_.compile({.optimizer = optimizers::Adam({.learning_rate = c.learning_rate}),
                    .loss = losses::SparseCategoricalCrossentropy({.from_logits = true})});
    const std::int64_t row = c.timesteps * c.features;
    for (std::int64_t b = 0; b + c.batch_size <= c.samples; b += c.batch_size) {
      Tensor x(Shape{c.batch_size, c.timesteps, c.features});
      std::memcpy(x.raw_data(), data.x.data() + b * row, static_cast<std::size_t>(c.batch_size * row) * 4);
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
  static Model build(const LstmConfig& c) {
    Layer rnn = c.bidirectional ? Layer(layers::Bidirectional(layers::LSTM(c.units))) : Layer(layers::LSTM(c.units));
    return Sequential({layers::Input({c.timesteps, c.features}), rnn, layers::Dense(c.classes)});
  }

  Model model_;
  std::vector<Tensor> x_, y_;
};

}  // namespace

std::unique_ptr<LstmRunner> make_strata_lstm(const LstmConfig& config, const LstmData& data) {
  return std::make_unique<StrataLstm>(config, data);
}

}  // namespace strata::bench
