// Strata alone, for profilers: runs a number of training steps (or batch-1 predictions)
// of one of the benchmark models, with nothing else in the process, so that
// `valgrind --tool=callgrind` or `perf record` sees only Strata's work. The models and
// batch sizes are the suite's (bench/run); the data is random.
//
//   build/bench/strata_profile_steps --model=cnn --steps=20 --threads=1
//   valgrind --tool=callgrind build/bench/strata_profile_steps --model=mlp --steps=50
//
// Or predictions of a model file on a NumPy batch, as the real-model benchmark loads them
// (bench/make_real_models.py writes both):
//
//   build/bench/strata_profile_steps --file=build/bench/real_models/efficientnetb0.keras \
//       --input=build/bench/real_models/efficientnetb0.x1.npy --steps=200 --threads=2
//
// docs/performance.md shows what these profiles said and what was done about it.
#include <strata/strata.h>

#include <chrono>
#include <cstdio>
#include <iostream>

#include "bench/strata_models.h"
#include "bench/workload.h"
#include "core/cpu/parallel.h"
#include "core/rng.h"
#include "io/npy.h"
#include "tools/cli/flags.h"

using namespace strata;

namespace {

struct Workload {
  Model model;
  Shape sample;  // one sample's shape
  std::int64_t batch_size;
};

Workload make_workload(const std::string& name) {
  auto adam = [] { return optimizers::Adam({.learning_rate = 1e-3}); };
  auto loss = [] { return losses::SparseCategoricalCrossentropy({.from_logits = true}); };
  Workload w{Sequential({layers::Input({1})}), Shape{1}, 1};
  if (name == "mlp") {
    w = {Sequential({layers::Input({784}), layers::Dense(256, {.activation = "relu"}),
                     layers::Dense(256, {.activation = "relu"}), layers::Dense(10)}),
         Shape{784}, 128};
  } else if (name == "lstm") {
    w = {Sequential({layers::Input({50, 32}), layers::LSTM(128), layers::Dense(10)}), Shape{50, 32}, 64};
  } else if (name == "bilstm") {
    w = {Sequential({layers::Input({50, 32}), layers::Bidirectional(layers::LSTM(64)), layers::Dense(10)}),
         Shape{50, 32}, 64};
  } else if (name == "cnn") {
    w = {Sequential({layers::Input({28, 28, 1}), layers::Conv2D(32, 3, {.activation = "relu"}),
                     layers::MaxPooling2D(2), layers::Conv2D(64, 3, {.activation = "relu"}),
                     layers::MaxPooling2D(2), layers::Flatten(), layers::Dropout(0.5), layers::Dense(10)}),
         Shape{28, 28, 1}, 128};
  } else if (name == "transformer") {  // the suite's: 64 steps x 64 features, 4 heads of 16
    const KerasTensor x = layers::Input({64, 64});
    const KerasTensor attended = layers::MultiHeadAttention(4, 16)({x, x})[0];
    const KerasTensor normed = layers::LayerNormalization()(layers::Add()({x, attended})[0]);
    w = {Model(x, layers::Dense(10)(layers::GlobalAveragePooling1D()(normed))), Shape{64, 64}, 32};
  } else if (name == "tiny") {  // the MLP's layers at 4 units: with --predict_one, the per-call path alone
    w = {Sequential({layers::Input({4}), layers::Dense(4, {.activation = "relu"}),
                     layers::Dense(4, {.activation = "relu"}), layers::Dense(10)}),
         Shape{4}, 128};
  } else if (name == "resnet20" || name == "mobilenet_small") {  // the suite's CNN training workloads
    const bench::Workload suite = bench::make_workload(name, cpu::num_threads(), false);
    w = {bench::build_strata_model(suite), Shape(suite.sample_shape), suite.batch_size};
  } else {
    throw ValueError("--model must be mlp, lstm, bilstm, cnn, transformer, resnet20, mobilenet_small or tiny, got '" +
                     name + "'");
  }
  w.model.compile({.optimizer = adam(), .loss = loss()});
  return w;
}

Tensor random_batch(const Shape& sample, std::int64_t rows, std::uint64_t seed) {
  std::vector<std::int64_t> dims = {rows};
  for (std::int64_t d : sample.dims()) dims.push_back(d);
  Tensor t{Shape(dims)};
  Philox rng(seed, 0);
  for (std::int64_t i = 0; i < t.size(); ++i) t.data<float>()[i] = rng.uniform(i) - 0.5f;
  return t;
}

}  // namespace

