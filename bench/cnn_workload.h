// The CNN benchmark's workload, shared by the framework sides (one translation unit per
// framework, as in the MLP bench): Conv2D(32, 3, relu) -> MaxPool 2 -> Conv2D(64, 3,
// relu) -> MaxPool 2 -> Flatten -> Dropout(0.5) -> Dense(10) on 28×28×1 images, Adam,
// sparse categorical crossentropy from logits.
#pragma once

#include <cstdint>
#include <memory>
#include <string>
#include <vector>

namespace strata::bench {

struct CnnConfig {
  std::int64_t batch_size = 128;
  std::int64_t samples = 128 * 10;  // whole batches only
  double learning_rate = 1e-3;
  int threads = 2;
};

// x (samples, 28, 28, 1) row-major ~ U(0, 1); y (samples,) in [0, 10).
struct CnnData {
  std::vector<float> x;
  std::vector<std::int64_t> y;
};

class CnnRunner {
 public:
  virtual ~CnnRunner() = default;
  virtual std::string name() const = 0;
  // One pass over the data in batch_size batches; returns the last batch's loss.
  virtual float train_epoch() = 0;
  // Inference over every batch (dropout off); returns one logit so no work is skipped.
  virtual float predict_epoch() = 0;
};

std::string cnn_torch_version();
std::unique_ptr<CnnRunner> make_torch_cnn(const CnnConfig& config, const CnnData& data);
std::unique_ptr<CnnRunner> make_strata_cnn(const CnnConfig& config, const CnnData& data);
// Seconds per call of Strata's conv2d op alone on (batch, 13, 13, 32) * (3, 3, 32, 64),
// the tutorial's second convolution (median of `calls`).
double strata_conv2d_seconds(std::int64_t batch, int calls);

}  // namespace strata::bench
