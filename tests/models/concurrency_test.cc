// One model, many threads: predict from any number of threads at once returns the
// single-threaded answer bit for bit; fit while another thread predicts (and the
// reverse) is refused with an error, never a crash. This suite also runs under
// ThreadSanitizer in CI (scripts/tsan.sh).
#include <gtest/gtest.h>

#include <algorithm>
#include <atomic>
#include <cmath>
#include <condition_variable>
#include <cstdlib>
#include <cstring>
#include <mutex>
#include <string>
#include <thread>
#include <tuple>
#include <vector>

#include "../io/keras_test_util.h"
#include "io/saving.h"
#include "models/samples_apart.h"
#include "strata.h"
#include "test_data.h"

using namespace strata;

namespace concurrency_test {

namespace {

constexpr int kThreads = 8;
// 1,000 calls per thread; the ThreadSanitizer run (scripts/tsan.sh), 5-15 times slower,
// sets fewer through STRATA_CONCURRENT_CALLS.
const int kCallsPerThread = [] {
  const char* calls = std::getenv("STRATA_CONCURRENT_CALLS");
  return calls ? std::max(1, std::atoi(calls)) : 1000;
}();

bool same_bits(const Tensor& a, const Tensor& b) {
  return a.dtype() == b.dtype() && a.shape() == b.shape() && std::memcmp(a.raw_data(), b.raw_data(), a.nbytes()) == 0;
}

// Requests of batch 1, 2 and 3 cut from a golden input (every input of the model).
std::vector<std::vector<Tensor>> make_requests(const std::vector<Tensor>& inputs) {
  std::vector<std::vector<Tensor>> requests;
  const std::int64_t rows = inputs.front().shape()[0];
  std::int64_t begin = 0;
  for (std::int64_t batch : {1, 2, 3, 1}) {
    if (begin + batch > rows) begin = 0;
    std::vector<Tensor> request;
    for (const auto& in : inputs) request.push_back(in.slice_rows(begin, std::min(rows, begin + batch)));
    requests.push_back(request);
    begin += batch;
  }
  return requests;
}

// kThreads threads each call predict_on_batch (and every fourth call predict) kCallsPerThread
// times, cycling through the requests; every answer must equal the single-threaded one.
void expect_concurrent_predictions_match(Model& model, const std::vector<Tensor>& inputs) {
  const auto requests = make_requests(inputs);
  std::vector<std::vector<Tensor>> expected;
  for (const auto& r : requests) expected.push_back(model.predict_on_batch(r));

  std::atomic<int> mismatches{0}, errors{0};
  std::vector<std::string> first_error(kThreads);
  std::vector<std::thread> threads;
  for (int t = 0; t < kThreads; ++t) {
    threads.emplace_back([&, t] {
      try {
        for (int i = 0; i < kCallsPerThread; ++i) {
          const std::size_t r = static_cast<std::size_t>(t + i) % requests.size();
          std::vector<Tensor> got = i % 4 == 3 ? model.predict(requests[r], {.verbose = 0})
                                               : model.predict_on_batch(requests[r]);
          bool same = got.size() == expected[r].size();
          for (std::size_t k = 0; same && k < got.size(); ++k) same = same_bits(got[k], expected[r][k]);
          if (!same) mismatches.fetch_add(1);
        }
      } catch (const std::exception& e) {
        errors.fetch_add(1);
        first_error[static_cast<std::size_t>(t)] = e.what();
      }
    });
  }
  for (auto& th : threads) th.join();
  EXPECT_EQ(errors.load(), 0) << [&] {
    for (const auto& e : first_error)
      if (!e.empty()) return e;
    return std::string();
  }();
  EXPECT_EQ(mismatches.load(), 0) << "of " << kThreads * kCallsPerThread << " concurrent predictions";
}

void expect_concurrent_predictions_match_file(const std::string& id, const std::string& file, bool compile) {
  SCOPED_TRACE(id);
  const std::string path = strata::testing::real_models_dir() + "/" + file;
  Model model = models::load_model(path, {.compile = compile});
  auto inputs = strata::testing::load_numbered(strata::testing::real_goldens_dir() + "/" + id, "input");
  ASSERT_FALSE(inputs.empty());
  expect_concurrent_predictions_match(model, inputs);
  // And they are still Keras's answers.
  auto outs = model.predict(inputs, {.verbose = 0});
  auto golden = strata::testing::load_numbered(strata::testing::real_goldens_dir() + "/" + id, "output");
  ASSERT_EQ(outs.size(), golden.size());
  for (std::size_t i = 0; i < outs.size(); ++i) strata::testing::expect_close(outs[i], golden[i], id);
}

}  // namespace

TEST(ConcurrentPredict, KerasMlpFromEightThreadsMatchesSingleThreadedBitForBit) {
  STRATA_SKIP_WITHOUT_REAL_MODELS();
  expect_concurrent_predictions_match_file("mlp_iris_k214", "mlp_iris_k214.h5", true);
}

TEST(ConcurrentPredict, KerasLstmFromEightThreadsMatchesSingleThreadedBitForBit) {
  STRATA_SKIP_WITHOUT_REAL_MODELS();
  expect_concurrent_predictions_match_file("lstm_stacked_k224", "lstm_stacked_k224.h5", true);
}

TEST(ConcurrentPredict, KerasCnnFromEightThreadsMatchesSingleThreadedBitForBit) {
  STRATA_SKIP_WITHOUT_REAL_MODELS();
  expect_concurrent_predictions_match_file("cnn_mnist_k231", "cnn_mnist_k231.h5", true);
}

// A depthwise model predicts batches of 2 and 3 one sample at a time on the pool's threads
// (core/samples_apart.h) while seven other threads do the same, the pool busy with one of
// them at a time: every answer is still the single-threaded one.
TEST(ConcurrentPredict, ADepthwiseModelsSamplesApartFromEightThreadsMatchBitForBit) {
  auto in = Input({10, 10, 3});
  auto y = layers::Conv2D(8, 3, {.strides = 2, .padding = "same"})(in);
  y = layers::DepthwiseConv2D(3, {.padding = "same", .activation = "relu"})(y);
  y = layers::Conv2D(8, 1)(y);
  Model model(in, layers::Dense(4)(layers::GlobalAveragePooling2D()(y)));
  ASSERT_TRUE(predicts_samples_apart(model.model()));
  Tensor x(Shape{7, 10, 10, 3});
  for (std::int64_t i = 0; i < x.size(); ++i) x.data<float>()[i] = std::sin(0.37f * static_cast<float>(i));
  expect_concurrent_predictions_match(model, {x});
}

// Uncompiled: the first predict calls build the inference programs while others wait.
TEST(ConcurrentPredict, UncompiledModelBuildsItsProgramsOnceUnderConcurrentFirstCalls) {
  Model model = models::load_model(strata::testing::golden_dir() + "/multi_io_shared.keras", {.compile = false});
  auto inputs = strata::testing::load_numbered(strata::testing::golden_dir() + "/multi_io_shared", "input");
  std::vector<std::thread> threads;
  std::atomic<int> errors{0};
  std::vector<std::vector<Tensor>> got(kThreads);
  for (int t = 0; t < kThreads; ++t) {
    threads.emplace_back([&, t] {
      try {
        got[static_cast<std::size_t>(t)] = model.predict_on_batch(inputs);
      } catch (const std::exception&) {
        errors.fetch_add(1);
      }
    });
  }
  for (auto& th : threads) th.join();
  ASSERT_EQ(errors.load(), 0);
  auto golden = strata::testing::load_numbered(strata::testing::golden_dir() + "/multi_io_shared", "output");
  for (const auto& outs : got) {
    ASSERT_EQ(outs.size(), golden.size());
    for (std::size_t k = 0; k < outs.size(); ++k) {
      EXPECT_TRUE(same_bits(outs[k], got[0][k]));
      strata::testing::expect_close(outs[k], golden[k], "multi_io_shared");
    }
  }
}

namespace {

Model small_classifier() {
  auto in = Input({4});
  auto h = layers::Dense(8, {.activation = "relu"})(in);
  auto out = layers::Dense(3, {.activation = "softmax"})(h);
  Model m(in, out);
  m.compile({.optimizer = optimizers::get("adam"), .loss = "sparse_categorical_crossentropy"});
  return m;
}

// Holds a thread inside a callback until released.
struct Gate {
  std::mutex mutex;
  std::condition_variable changed;
  bool entered = false, released = false;
  void enter_and_wait() {
    std::unique_lock lock(mutex);
    entered = true;
    changed.notify_all();
    changed.wait(lock, [&] { return released; });
  }
  void wait_entered() {
    std::unique_lock lock(mutex);
    changed.wait(lock, [&] { return entered; });
  }
  void release() {
    std::lock_guard lock(mutex);
    released = true;
    changed.notify_all();
  }
};

// Holds predict in its first batch until the gate is released.
class HoldPredict : public CallbackImpl {
 public:
  explicit HoldPredict(Gate& gate) : gate_(gate) {}
  void on_predict_batch_begin(std::int64_t, Logs&) override { gate_.enter_and_wait(); }