int main(int argc, char** argv) {
  std::string model_name = "mlp";
  int steps = 20;
  int threads = 1;
  bool predict_one = false, predict = false;
  std::string file, input, quantize, dtype_policy = "float32";
  cli::Flags flags("Runs Strata training steps (or batch-1 predictions) of a benchmark model, for profilers.");
  flags.add("model", &model_name, "mlp, lstm, bilstm, cnn, transformer, resnet20, mobilenet_small or tiny (the MLP at 4 units)")
      .add("steps", &steps, "training steps (or predictions) after one warm-up step")
      .add("threads", &threads, "CPU threads (1 gives the clearest profile)")
      .add("predict_one", &predict_one, "time batch-1 predict_on_batch instead of training")
      .add("predict", &predict, "time predict_on_batch of the workload's batch instead of training")
      .add("dtype_policy", &dtype_policy, "the policy the model's layers are made under (mixed_bfloat16, ...)")
      .add("quantize", &quantize, "model.quantize(MODE) before timing (\"int8\"), as bench/run's int8 section")
      .add("file", &file, "instead of --model: time predict_on_batch of this model file (.keras, .h5)...")
      .add("input", &input, "...on this batch (.npy)");
  flags.parse_or_exit(argc, argv);
  if (steps < 1) {
    std::cerr << "error: --steps must be at least 1, got " << steps << "\n";
    return 2;
  }
  try {
    cpu::set_num_threads(threads);
    if (!file.empty()) {
      if (input.empty()) throw ValueError("--file needs --input, a .npy batch");
      Model model = models::load_model(file);
      const Tensor x = io::load_npy(input);
      model.predict_on_batch(x);  // warm-up, as above
      const auto start = std::chrono::steady_clock::now();
      for (int i = 0; i < steps; ++i) model.predict_on_batch(x);
      const double seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
      std::printf("%s: %d predictions of batch %lld in %.3f s (%.3f us each)\n", file.c_str(), steps,
                  static_cast<long long>(x.shape()[0]), seconds, 1e6 * seconds / steps);
      return 0;
    }
    set_dtype_policy(dtype_policy);
    Workload w = make_workload(model_name);
    set_dtype_policy("float32");
    if (!quantize.empty()) w.model.quantize(quantize);
    const std::int64_t rows = predict_one ? 1 : w.batch_size;
    Tensor x = random_batch(w.sample, rows, 1);
    Tensor y(Shape{rows}, DType::int64);
    for (std::int64_t i = 0; i < rows; ++i) y.data<std::int64_t>()[i] = i % 10;
    auto step = [&] {
      if (predict_one || predict) {
        w.model.predict_on_batch(x);
      } else {
        w.model.train_on_batch(x, y);
      }
    };
    step();  // warm-up: graph building, buffer planning, first-touch allocation
    const auto start = std::chrono::steady_clock::now();
    for (int i = 0; i < steps; ++i) step();
    const double seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
    std::printf("%s: %d %s in %.3f s (%.3f us each)\n", model_name.c_str(), steps,
                predict_one ? "batch-1 predictions" : predict ? "predictions" : "training steps", seconds, 1e6 * seconds / steps);
    return 0;
  } catch (const Error& e) {
    std::cerr << "error: " << e.what() << "\n";
    return 1;
  }
}
