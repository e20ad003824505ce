// Keras's guide "Writing a training loop from scratch" in C++ (docs/extending.md): the
// guide's MLP (784 -> 64 relu -> 64 relu -> 10 logits), Adam, sparse categorical
// crossentropy from logits, batches of 32, the last 10,000 training samples held out for
// validation, a training and a validation accuracy metric reset every epoch. The guide
// uses MNIST's digits; Debian packages Fashion-MNIST, which has the same shapes.
//
// Where Keras records each step under GradientTape, the step here is built once from
// symbolic tensors into a Program (forward, loss, gradients, Adam's updates) and run at
// every batch; the validation step likewise. Then the same model is trained by fit from
// the same initial weights, and the two times per step are printed side by side.
#include <strata/strata.h>

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <iostream>
#include <numeric>
#include <random>
#include <vector>

#include "fashion_mnist_data.h"
#include "tools/cli/flags.h"

using namespace strata;

namespace {

Model build_model() {
  KerasTensor inputs = Input({784}, {.name = "digits"});
  KerasTensor x = layers::Dense(64, {.activation = "relu"})(inputs);
  x = layers::Dense(64, {.activation = "relu"})(x);
  return Model(inputs, layers::Dense(10)(x));
}

double seconds_since(std::chrono::steady_clock::time_point start) {
  return std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
}

}  // namespace

