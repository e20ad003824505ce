// The training job the data-parallel tests run under `mpirun -np N` (data_parallel_test.cc
// starts it and checks what it prints and writes). Every process trains
// distributed_test::build_model(--model) on the same data under a DataParallel; process 0
// saves the final weights to --out (a .weights.h5 file). Then every process checks that
// all processes hold bit-identical weights, and evaluates and predicts globally.
//
//   --model=mlp|lstm|cnn    --out=FILE        --timeout_ms=N (DataParallelOptions::timeout)
//   --kill_rank=R --kill_step=S   process R kills itself (SIGKILL) before global step S
//   --hang_rank=R --hang_step=S   process R stops responding before global step S
//   --backup=DIR --save_freq=N    BackupAndRestore every N batches
//   --epochs=N --samples=N        (default 2 epochs of 500 samples)
//   --data=arrays|dataset         fit on arrays or on a shuffled Dataset
// Exit status: 0 done, 1 an error (printed), 3 the processes' weights differ.
#include <signal.h>
#include <unistd.h>

#include <cstdint>
#include <cstdio>
#include <cstring>
#include <iostream>
#include <map>
#include <string>

#include "distribution/data_parallel.h"
#include "models/callbacks_backup.h"
#include "strata.h"
#include "training_job.h"

using namespace strata;

namespace {

std::map<std::string, std::string> parse_flags(int argc, char** argv) {
  std::map<std::string, std::string> flags;
  for (int i = 1; i < argc; ++i) {
    std::string arg = argv[i];
    const auto eq = arg.find('=');
    if (arg.rfind("--", 0) != 0 || eq == std::string::npos) throw ValueError("expected --name=value, got " + arg);
    flags[arg.substr(2, eq - 2)] = arg.substr(eq + 1);
  }
  return flags;
}

std::int64_t flag_int(const std::map<std::string, std::string>& flags, const std::string& name, std::int64_t fallback) {
  auto it = flags.find(name);
  return it == flags.end() ? fallback : std::stoll(it->second);
}

std::uint64_t weights_hash(const Model& model) {
  std::uint64_t h = 1469598103934665603ull;  // FNV-1a over every weight's bytes
  for (const auto& w : model.get_weights()) {
    const auto* p = static_cast<const unsigned char*>(w.raw_data());
    for (std::size_t i = 0; i < w.nbytes(); ++i) h = (h ^ p[i]) * 1099511628211ull;
  }
  return h;
}

int run(int argc, char** argv) {
  const auto flags = parse_flags(argc, argv);
  const std::string kind = flags.count("model") ? flags.at("model") : "mlp";
  distribution::set_distribution(distribution::DataParallel(
      {.timeout = std::chrono::milliseconds(flag_int(flags, "timeout_ms", 60000))}));
  const int rank = distribution::process_index();

  Model model = distributed_test::build_model(kind);
  auto [x, y] = distributed_test::make_data(kind, flag_int(flags, "samples", 500));

  const std::int64_t kill_rank = flag_int(flags, "kill_rank", -1), kill_step = flag_int(flags, "kill_step", -1);
  const std::int64_t hang_rank = flag_int(flags, "hang_rank", -1), hang_step = flag_int(flags, "hang_step", -1);
  std::vector<Callback> callbacks;
  if (flags.count("backup")) {
    callbacks.push_back(callbacks::BackupAndRestore(flags.at("backup"), {.save_freq = flag_int(flags, "save_freq", 1)}));
  }
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

  History history = distributed_test::train(model, x, y, flags.count("data") ? flags.at("data") : "arrays",
                                             static_cast<int>(flag_int(flags, "epochs", distributed_test::kEpochs)),
                                             callbacks);
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
  double sum = 0;
  for (std::int64_t i = 0; i < predictions.size(); ++i) sum += predictions.data<float>()[i] * static_cast<double>(i % 13 + 1);
  if (rank == 0) {
    std::printf("processes %d agree\n", distribution::num_processes());
    std::printf("evaluate loss %.9g\nevaluate accuracy %.9g\n", scores["loss"], scores["accuracy"]);
    std::printf("predict rows %lld checksum %.9g\n", static_cast<long long>(predictions.shape()[0]), sum);
    if (flags.count("out")) model.save_weights(flags.at("out"));
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
