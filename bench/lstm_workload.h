// The LSTM benchmark's workload, shared by the framework sides (one translation unit
// per framework, as in bench/mlp_workload.h).
#pragma once

#include <cstdint>
#include <memory>
#include <string>
#include <vector>

namespace strata::bench {

struct LstmConfig {
  bool bidirectional = false;  // false: LSTM(units); true: Bidirectional(LSTM(units))
  std::int64_t units = 128;
  std::int64_t timesteps = 50;
  std::int64_t features = 32;
  std::int64_t classes = 10;
  std::int64_t batch_size = 64;
  std::int64_t samples = 64 * 20;  // whole batches only
  double learning_rate = 1e-3;
  int threads = 2;
};

// x (samples, timesteps, features) ~ N(0, 1), y (samples,) in [0, classes).
struct LstmData {
  std::vector<float> x;
  std::vector<std::int64_t> y;
};

// One framework's model: [Bidirectional] LSTM -> last output -> Dense(classes) logits,
// Adam, sparse categorical crossentropy from logits.
class LstmRunner {
 public:
  virtual ~LstmRunner() = default;
  virtual std::string name() const = 0;
  // One pass over the pre-made batches; returns the last batch's loss.
  virtual float train_epoch() = 0;
  // Inference over the same batches; returns one logit so the work is not skipped.
  virtual float predict_epoch() = 0;
};

std::string lstm_torch_version();
std::unique_ptr<LstmRunner> make_torch_lstm(const LstmConfig& config, const LstmData& data);
std::unique_ptr<LstmRunner> make_strata_lstm(const LstmConfig& config, const LstmData& data);

}  // namespace strata::bench