 private:
  Gate& gate_;
};

}  // namespace

TEST(ConcurrentPredict, FitWhileAnotherThreadPredictsIsRefusedWithAClearError) {
  Model m = small_classifier();
  Tensor x, y;  // not a structured binding: lambdas capture them (clang 14)
  std::tie(x, y) = test_data::blobs(16);
  Gate gate;
  Callback hold_predict(std::make_shared<HoldPredict>(gate));
  Tensor predicted;
  std::thread predictor([&] { predicted = m.predict(x, {.verbose = 0, .callbacks = {hold_predict}}); });
  gate.wait_entered();
  try {
    m.fit(x, y, {.epochs = 1, .verbose = 0});
    ADD_FAILURE() << "fit ran while another thread was predicting";
  } catch (const Error& e) {
    const std::string msg = e.what();
    EXPECT_NE(msg.find("fit"), std::string::npos) << msg;
    EXPECT_NE(msg.find("predicting"), std::string::npos) << msg;
  }
  EXPECT_THROW(m.evaluate(x, y, {.verbose = 0}), Error);
  EXPECT_THROW(m.train_on_batch(x, y), Error);
  EXPECT_THROW(m.compile({.optimizer = optimizers::get("sgd"), .loss = "sparse_categorical_crossentropy"}), Error);
  // Other predict calls are welcome meanwhile.
  EXPECT_NO_THROW(m.predict_on_batch(x));
  gate.release();
  predictor.join();
  EXPECT_EQ(predicted.shape(), (Shape{16, 3}));
  // Once predict returned, fit runs.
  EXPECT_NO_THROW(m.fit(x, y, {.epochs = 1, .verbose = 0}));
}

TEST(ConcurrentPredict, PredictWhileAnotherThreadFitsIsRefusedWithAClearError) {
  Model m = small_classifier();
  Tensor x, y;  // not a structured binding: lambdas capture them (clang 14)
  std::tie(x, y) = test_data::blobs(16);
  Gate gate;
  Callback hold_fit = callbacks::LambdaCallback({.on_train_batch_begin = [&](std::int64_t, Logs&) { gate.enter_and_wait(); }});
  std::thread trainer([&] { m.fit(x, y, {.batch_size = 16, .epochs = 1, .verbose = 0, .callbacks = {hold_fit}}); });
  gate.wait_entered();
  try {
    m.predict_on_batch(x);
    ADD_FAILURE() << "predict ran while another thread was fitting";
  } catch (const Error& e) {
    const std::string msg = e.what();
    EXPECT_NE(msg.find("predict_on_batch"), std::string::npos) << msg;
    EXPECT_NE(msg.find("runs fit"), std::string::npos) << msg;
  }
  EXPECT_THROW(m.fit(x, y, {.epochs = 1, .verbose = 0}), Error);
  gate.release();
  trainer.join();
  EXPECT_NO_THROW(m.predict_on_batch(x));
}

// The thread that fits may predict and evaluate from its own callbacks, as in Keras.
TEST(ConcurrentPredict, CallbacksOfFitMayPredictOnTheFittingThread) {
  Model m = small_classifier();
  Tensor x, y;  // not a structured binding: lambdas capture them (clang 14)
  std::tie(x, y) = test_data::blobs(16);
  int predicted = 0;
  Callback at_epoch_end = callbacks::LambdaCallback({.on_epoch_end = [&](int, Logs&) {
    m.predict(x, {.verbose = 0});
    m.evaluate(x, y, {.verbose = 0});
    ++predicted;
  }});
  m.fit(x, y, {.epochs = 2, .verbose = 0, .callbacks = {at_epoch_end}});
  EXPECT_EQ(predicted, 2);
  // The model is free again for other threads.
  std::thread other([&] { EXPECT_NO_THROW(m.predict_on_batch(x)); });
  other.join();
}

}  // namespace concurrency_test
