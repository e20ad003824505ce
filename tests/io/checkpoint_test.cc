// Checkpoints: weights, optimizer slots, epoch/step/RNG state in one file; a save killed
// midway (SIGKILL in a forked child) leaves the previous checkpoint loadable.
#include "io/checkpoint.h"

#include <gtest/gtest.h>
#include <signal.h>
#include <sys/wait.h>
#include <unistd.h>

#include <chrono>
#include <thread>

#include "core/error.h"
#include "core/rng.h"
#include "io/hdf5.h"
#include "layers/core/dense.h"
#include "layers/core/input_layer.h"
#include "models/sequential.h"
#include "optimizers/optimizers.h"
#include "test_util.h"

namespace strata::checkpoint_test {
namespace {

Tensor ramp(Shape shape) {
  Tensor t(shape);
  auto v = t.values<float>();
  for (std::size_t i = 0; i < v.size(); ++i) v[i] = 0.1f * static_cast<float>(i % 7) - 0.3f;
  return t;
}

TEST(Checkpoint, RestoresWeightsOptimizerSlotsAndState) {
  testing::ScratchDir dir;
  set_random_seed(3);
  optimizers::Adam adam({.learning_rate = 0.01});
  Sequential m({Input({3}), layers::Dense(4, {.activation = "relu"}), layers::Dense(1)});
  m.compile({.optimizer = adam, .loss = "mse"});
  m.train_on_batch(ramp({8, 3}), ramp({8, 1}));
  m.train_on_batch(ramp({8, 3}), ramp({8, 1}));
  io::save_checkpoint(dir.file("ck.h5"), m, adam,
                      {.epoch = 2, .step = 17, .seed = 3, .shuffle_seed = 99, .stream = 5});

  set_random_seed(4);
  optimizers::Adam adam2({.learning_rate = 0.01});
  Sequential m2({Input({3}), layers::Dense(4, {.activation = "relu"}), layers::Dense(1)});
  m2.compile({.optimizer = adam2, .loss = "mse"});
  io::CheckpointState st = io::load_checkpoint(dir.file("ck.h5"), m2, adam2);
  EXPECT_EQ(st.epoch, 2);
  EXPECT_EQ(st.step, 17);
  EXPECT_EQ(st.seed, 3u);
  EXPECT_EQ(st.shuffle_seed, 99u);
  EXPECT_EQ(st.stream, 5u);
  auto a = adam.variables(), b = adam2.variables();
  ASSERT_EQ(a.size(), b.size());
  ASSERT_GT(a.size(), 2u);  // iterations, learning_rate, slots
  for (std::size_t i = 0; i < a.size(); ++i) {
    EXPECT_EQ(a[i].value().to_string(64), b[i].value().to_string(64)) << a[i].path();
  }
  EXPECT_EQ(adam2.iterations(), 2);
  // Training on continues identically.
  m.train_on_batch(ramp({8, 3}), ramp({8, 1}));
  m2.train_on_batch(ramp({8, 3}), ramp({8, 1}));
  EXPECT_EQ(m.predict(ramp({2, 3})).to_string(), m2.predict(ramp({2, 3})).to_string());
}

TEST(Checkpoint, UsesTheCompiledModelsOwnOptimizer) {
  testing::ScratchDir dir;
  Sequential m({Input({3}), layers::Dense(2)});
  m.compile({.optimizer = "rmsprop", .loss = "mse"});  // by identifier: only the model holds it
  m.train_on_batch(ramp({4, 3}), ramp({4, 2}));
  io::save_checkpoint(dir.file("ck.h5"), m, {.epoch = 1});
  Sequential m2({Input({3}), layers::Dense(2)});
  m2.compile({.optimizer = "rmsprop", .loss = "mse"});
  EXPECT_EQ(io::load_checkpoint(dir.file("ck.h5"), m2).epoch, 1);
  m.train_on_batch(ramp({4, 3}), ramp({4, 2}));
  m2.train_on_batch(ramp({4, 3}), ramp({4, 2}));
  EXPECT_EQ(m.predict(ramp({2, 3})).to_string(), m2.predict(ramp({2, 3})).to_string());
}

TEST(Checkpoint, CarriesAFitsPosition) {
  testing::ScratchDir dir;
  Sequential m({Input({3}), layers::Dense(2)});
  const FitState fit{.epoch = 3, .step = 5, .pass = 7, .pass_batch = 2, .shuffle_seed = 11,
                     .train_steps = 41};
  io::save_checkpoint(dir.file("ck.h5"), m, {}, io::checkpoint_state(fit));
  const FitState back = io::fit_state(io::load_checkpoint(dir.file("ck.h5"), m, {}));
  EXPECT_EQ(back.epoch, 3);
  EXPECT_EQ(back.step, 5);
  EXPECT_EQ(back.pass, 7u);
  EXPECT_EQ(back.pass_batch, 2);
  EXPECT_EQ(back.shuffle_seed, 11u);
  EXPECT_EQ(back.train_steps, 41);
}

// A file written before /state held pass, pass_batch and train_steps.
// A checkpoint written field by field, as version 1's first files were: weights of 0.5,
// no optimizer, and the given state datasets.
void write_checkpoint_by_hand(const std::string& path, const Model& m,
                              const std::vector<std::pair<std::string, Tensor>>& state) {
  io::h5::File f(path, io::h5::File::Mode::truncate);
  f.write_string_attribute("format", "strata-checkpoint");
  f.write_string_attribute("version", "1");
  io::h5::Group w = f.create_group("weights");
  std::vector<std::string> names;
  for (std::size_t i = 0; i < m.weights().size(); ++i) {
    names.push_back(m.weights()[i].path());
    w.create_dataset(std::to_string(i), Tensor::filled(m.weights()[i].shape(), 0.5f));
  }
  w.write_string_list_attribute("names", names);
  f.create_group("optimizer").write_string_list_attribute("names", {});
  io::h5::Group s = f.create_group("state");
  for (const auto& [name, value] : state) s.create_dataset(name, value);
  f.close();
}

Tensor one_number(std::int64_t v) { return Tensor::from_vector<std::int64_t>(Shape{}, {v}); }

TEST(Checkpoint, FileWithoutTheBatchStreamPositionLoads) {
  testing::ScratchDir dir;
  Sequential m({Input({3}), layers::Dense(2)});
  write_checkpoint_by_hand(dir.file("old.h5"), m,
                           {{"epoch", one_number(2)}, {"step", one_number(4)}, {"seed", one_number(1)},
                            {"shuffle_seed", one_number(9)}, {"stream", one_number(0)}});
  io::CheckpointState st = io::load_checkpoint(dir.file("old.h5"), m, {});
  EXPECT_EQ(st.epoch, 2);
  EXPECT_EQ(st.step, 4);
  EXPECT_EQ(st.shuffle_seed, 9u);
  EXPECT_EQ(st.pass, 2u);  // pass = epoch, pass_batch = step: an epoch is one pass
  EXPECT_EQ(st.pass_batch, 4);
  EXPECT_EQ(st.train_steps, 0);
  EXPECT_EQ(m.weights()[0].value().to_vector<float>().front(), 0.5f);
}

// Each state dataset holds one number; one damaged to declare a million is refused by
// name before it is read (libhdf5 maps a chunked dataset chunk by chunk: gigabytes for a
// million one-element chunks, the fuzzer's out-of-memory finding).
// A file that names exactly the model's variables in another order (a Model subclass's
// optimizer state from before its variables took Keras's order) is read by name: each
// variable gets its own value, not its same-shaped neighbour's.
TEST(Checkpoint, TheModelsOwnVariablesInAnotherOrderAreReadByName) {
  testing::ScratchDir dir;
  Sequential m({Input({3}), layers::Dense(3), layers::Dense(3)});  // two (3, 3) kernels, two (3,) biases
  const std::vector<Variable> weights = m.weights();
  ASSERT_EQ(weights.size(), 4u);
  {
    io::h5::File f(dir.file("reordered.h5"), io::h5::File::Mode::truncate);
    f.write_string_attribute("format", "strata-checkpoint");
    f.write_string_attribute("version", "1");
    io::h5::Group w = f.create_group("weights");
    std::vector<std::string> names;
    for (std::size_t i = 0; i < weights.size(); ++i) {  // stored in reverse, each filled with its index
      const Variable& v = weights[weights.size() - 1 - i];
      names.push_back(v.path());
      w.create_dataset(std::to_string(i), Tensor::filled(v.shape(), static_cast<float>(weights.size() - 1 - i)));
    }
    w.write_string_list_attribute("names", names);
    f.create_group("optimizer").write_string_list_attribute("names", {});
    io::h5::Group s = f.create_group("state");
    for (const char* key : {"epoch", "step", "seed", "shuffle_seed", "stream"}) s.create_dataset(key, one_number(1));
    f.close();
  }
  io::load_checkpoint(dir.file("reordered.h5"), m, {});
  for (std::size_t i = 0; i < weights.size(); ++i) {
    EXPECT_EQ(weights[i].value().to_string(64), Tensor::filled(weights[i].shape(), static_cast<float>(i)).to_string(64))
        << weights[i].path();
  }
}

TEST(Checkpoint, StateDatasetOfMoreThanOneNumberIsRefused) {
  testing::ScratchDir dir;
  Sequential m({Input({3}), layers::Dense(2)});
  write_checkpoint_by_hand(dir.file("ck.h5"), m,
                           {{"epoch", Tensor::from_vector<std::int64_t>(Shape{1000}, std::vector<std::int64_t>(1000, 2))}, {"step", one_number(4)},
                            {"seed", one_number(1)}, {"shuffle_seed", one_number(9)}, {"stream", one_number(0)}});
  EXPECT_THROW_WITH(io::load_checkpoint(dir.file("ck.h5"), m, {}), IOError, "ck.h5", "'/state/epoch'",
                    "of shape (1000,)", "it holds one number");
}

TEST(Checkpoint, MismatchedModelIsRefusedAndNothingAssigned) {
  testing::ScratchDir dir;
  Sequential m({Input({3}), layers::Dense(4)});
  io::save_checkpoint(dir.file("ck.h5"), m, {}, {});
  Sequential other({Input({5}), layers::Dense(4)});
  auto before = other.weights()[0].value().to_string(64);
  EXPECT_THROW(io::load_checkpoint(dir.file("ck.h5"), other, {}), ValueError);
  EXPECT_EQ(other.weights()[0].value().to_string(64), before);
  testing::write_bytes(dir.file("junk.h5"), "not a checkpoint");
  EXPECT_THROW(io::load_checkpoint(dir.file("junk.h5"), m, {}), IOError);
}

TEST(Checkpoint, SaveKilledMidwayLeavesPreviousCheckpointLoadable) {
  testing::ScratchDir dir;
  const std::string path = dir.file("ck.h5");
  // Big enough that a save takes a while: 8 MB of weights.
  Sequential m({Input({1024}), layers::Dense(2048)});
  for (auto& w : m.weights()) w.assign(Tensor::filled(w.shape(), 0.0f));
  io::save_checkpoint(path, m, {}, {.step = 0});
  std::int64_t newest = 0;
  for (int attempt = 0; attempt < 3; ++attempt) {
    pid_t pid = ::fork();
    ASSERT_GE(pid, 0);
    if (pid == 0) {
      // Child: save checkpoints k = 1, 2, ... whose every weight equals k, forever.
      for (std::int64_t k = 1;; ++k) {
        for (auto& w : m.weights()) w.assign(Tensor::filled(w.shape(), static_cast<float>(k)));
        io::save_checkpoint(path, m, {}, {.step = k});
      }
    }
    // Wait until the child has replaced the checkpoint at least once (a busy machine may
    // be slow), then kill it at some moment of a later save.
    const auto deadline = std::chrono::steady_clock::now() + std::chrono::seconds(60);
    std::int64_t seen = 0;
    while (seen <= newest && std::chrono::steady_clock::now() < deadline) {
      std::this_thread::sleep_for(std::chrono::milliseconds(5));
      seen = io::load_checkpoint(path, m, {}).step;
    }
    std::this_thread::sleep_for(std::chrono::milliseconds(7 + 13 * attempt));
    ::kill(pid, SIGKILL);
    int status = 0;
    ::waitpid(pid, &status, 0);
    ASSERT_TRUE(WIFSIGNALED(status));
    // Whatever moment the kill hit, the file is one whole checkpoint.
    io::CheckpointState st = io::load_checkpoint(path, m, {});
    const float k = static_cast<float>(st.step);
    newest = std::max(newest, st.step);
    for (const auto& w : m.weights()) {
      auto v = w.value().to_vector<float>();
      EXPECT_EQ(v.front(), k);
      EXPECT_EQ(v.back(), k);
    }
  }
  EXPECT_GT(newest, 0) << "the child never finished a save: the test proved nothing";
}

// A checkpoint written by an earlier Strata stays readable; it also seeds
// tests/fuzz/fuzz_checkpoint, whose model is this one. STRATA_WRITE_SEEDS=1 rewrites it.
TEST(Checkpoint, CommittedCheckpointStillLoads) {
  const std::string path = std::string(STRATA_TEST_DATA) + "/checkpoint/dense_adam.h5";
  auto make = [](optimizers::Adam& adam) {
    Sequential m({Input({3}), layers::Dense(4, {.activation = "relu"}), layers::Dense(1)});
    m.compile({.optimizer = adam, .loss = "mse"});
    return m;
  };
  if (std::getenv("STRATA_WRITE_SEEDS")) {
    set_random_seed(7);
    optimizers::Adam adam({.learning_rate = 0.01});
    Sequential m = make(adam);
    m.train_on_batch(ramp({8, 3}), ramp({8, 1}));
    m.train_on_batch(ramp({8, 3}), ramp({8, 1}));
    io::save_checkpoint(path, m, adam, {.epoch = 2, .step = 3, .seed = 7});
  }
  optimizers::Adam adam({.learning_rate = 0.01});
  Sequential m = make(adam);
  const io::CheckpointState state = io::load_checkpoint(path, m, adam);
  EXPECT_EQ(state.epoch, 2);
  EXPECT_EQ(state.step, 3);
  EXPECT_EQ(state.seed, 7u);
  EXPECT_EQ(adam.iterations(), 2);
}

}  // namespace
}  // namespace strata::checkpoint_test