int main(int argc, char** argv) {
  int epochs = 2;
  std::int64_t batch_size = 32;
  std::int64_t train_samples = 0;  // 0 = all 60,000 (50,000 to train, 10,000 to validate)
  std::int64_t seed = 1;
  int verbose = 1;
  std::string data_dir;
  cli::Flags flags("Keras's training loop from scratch on Fashion-MNIST, then fit on the same model, timed.");
  flags.add("epochs", &epochs, "passes over the training data")
      .add("batch_size", &batch_size, "samples per step")
      .add("train_samples", &train_samples, "use only the first N training samples (0 = all)")
      .add("seed", &seed, "global random seed (weights, shuffling)")
      .add("verbose", &verbose, "0 prints only the summary lines, 1 the guide's logs too")
      .add("data_dir", &data_dir, "directory with the Fashion-MNIST files (default: Debian's)");
  flags.parse_or_exit(argc, argv);

  try {
    set_random_seed(static_cast<std::uint64_t>(seed));
    auto data = examples::load_fashion_mnist(data_dir, train_samples);
    const Tensor all_x = ops::reshape(data.x_train, {-1, 784});
    const std::int64_t n_all = all_x.shape()[0];
    // Keras's guide: x_val = x_train[-10000:]; here at most a sixth when fewer samples are used.
    const std::int64_t n_val = std::min<std::int64_t>(10000, n_all / 6), n = n_all - n_val;
    const Tensor x_train = all_x.slice_rows(0, n), y_train = data.y_train.slice_rows(0, n);
    const Tensor x_val = all_x.slice_rows(n, n_all), y_val = data.y_train.slice_rows(n, n_all);

    Model model = build_model();
    const std::vector<Tensor> initial_weights = model.get_weights();
    optimizers::Optimizer optimizer = optimizers::Adam({.learning_rate = 1e-3});
    losses::Loss loss_fn = losses::SparseCategoricalCrossentropy({.from_logits = true});
    metrics::Metric train_acc_metric = metrics::SparseCategoricalAccuracy();
    metrics::Metric val_acc_metric = metrics::SparseCategoricalAccuracy();

    // The training step, built once: the guide's train_step under GradientTape.
    Graph train_graph;
    Output x = train_graph.placeholder({Shape{kUnknownDim, 784}, DType::float32}, "x");
    Output y = train_graph.placeholder({Shape{kUnknownDim}, DType::int64}, "y");
    Output logits = model.impl().call(train_graph, {x})[0];
    Output loss_value = loss_fn(y, logits);
    std::vector<Variable> weights = model.trainable_weights();
    std::vector<Output> grads = gradients(loss_value, weights);                  // tape.gradient(loss_value, weights)
    std::vector<Output> updates = optimizer.apply(train_graph, grads, weights);  // optimizer.apply(grads, weights)
    std::vector<Output> train_fetches{loss_value};
    for (const Output& statistic : train_acc_metric.build(y, logits)) train_fetches.push_back(statistic);
    Program train_step(train_graph, {x, y}, train_fetches, updates);

    // The validation step: the guide's test_step (inference mode, no update).
    Graph test_graph;
    Output vx = test_graph.placeholder({Shape{kUnknownDim, 784}, DType::float32}, "x");
    Output vy = test_graph.placeholder({Shape{kUnknownDim}, DType::int64}, "y");
    Program test_step(test_graph, {vx, vy}, val_acc_metric.build(vy, model.impl().call(test_graph, {vx})[0]));

    // The loop: shuffled batches each epoch (the guide's tf.data shuffle), one run per batch.
    std::mt19937_64 shuffle(static_cast<std::uint64_t>(seed));
    std::vector<std::int64_t> order(static_cast<std::size_t>(n));
    std::iota(order.begin(), order.end(), 0);
    std::int64_t step = 0;
    double loop_seconds = 0;
    const int train_nodes = train_graph.num_nodes();
    for (int epoch = 0; epoch < epochs; ++epoch) {
      if (verbose) std::printf("\nStart of epoch %d\n", epoch);
      std::shuffle(order.begin(), order.end(), shuffle);
      const auto start = std::chrono::steady_clock::now();
      for (std::int64_t begin = 0, batch = 0; begin < n; begin += batch_size, ++batch) {
        const std::span<const std::int64_t> rows(order.data() + begin,
                                                 static_cast<std::size_t>(std::min(batch_size, n - begin)));
        std::vector<Tensor> out =
            train_step.run({x_train.gather_rows(rows), y_train.gather_rows(rows)}, {.training = true, .step = step++});
        train_acc_metric.update({out.begin() + 1, out.end()});
        if (verbose && batch % 200 == 0)
          std::printf("Training loss (for 1 batch) at step %lld: %.4f\nSeen so far: %lld samples\n",
                      static_cast<long long>(batch), out[0].item(), static_cast<long long>(begin + rows.size()));
      }
      loop_seconds += seconds_since(start);
      std::printf("Training acc over epoch %d: %.4f\n", epoch, train_acc_metric.result());
      train_acc_metric.reset();
      for (std::int64_t begin = 0; begin < n_val; begin += batch_size) {
        const std::int64_t end = std::min(begin + batch_size, n_val);
        val_acc_metric.update(test_step.run({x_val.slice_rows(begin, end), y_val.slice_rows(begin, end)}));
      }
      std::printf("Validation acc: %.4f\n", val_acc_metric.result());
      val_acc_metric.reset();
    }
    if (train_graph.num_nodes() != train_nodes) {
      std::cerr << "error: the training loop added graph nodes\n";
      return 1;
    }

    // The same model from the same initial weights, trained by fit, for the time per step.
    model.set_weights(initial_weights);
    model.compile({.optimizer = optimizers::Adam({.learning_rate = 1e-3}),
                   .loss = losses::SparseCategoricalCrossentropy({.from_logits = true}),
                   .metrics = {"accuracy"}});
    // Timed as the loop is, over the epochs only (fit builds its programs before the first).
    double fit_seconds = 0;
    std::chrono::steady_clock::time_point epoch_start;
    Callback epoch_timer = callbacks::LambdaCallback(
        {.on_epoch_begin = [&](int, Logs&) { epoch_start = std::chrono::steady_clock::now(); },
         .on_epoch_end = [&](int, Logs&) { fit_seconds += seconds_since(epoch_start); }});
    History history = model.fit(x_train, y_train,
                                {.batch_size = batch_size, .epochs = epochs, .verbose = 0, .callbacks = {epoch_timer}});
    const std::int64_t steps_per_epoch = (n + batch_size - 1) / batch_size;
    const double loop_ms = 1e3 * loop_seconds / static_cast<double>(epochs * steps_per_epoch);
    const double fit_ms = 1e3 * fit_seconds / static_cast<double>(epochs * steps_per_epoch);
    std::printf("fit's training acc over the last epoch: %.4f\n", history.history.at("accuracy").back());
    std::printf("time per step: loop %.3f ms, fit %.3f ms (loop / fit = %.2f)\n", loop_ms, fit_ms, loop_ms / fit_ms);
    return 0;
  } catch (const Error& e) {
    std::cerr << "error: " << e.what() << "\n";
    return 1;
  }
}
