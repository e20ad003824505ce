// The MLP benchmark's workload, shared by the framework sides (one translation unit per
// framework, so libtorch's heavy headers are compiled once and never meet Strata's).
#pragma once

#include <cstdint>
#include <memory>
#include <string>
#include <vector>

namespace strata::bench {

// How many distinct batch-1 inputs predict_one() cycles through.
inline constexpr std::int64_t kSingleRows = 64;

struct MlpConfig {
  std::int64_t inputs = 784;
  std::int64_t hidden = 256;
  std::int64_t classes = 10;
  std::int64_t batch_size = 128;
  std::int64_t samples = 128 * 50;  // whole batches only
  double learning_rate = 1e-3;
  int threads = 2;
};

// Random data, row-major: x (samples, inputs) ~ N(0, 1), y (samples,) in [0, classes).
struct MlpData {
  std::vector<float> x;
  std::vector<std::int64_t> y;
};

// One framework's model: MLP inputs-hidden-hidden-classes (relu, relu, linear logits),
// Adam, sparse categorical crossentropy from logits.
class MlpRunner {
 public:
  virtual ~MlpRunner() = default;
  virtual std::string name() const = 0;
  // One pass over the data in batch_size batches (pre-made, in order); returns the last
  // batch's loss.
  virtual float train_epoch() = 0;
  // Predicts one sample (batch of 1): row `row % kSingleRows` of the data, pre-made as a
  // (1, inputs) tensor; returns one logit so the work cannot be skipped.
  virtual float predict_one(std::int64_t row) = 0;
};

// "1.13.1": the libtorch the bench was built against.
std::string torch_version();

std::unique_ptr<MlpRunner> make_torch_mlp(const MlpConfig& config, const MlpData& data);
std::unique_ptr<MlpRunner> make_strata_mlp(const MlpConfig& config, const MlpData& data);

}  // namespace strata::bench
