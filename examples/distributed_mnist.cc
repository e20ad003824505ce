// Data-parallel training across processes: Keras's "simple MNIST convnet" under a
// distribution::DataParallel, run with mpirun (Open MPI):
//
//   mpirun -np 2 build/examples/distributed_mnist --epochs=3
//
// Every process runs this same program. Each holds the whole model; fit splits every
// global batch of --batch_size samples between the processes, the gradients are summed
// inside the train step, and every process applies the same update, so the result is
// the one a single process would reach on the same batches. Only process 0 prints the
// progress bar and writes files (the backup, the saved model). Started without mpirun it
// trains alone. The data is Fashion-MNIST from Debian's dataset-fashion-mnist (MNIST's
// file format and shapes); --data_dir reads MNIST's own IDX files the same way.
#include <strata/strata.h>

#include <chrono>
#include <cstdio>
#include <iostream>

#include "fashion_mnist_data.h"
#include "tools/cli/flags.h"

using namespace strata;

int main(int argc, char** argv) {
  int epochs = 3;
  std::int64_t batch_size = 128;
  std::int64_t train_samples = 0;
  std::int64_t test_samples = 0;
  std::int64_t seed = 1;
  int verbose = 1;
  double timeout_seconds = 120;
  std::string data_dir, backup_dir, save_path = "distributed_mnist.keras";
  cli::Flags flags("Trains a convnet on (Fashion-)MNIST over every process of an mpirun job.");
  flags.add("epochs", &epochs, "passes over the training data")
      .add("batch_size", &batch_size, "global batch: samples per step over all processes")
      .add("train_samples", &train_samples, "use only the first N training samples (0 = all)")
      .add("test_samples", &test_samples, "use only the first N test samples (0 = all)")
      .add("seed", &seed, "global random seed (weights, shuffling, dropout)")
      .add("verbose", &verbose, "0 silent, 1 progress bar, 2 one line per epoch (process 0 only)")
      .add("timeout_seconds", &timeout_seconds, "stop with an error when peers do not answer for this long")
      .add("data_dir", &data_dir, "directory with the IDX files (default: Debian's Fashion-MNIST)")
      .add("backup_dir", &backup_dir, "BackupAndRestore directory: a killed job restarted resumes here")
      .add("save", &save_path, "where process 0 saves the trained model");
  flags.parse_or_exit(argc, argv);

  try {
    // Joins the mpirun job (one process alone without it) before compile.
    distribution::DataParallel strategy(
        {.timeout = std::chrono::milliseconds(static_cast<std::int64_t>(timeout_seconds * 1000))});
    distribution::set_distribution(strategy);
    const bool chief = distribution::is_chief();
    if (chief) {
      std::printf("%d process(es) over %s; global batch %lld\n", strategy.num_processes(),
                  strategy.communicator().describe().c_str(), static_cast<long long>(batch_size));
    }

    set_random_seed(static_cast<std::uint64_t>(seed));
    auto data = examples::load_fashion_mnist(data_dir, train_samples, test_samples, /*channel_axis=*/true);
    Model model = Sequential({
        Input({28, 28, 1}),
        layers::Conv2D(32, 3, {.activation = "relu"}),
        layers::MaxPooling2D(2),
        layers::Conv2D(64, 3, {.activation = "relu"}),
        layers::MaxPooling2D(2),
        layers::Flatten(),
        layers::Dropout(0.5),
        layers::Dense(10),
    });
    if (chief && verbose) model.summary();
    model.compile({.optimizer = optimizers::Adam({.learning_rate = 1e-3}),
                   .loss = losses::SparseCategoricalCrossentropy({.from_logits = true}),
                   .metrics = {"accuracy"}});
    std::vector<Callback> callbacks;
    if (!backup_dir.empty()) callbacks.push_back(callbacks::BackupAndRestore(backup_dir));
    const auto begin = std::chrono::steady_clock::now();
    model.fit(data.x_train, data.y_train,
              {.batch_size = batch_size, .epochs = epochs, .verbose = verbose, .callbacks = callbacks,
               .validation_split = 0.1});
    const double seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - begin).count();

    // Global: every process evaluates its share of the test set, the sums are combined.
    auto scores = model.evaluate(data.x_test, data.y_test, {.batch_size = batch_size, .verbose = 0});
    if (chief) {
      std::printf("Test accuracy: %.4f  (test loss %.4f); training took %.1f s\n", scores.at("accuracy"),
                  scores.at("loss"), seconds);
      model.save(save_path);
      std::printf("Saved the model to %s\n", save_path.c_str());
    }
    return 0;
  } catch (const Error& e) {
    std::cerr << "error (process " << distribution::process_index() << "): " << e.what() << "\n";
    return 1;
  }
}
