// Training checkpoints (io/checkpoint.h, BackupAndRestore's backups) through libhdf5:
// names, counts and shapes checked before anything is assigned. The model is fixed:
// Dense(4, relu) then Dense(1) on 3 inputs, compiled with Adam, as the seed in
// tests/data/checkpoint/dense_adam.h5 (Checkpoint.CommittedCheckpointStillLoads in
// tests/io/checkpoint_test.cc reads it, and rewrites it when STRATA_WRITE_SEEDS is set).
#include "io/checkpoint.h"
#include "layers/core/dense.h"
#include "layers/core/input_layer.h"
#include "models/sequential.h"
#include "optimizers/optimizers.h"
#include "fuzz_input.h"

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  strata::fuzz::quiet_warnings();
  using namespace strata;
  static optimizers::Adam adam({.learning_rate = 0.01});
  static Sequential model = [] {
    Sequential m({Input({3}), layers::Dense(4, {.activation = "relu"}), layers::Dense(1)});
    m.compile({.optimizer = adam, .loss = "mse"});
    return m;
  }();
  const std::string path = fuzz::input_file(data, size, ".h5");
  fuzz::expect_clean_failure([&] { io::load_checkpoint(path, model, adam); });
  return 0;
}
