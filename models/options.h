// Options for compile / fit / evaluate / predict, with Keras's defaults. Fields are
// declared in the order of Keras's signatures, so designated initializers written in
// Keras's order compile.
#pragma once

#include <cstdint>
#include <initializer_list>
#include <map>
#include <optional>
#include <string>
#include <vector>

#include "core/tensor.h"
#include "data/dataset.h"
#include "losses/loss.h"
#include "models/callbacks.h"
#include "optimizers/optimizer.h"

namespace strata {

// A loss for every output: one loss (applied to each output), a Keras identifier, or a
// list with one loss per output.
class LossSpec {
 public:
  LossSpec() = default;
  LossSpec(losses::Loss loss) : losses_{std::move(loss)} {}                    // NOLINT
  LossSpec(const char* identifier) : losses_{losses::get(identifier)} {}       // NOLINT
  LossSpec(const std::string& identifier) : losses_{losses::get(identifier)} {}  // NOLINT
  LossSpec(std::initializer_list<losses::Loss> losses) : losses_(losses) {}    // NOLINT
  const std::vector<losses::Loss>& losses() const { return losses_; }
  bool empty() const { return losses_.empty(); }

 private:
  std::vector<losses::Loss> losses_;
};

// An optimizer instance or a Keras identifier ("adam", "sgd", "rmsprop", "adagrad").
class OptimizerSpec {
 public:
  OptimizerSpec() = default;
  OptimizerSpec(optimizers::Optimizer optimizer) : optimizer_(std::move(optimizer)) {}     // NOLINT
  OptimizerSpec(const char* identifier) : identifier_(identifier) {}                        // NOLINT
  OptimizerSpec(const std::string& identifier) : identifier_(identifier) {}                 // NOLINT
  optimizers::Optimizer resolve() const {
    return optimizer_.defined() ? optimizer_ : optimizers::get(identifier_);
  }

 private:
  optimizers::Optimizer optimizer_;
  std::string identifier_ = "rmsprop";  // Keras's default
};

struct CompileOptions {
  OptimizerSpec optimizer;
  LossSpec loss;
  std::vector<float> loss_weights;     // one per output; default 1 each
  std::vector<std::string> metrics;    // Keras identifiers: "accuracy", "mse", "mae", ...
  // Like metrics, but given fit's sample_weight / class_weight (Keras: `metrics` are
  // unweighted, `weighted_metrics` weighted); logged under the same names.
  std::vector<std::string> weighted_metrics;
  // Where the compiled programs run: "cpu", "cuda", "cuda:N" (or TensorFlow's "/GPU:N").
  // Empty: the first GPU when there is one, else the CPU, as TensorFlow places a model
  // (core/device.h's default_device; STRATA_DEFAULT_DEVICE overrides it). A device that
  // lacks a kernel for one of the model's ops is an error here, naming the op and layer.
  std::string device;
  // Keras's auto_scale_loss: a model whose dtype policy is "mixed_float16" (the global
  // policy when it was made) trains with its optimizer wrapped in a LossScaleOptimizer
  // (optimizers/loss_scale_optimizer.h), unless it is one already.
  bool auto_scale_loss = true;
};

// Validation arrays for fit (one tensor per model input / output).
struct ValidationData {
  ValidationData() = default;
  ValidationData(Tensor x_, Tensor y_) : x{std::move(x_)}, y{std::move(y_)} {}
  ValidationData(std::vector<Tensor> x_, std::vector<Tensor> y_) : x(std::move(x_)), y(std::move(y_)) {}
  ValidationData(Dataset data) : dataset(std::move(data)) {}  // NOLINT: a batched Dataset
  std::vector<Tensor> x, y;
  Dataset dataset;
};

struct FitOptions {
  std::int64_t batch_size = 32;
  int epochs = 1;
  int verbose = 1;                      // 0 silent, 1 progress bar, 2 one line per epoch
  std::vector<Callback> callbacks;      // hooks called in list order (models/callbacks.h)
  double validation_split = 0.0;        // the last fraction, taken before shuffling
  std::optional<ValidationData> validation_data;  // overrides validation_split
  bool shuffle = true;
  // {class index -> weight}: per-sample weights from the labels (int targets, or the
  // argmax of one-hot targets). Single-output models; not together with sample_weight.
  std::map<std::int64_t, float> class_weight;
  // One weight per training sample (float32, shape (N,)): multiplies the per-sample
  // losses ("sum_over_batch_size" still divides by the element count) and feeds
  // compile's weighted_metrics. validation_split splits it like x and y.
  Tensor sample_weight;
  int initial_epoch = 0;
  // Batches per epoch (0: one pass over the data). Batches then continue across epochs
  // from where the last epoch stopped, reshuffling after each full pass.
  std::int64_t steps_per_epoch = 0;
  std::int64_t validation_steps = 0;    // 0: the whole validation set
  std::int64_t validation_batch_size = 0;  // 0: batch_size
  int validation_freq = 1;              // validate after every validation_freq-th epoch
};

struct EvaluateOptions {
  std::int64_t batch_size = 32;
  int verbose = 1;
  Tensor sample_weight;                 // per-sample weights, as in fit
  std::int64_t steps = 0;               // 0: the whole data
  std::vector<Callback> callbacks;
};

struct PredictOptions {
  std::int64_t batch_size = 32;
  int verbose = 1;  // Keras's "auto": a progress bar
  std::int64_t steps = 0;               // 0: the whole data
  std::vector<Callback> callbacks;
};

}  // namespace strata
