// The models and data of the data-parallel tests: one definition used both by the job
// that runs under mpirun (mpi_job.cc) and by the single-process reference the test
// computes (data_parallel_test.cc), so both train the same model on the same batches.
#pragma once

#include <cmath>
#include <cstdint>
#include <string>
#include <utility>

#include "core/error.h"
#include "strata.h"

namespace strata::distributed_test {

// Keras's "Customizing what happens in fit()" step (docs/extending.md): the loss, its
// gradients applied by compile's optimizer, and every metric updated, the loss tracker
// with one value per batch and accuracy with one per sample.
class CustomStepModel : public CustomModel {
 public:
  using CustomModel::CustomModel;
  StepLogs train_step(StepBuilder& step) override {
    Output x = step.x()[0], y = step.y()[0];
    Output y_pred = step.call(x);
    Output loss = step.compute_loss(y, y_pred);
    std::vector<Variable> trainable_vars = trainable_variables();
    step.apply(optimizer(), step.gradients(loss, trainable_vars), trainable_vars);
    for (metrics::Metric& metric : metrics()) {
      if (metric.name() == "loss") {
        step.update_state(metric, loss);
      } else {
        step.update_state(metric, y, y_pred);
      }
    }
    return metrics();
  }
};

// Every model has dropout, and fit shuffles: the masks and the order must match too.
// "custom" is the mlp with a custom train step.
inline Model build_model(const std::string& kind) {
  set_random_seed(7);
  Model model = [&]() -> Model {
    if (kind == "custom") {
      KerasTensor inputs = Input({20});
      KerasTensor h = layers::Dense(64, {.activation = "relu"})(inputs);
      h = layers::Dropout(0.2)(h);
      h = layers::Dense(32, {.activation = "relu"})(h);
      return make_model<CustomStepModel>(inputs, layers::Dense(5)(h));
    }
    if (kind == "mlp") {
      return Sequential({layers::Input({20}), layers::Dense(64, {.activation = "relu"}), layers::Dropout(0.2),
                         layers::Dense(32, {.activation = "relu"}), layers::Dense(5)});
    }
    if (kind == "synchronized_bn") {  // refused under several processes
      return Sequential({layers::Input({20}), layers::Dense(16), layers::BatchNormalization({.synchronized = true}),
                         layers::Dense(5)});
    }
    if (kind == "lstm") {
      return Sequential({layers::Input({12, 6}), layers::LSTM(16, {.dropout = 0.2, .recurrent_dropout = 0.1}),
                         layers::Dropout(0.1), layers::Dense(5)});
    }
    if (kind == "cnn") {
      return Sequential({layers::Input({12, 12, 1}), layers::Conv2D(8, 3, {.activation = "relu"}),
                         layers::MaxPooling2D(2), layers::Conv2D(16, 3, {.activation = "relu"}), layers::Flatten(),
                         layers::Dropout(0.25), layers::Dense(5)});
    }
    throw ValueError("unknown test model '" + kind + "' (mlp, custom, synchronized_bn, lstm or cnn)");
  }();
  model.compile({.optimizer = optimizers::Adam({.learning_rate = 1e-3}),
                 .loss = losses::SparseCategoricalCrossentropy({.from_logits = true}),
                 .metrics = {"accuracy"}});
  return model;
}

// 500 samples of the model's input shape, and a class per sample that depends on them.
inline std::pair<Tensor, Tensor> make_data(const std::string& kind, std::int64_t samples = 500) {
  const bool vectors = kind == "mlp" || kind == "custom" || kind == "synchronized_bn";
  Shape shape = vectors ? Shape{samples, 20} : kind == "lstm" ? Shape{samples, 12, 6} : Shape{samples, 12, 12, 1};
  Tensor x(shape);
  Tensor y(Shape{samples}, DType::int64);
  const std::int64_t per = x.size() / samples;
  for (std::int64_t i = 0; i < samples; ++i) {
    double sum = 0;
    for (std::int64_t j = 0; j < per; ++j) {
      const float v = static_cast<float>(std::sin(0.37 * static_cast<double>(i * per + j) + 0.11 * static_cast<double>(i)));
      x.data<float>()[i * per + j] = v;
      sum += v * static_cast<double>((j % 7) + 1);
    }
    y.data<std::int64_t>()[i] = static_cast<std::int64_t>(std::fabs(sum) * 3.0) % 5;
  }
  return {x, y};
}

// 500 samples in global batches of 50, two epochs: 20 steps.
constexpr std::int64_t kBatchSize = 50;
constexpr int kEpochs = 2;

// A weighted sum of every prediction (weights 1..13 by position), with the sum of the
// terms' magnitudes: predictions in another order or from other rows change it.
inline std::pair<double, double> prediction_checksum(const Tensor& predictions) {
  double sum = 0, magnitude = 0;
  for (std::int64_t i = 0; i < predictions.size(); ++i) {
    const double term = predictions.data<float>()[i] * static_cast<double>(i % 13 + 1);
    sum += term;
    magnitude += std::fabs(term);
  }
  return {sum, magnitude};
}

// fit on arrays (shuffled by fit) or on a shuffled, batched Dataset ("dataset").
inline History train(Model& model, const Tensor& x, const Tensor& y, const std::string& data, int epochs,
                     std::vector<Callback> callbacks = {}, int verbose = 0) {
  if (data == "dataset") {
    return model.fit(Dataset::from_tensors(x, y).shuffle(128, 3).batch(kBatchSize),
                     {.epochs = epochs, .verbose = verbose, .callbacks = std::move(callbacks)});
  }
  return model.fit(x, y, {.batch_size = kBatchSize, .epochs = epochs, .verbose = verbose,
                          .callbacks = std::move(callbacks), .shuffle = true});
}

}  // namespace strata::distributed_test
