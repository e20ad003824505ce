// The training job the data-parallel tests run under `mpirun -np N` (data_parallel_test.cc
// starts it and checks what it prints and writes). Every process trains
// distributed_test::build_model(--model) on the same data under a DataParallel; process 0
// saves the final weights to --out (a .weights.h5 file). Then every process checks that
// all processes hold bit-identical weights, and evaluates and predicts globally.
//
//   --model=mlp|custom|lstm|cnn   --out=FILE        --timeout_ms=N (DataParallelOptions::timeout)
//   --kill_rank=R --kill_step=S   process R kills itself (SIGKILL) before global step S
//   --hang_rank=R --hang_step=S   process R stops responding before global step S
//   --backup=DIR --save_freq=N    BackupAndRestore every N batches
//   --epochs=N --samples=N        (default 2 epochs of 500 samples)
//   --data=arrays|dataset         fit on arrays or on a shuffled Dataset
//   --odd_rank=R --odd_model=M     process R builds model M instead (a job at odds with itself)
// Exit status: 0 done, 1 an error (printed), 3 the processes' weights differ.
#include <signal.h>
#include <unistd.h>

#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <iostream>
#include <string>

#include "distribution/data_parallel.h"
#include "tools/cli/flags.h"
#include "models/callbacks_backup.h"
#include "strata.h"
#include "training_job.h"

using namespace strata;

namespace {

std::uint64_t weights_hash(const Model& model) {
  std::uint64_t h = 1469598103934665603ull;  // FNV-1a over every weight's bytes
  for (const auto& w : model.get_weights()) {
    const auto* p = static_cast<const unsigned char*>(w.raw_data());
    for (std::size_t i = 0; i < w.nbytes(); ++i) h = (h ^ p[i]) * 1099511628211ull;
  }
  return h;
}

int run(int argc, char** argv) {
  std::string kind = "mlp", data = "arrays", out, backup, logs;
  bool perturb_others = false, gpus = false;
  int verbose = 0;
  std::int64_t timeout_ms = 60000, samples = 500, save_freq = 1;
  std::int64_t kill_rank = -1, kill_step = -1, hang_rank = -1, hang_step = -1, odd_rank = -1;
  std::string odd_model;
  int epochs = distributed_test::kEpochs;
  cli::Flags flags("The data-parallel tests' training job (run under mpirun).");
  flags.add("model", &kind, "mlp, custom (the mlp with a custom train step), lstm or cnn")
      .add("data", &data, "arrays or dataset")
      .add("samples", &samples, "training samples")
      .add("epochs", &epochs, "passes over the data")
      .add("out", &out, "where process 0 saves the final weights")
      .add("timeout_ms", &timeout_ms, "DataParallelOptions::timeout")
      .add("backup", &backup, "BackupAndRestore directory")
      .add("save_freq", &save_freq, "backup every N batches")
      .add("kill_rank", &kill_rank, "this process kills itself...")
      .add("kill_step", &kill_step, "...before this global step")
      .add("hang_rank", &hang_rank, "this process stops responding...")
      .add("hang_step", &hang_step, "...before this global step")
      .add("odd_rank", &odd_rank, "this process builds another model...")
      .add("odd_model", &odd_model, "...this one")
      .add("perturb_others", &perturb_others, "processes other than 0 start from other weights")
      .add("logs", &logs, "every process adds a CSVLogger and a ModelCheckpoint writing here, named by process")
      .add("verbose", &verbose, "fit's verbose")
      .add("gpus", &gpus, "train on the machine's GPUs, one per process (clears STRATA_DEFAULT_DEVICE)");
  if (!flags.parse(argc, argv)) return 0;
  if (gpus) ::unsetenv("STRATA_DEFAULT_DEVICE");
  distribution::set_distribution(distribution::DataParallel({.timeout = std::chrono::milliseconds(timeout_ms)}));
  const int rank = distribution::process_index();
  if (rank == odd_rank) kind = odd_model;

  Model model = distributed_test::build_model(kind);
  auto [x, y] = distributed_test::make_data(kind, samples);
  if (perturb_others && rank != 0) {  // fit must start every process from process 0's weights
    for (const auto& v : model.weights()) {
      Tensor value = v.value();
      for (std::int64_t i = 0; i < value.size(); ++i) value.data<float>()[i] += 0.5f;
    }
  }

  std::vector<Callback> callbacks;
  if (!logs.empty()) {  // only process 0 may run these: the test looks for other processes' files
    const std::string mine = logs + "/rank" + std::to_string(rank);
    callbacks.push_back(callbacks::CSVLogger(mine + ".csv"));
    callbacks.push_back(callbacks::ModelCheckpoint(mine + ".weights.h5", {.save_weights_only = true}));
  }
  if (!backup.empty()) callbacks.push_back(callbacks::BackupAndRestore(backup, {.save_freq = save_freq}));
  callbacks.push_back(callbacks::LambdaCallback({.on_train_batch_begin = [&](std::int64_t, Logs&) {
    const std::int64_t step = model.optimizer().iterations();
    if (rank == kill_rank && step == kill_step) {
      std::fprintf(stderr, "mpi_job: process %d kills itself before step %lld\n", rank, static_cast<long long>(step));
      std::fflush(stderr);
      ::kill(::getpid(), SIGKILL);
    }
    if (rank == hang_rank && step == hang_step) {
      std::fprintf(stderr, "mpi_job: process %d stops responding before step %lld\n", rank, static_cast<long long>(step));
      std::fflush(stderr);
      for (;;) ::pause();
    }
  }}));

  History history = distributed_test::train(model, x, y, data, epochs, callbacks, verbose);
  for (const auto& [key, values] : history.history) {
    if (rank == 0) {
      std::printf("history %s", key.c_str());
      for (float v : values) std::printf(" %.9g", v);
      std::printf("\n");
    }
  }

  // Every process must hold the same weights, bit for bit.
  const std::uint64_t mine = weights_hash(model);
  std::vector<char> all;
  distribution::distribution()->communicator().all_gather(&mine, sizeof mine, all);
  bool agree = true;
  for (std::size_t r = 0; r * sizeof mine < all.size(); ++r) {
    std::uint64_t theirs = 0;
    std::memcpy(&theirs, all.data() + r * sizeof mine, sizeof mine);
    agree = agree && theirs == mine;
  }
  if (!agree) {
    std::fprintf(stderr, "mpi_job: process %d: the processes' weights differ\n", rank);
    return 3;
  }

  auto scores = model.evaluate(x, y, {.batch_size = distributed_test::kBatchSize, .verbose = 0});
  Tensor predictions = model.predict(x, {.batch_size = 64, .verbose = 0});
  const double sum = distributed_test::prediction_checksum(predictions).first;
  if (rank == 0) {
    std::printf("processes %d agree\n", distribution::num_processes());
    std::printf("communicator %s\n", distribution::distribution()->communicator().describe().c_str());
    std::printf("evaluate loss %.9g\nevaluate accuracy %.9g\n", scores["loss"], scores["accuracy"]);
    std::printf("predict rows %lld checksum %.9g\n", static_cast<long long>(predictions.shape()[0]), sum);
    if (!out.empty()) model.save_weights(out);
  }
  return 0;
}

}  // namespace

int main(int argc, char** argv) {
  try {
    return run(argc, argv);
  } catch (const std::exception& e) {
    std::fprintf(stderr, "mpi_job: process %d: %s\n", distribution::process_index(), e.what());
    return 1;
  }
}
