// Strata side of bench/mlp.cc, written against the public model API (ARCHITECTURE.md):
// Sequential + compile + train_on_batch / predict_on_batch. Built only when models/
// exists (see bench/CMakeLists.txt).
#include <strata/strata.h>

#include <cmath>
#include <cstring>
#include <map>
#include <optional>
#include <type_traits>

#include "bench/mlp_workload.h"
#include "core/cpu/parallel.h"

namespace strata::bench {
namespace {

// train_on_batch's result as a loss, whatever the lead settles on returning (a number,
// a scalar Tensor, a {"loss": ...} map or a list whose first entry is the loss).
template <typename R>
float loss_of(const R& r) {
  if constexpr (std::is_arithmetic_v<R>) {
    return static_cast<float>(r);
  } else if constexpr (std::is_same_v<R, Tensor>) {
    return r.item();
  } else if constexpr (requires { r.at("loss"); }) {
    return loss_of(r.at("loss"));
  } else if constexpr (requires { r.front(); }) {
    return loss_of(r.front());
  } else {
    return NAN;
  }
}

Tensor rows_of(const float* src, std::int64_t rows, std::int64_t cols) {
  Tensor t(Shape{rows, cols}, DType::float32);
  std::memcpy(t.raw_data(), src, static_cast<std::size_t>(rows * cols) * sizeof(float));
  return t;
}

class StrataMlp : public MlpRunner {
 public:
  StrataMlp(const MlpConfig& c, const MlpData& data)
      : model_(Sequential({
            layers::Input({c.inputs}),
            layers::Dense(c.hidden, {.activation = "relu"}),
            layers::Dense(c.hidden, {.activation = "relu"}),
            layers::Dense(c.classes),
        })) {
    cpu::set_num_threads(c.threads);
    model_.compile({.optimizer = optimizers::Adam({.learning_rate = c.learning_rate}),
                    .loss = losses::SparseCategoricalCrossentropy({.from_logits = true})});
    for (std::int64_t b = 0; b + c.batch_size <= c.samples; b += c.batch_size) {
      x_.push_back(rows_of(data.x.data() + b * c.inputs, c.batch_size, c.inputs));
      Tensor y(Shape{c.batch_size}, DType::int64);
      std::memcpy(y.raw_data(), data.y.data() + b, static_cast<std::size_t>(c.batch_size) * 8);
      y_.push_back(y);
    }
    for (std::int64_t r = 0; r < std::min<std::int64_t>(kSingleRows, c.samples); ++r) {
      singles_.push_back(rows_of(data.x.data() + r * c.inputs, 1, c.inputs));
    }
  }

  std::string name() const override { return "strata"; }

  float train_epoch() override {
    float loss = 0;
    for (std::size_t b = 0; b < x_.size(); ++b) {
      if constexpr (std::is_void_v<decltype(model_.train_on_batch(x_[b], y_[b]))>) {
        model_.train_on_batch(x_[b], y_[b]);
        loss = NAN;
      } else {
        loss = loss_of(model_.train_on_batch(x_[b], y_[b]));
      }
    }
    return loss;
  }

  float predict_one(std::int64_t row) override {
    Tensor out = model_.predict_on_batch(singles_[static_cast<std::size_t>(row) % singles_.size()]);
    return out.item(0);
  }

 private:
  Sequential model_;
  std::vector<Tensor> x_, y_, singles_;
};

}  // namespace

std::unique_ptr<MlpRunner> make_strata_mlp(const MlpConfig& config, const MlpData& data) {
  return std::make_unique<StrataMlp>(config, data);
}

}  // namespace strata::bench
