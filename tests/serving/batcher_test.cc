// Server-side batching: requests from many threads are merged into batches, each request
// gets its own rows back, and answers equal unbatched predictions.
#include "serving/batcher.h"

#include <gtest/gtest.h>

#include <atomic>
#include <filesystem>
#include <thread>

#include "layers/core/embedding.h"
#include "layers/core/input_layer.h"
#include "models/model.h"
#include "serving/errors.h"
#include "serving/rest_handler.h"
#include "serving_test_util.h"

namespace strata::serving::batcher_test {
namespace {

using namespace testing;

// y = 2x + 1, recording the size of every batch it is called with.
struct Doubler {
  std::vector<Tensor> operator()(const std::vector<Tensor>& x) {
    {
      std::lock_guard lock(mu);
      sizes.push_back(x[0].shape()[0]);
    }
    Tensor y(x[0].shape(), DType::float32);
    for (std::int64_t i = 0; i < x[0].size(); ++i) y.data<float>()[i] = 2 * x[0].data<float>()[i] + 1;
    return {y};
  }
  std::mutex mu;
  std::vector<std::int64_t> sizes;
};

TEST(Batcher, ReadsTensorFlowServingsBatchingParametersFile) {
  auto p = parse_batching_parameters(R"(
    max_batch_size { value: 128 }   # examples
    batch_timeout_micros { value: 0 }
    max_enqueued_batches { value: 1000000 }
    num_batch_threads { value: 8 }
    allowed_batch_sizes : 64
    pad_variable_length_inputs: true
  )");
  EXPECT_EQ(p.max_batch_size, 128);
  EXPECT_EQ(p.batch_timeout_micros, 0);
  EXPECT_EQ(p.max_enqueued_batches, 1000000);
  EXPECT_EQ(p.num_batch_threads, 8);
  EXPECT_EQ(parse_batching_parameters("").max_batch_size, 32);
  EXPECT_THROW(parse_batching_parameters("max_batch_size { value: x }"), ValueError);
  EXPECT_THROW(parse_batching_parameters("max_batch_sise { value: 4 }"), ValueError);
  EXPECT_THROW(parse_batching_parameters("max_batch_size { value: 4 } }"), ValueError);
}

TEST(Batcher, RequestsFromManyThreadsShareOneBatchAndGetTheirOwnRows) {
  Doubler doubler;
  // A long timeout: the batch runs as soon as it holds 8 examples.
  Batcher batcher({.max_batch_size = 8, .batch_timeout_micros = 10'000'000, .num_batch_threads = 1},
                  [&](const std::vector<Tensor>& x) { return doubler(x); });
  std::vector<std::thread> threads;
  std::atomic<int> wrong{0};
  for (int t = 0; t < 8; ++t) {
    threads.emplace_back([&, t] {
      auto y = batcher.run({Tensor::from_vector<float>({1, 3}, {float(t), float(10 * t), float(100 * t)})});
      if (y.size() != 1 || y[0].shape() != Shape{1, 3} || y[0].data<float>()[0] != 2 * t + 1 ||
          y[0].data<float>()[2] != 200 * t + 1) {
        ++wrong;
      }
    });
  }
  for (auto& t : threads) t.join();
  EXPECT_EQ(wrong, 0);
  EXPECT_EQ(doubler.sizes, std::vector<std::int64_t>{8});
  auto stats = batcher.stats();
  EXPECT_EQ(stats.requests, 8);
  EXPECT_EQ(stats.batches, 1);
  EXPECT_EQ(stats.merged_batches, 1);
  EXPECT_EQ(stats.largest_batch, 8);
}

TEST(Batcher, TimeoutRunsAPartialBatch) {
  Doubler doubler;
  Batcher batcher({.max_batch_size = 64, .batch_timeout_micros = 2000, .num_batch_threads = 1},
                  [&](const std::vector<Tensor>& x) { return doubler(x); });
  auto y = batcher.run({Tensor::from_vector<float>({2, 1}, {1, 2})});
  EXPECT_EQ(y[0].to_vector<float>(), (std::vector<float>{3, 5}));
  EXPECT_EQ(doubler.sizes, std::vector<std::int64_t>{2});
}

// The one batch thread is held inside a first request's predict until the test opens the
// gate, so requests sent meanwhile are all queued before the thread takes the next batch.
struct GatedDoubler {
  std::vector<Tensor> operator()(const std::vector<Tensor>& x) {
    ++entered;
    std::lock_guard lock(gate);
    return doubler(x);
  }
  Doubler doubler;
  std::mutex gate;
  std::atomic<int> entered{0};
};

// Sends `a` and `b` while the batch thread is busy, waits until both are queued, then lets
// the thread run; returns the batch sizes it ran after the blocking request.
std::vector<std::int64_t> queue_both_then_run(Tensor a, Tensor b, Batcher::Stats* stats) {
  GatedDoubler gated;
  gated.gate.lock();
  Batcher batcher({.max_batch_size = 4, .batch_timeout_micros = 0, .num_batch_threads = 1},
                  [&](const std::vector<Tensor>& x) { return gated(x); });
  std::thread blocker([&] { batcher.run({Tensor::filled({1, 7}, 1)}); });
  while (gated.entered == 0) std::this_thread::sleep_for(std::chrono::milliseconds(1));
  std::thread ta([&] { batcher.run({a}); });
  std::thread tb([&] { batcher.run({b}); });
  while (batcher.queued() < 2) std::this_thread::sleep_for(std::chrono::milliseconds(1));
  gated.gate.unlock();
  blocker.join();
  ta.join();
  tb.join();
  *stats = batcher.stats();
  return std::vector<std::int64_t>(gated.doubler.sizes.begin() + 1, gated.doubler.sizes.end());
}

TEST(Batcher, DifferentShapesAreNotMergedAndBigRequestsRunAlone) {
  Batcher::Stats stats;
  // Both queued at once: the same per-example shape is merged (the setup can merge)...
  EXPECT_EQ(queue_both_then_run(Tensor::filled({1, 3}, 1), Tensor::filled({2, 3}, 1), &stats),
            (std::vector<std::int64_t>{3}));
  EXPECT_EQ(stats.merged_batches, 1);
  // ... and different ones are not.
  EXPECT_EQ(queue_both_then_run(Tensor::filled({1, 3}, 1), Tensor::filled({1, 5}, 1), &stats),
            (std::vector<std::int64_t>{1, 1}));
  EXPECT_EQ(stats.merged_batches, 0);
  EXPECT_EQ(stats.batches, 3);

  Doubler doubler;
  Batcher batcher({.max_batch_size = 4, .batch_timeout_micros = 20'000, .num_batch_threads = 1},
                  [&](const std::vector<Tensor>& x) { return doubler(x); });
  auto y = batcher.run({Tensor::filled({6, 2}, 1)});  // over max_batch_size: on its own
  EXPECT_EQ(y[0].shape(), (Shape{6, 2}));
  EXPECT_EQ(doubler.sizes, (std::vector<std::int64_t>{6}));
  EXPECT_EQ(batcher.stats().merged_batches, 0);
}

TEST(Batcher, ABatchThatFailsForEveryRequestFailsEachAndTheBatcherGoesOn) {
  std::atomic<bool> fail{true};
  Batcher batcher({.max_batch_size = 2, .batch_timeout_micros = 10'000'000, .num_batch_threads = 1},
                  [&](const std::vector<Tensor>& x) -> std::vector<Tensor> {
                    if (fail) throw ShapeError("bad batch");
                    return x;
                  });
  std::atomic<int> errors{0};
  std::vector<std::thread> threads;
  for (int t = 0; t < 2; ++t) {
    threads.emplace_back([&] {
      try {
        batcher.run({Tensor::filled({1, 1}, 1)});
      } catch (const ShapeError&) {
        ++errors;
      }
    });
  }
  for (auto& t : threads) t.join();
  EXPECT_EQ(errors, 2);  // each failed again when run alone
  fail = false;
  EXPECT_EQ(batcher.run({Tensor::filled({2, 1}, 7)})[0].shape(), (Shape{2, 1}));
}

TEST(Batcher, AFullQueueIsUnavailable) {
  std::mutex gate;
  gate.lock();  // the one batch thread blocks until the test opens the gate
  Batcher batcher({.max_batch_size = 2, .batch_timeout_micros = 0, .num_batch_threads = 1, .max_enqueued_batches = 1},
                  [&](const std::vector<Tensor>& x) {
                    std::lock_guard lock(gate);
                    return x;
                  });
  std::vector<std::thread> threads;
  std::atomic<int> ok{0}, unavailable{0};
  for (int t = 0; t < 6; ++t) {
    threads.emplace_back([&] {
      try {
        batcher.run({Tensor::filled({1, 1}, 1)});
        ++ok;
      } catch (const ServingError& e) {
        if (e.http_status() == 503) ++unavailable;
      }
    });
    std::this_thread::sleep_for(std::chrono::milliseconds(20));
  }
  gate.unlock();
  for (auto& t : threads) t.join();
  EXPECT_EQ(ok + unavailable, 6);
  EXPECT_GE(unavailable, 1);  // at most one batch running plus one queued
  EXPECT_GE(ok, 2);
}

TEST(Batcher, ConcurrentPredictRequestsAreBatchedAndMatchKeras) {
  ModelDir dir;
  dir.add_version(1, "functional_mlp", ".keras");
  ModelRegistry models({.name = "m",
                        .base_path = dir.path(),
                        .file_system_poll_wait_seconds = 0,
                        .batching = BatchingParameters{.max_batch_size = 16, .batch_timeout_micros = 5000,
                                                       .num_batch_threads = 2}});
  RestHandler handler(models);
  Tensor x = load_numbered(golden("functional_mlp"), "input")[0];
  Tensor y = load_numbered(golden("functional_mlp"), "output")[0];
  constexpr int kThreads = 16, kRequests = 20;
  std::vector<std::thread> threads;
  std::atomic<int> failed{0};
  std::vector<std::string> bodies(kThreads * kRequests);
  for (int t = 0; t < kThreads; ++t) {
    threads.emplace_back([&, t] {
      for (int k = 0; k < kRequests; ++k) {
        const std::int64_t i = (t + k) % 5;  // one example per request: row i of the goldens
        RestResponse r = handler.handle("POST", "/v1/models/m:predict", json{{"instances", {row_json(x, i)}}}.dump());
        if (r.status != 200) ++failed;
        bodies[t * kRequests + k] = std::to_string(i) + " " + r.body;
      }
    });
  }
  for (auto& t : threads) t.join();
  ASSERT_EQ(failed, 0);
  for (const auto& b : bodies) {
    const std::int64_t i = std::stoll(b.substr(0, b.find(' ')));
    Tensor got = tensor_from_json(json::parse(b.substr(b.find(' ') + 1))["predictions"], Shape{1, 3});
    expect_close(got, y.slice_rows(i, i + 1), "row " + std::to_string(i));
  }
  auto stats = models.find("m")->latest()->batcher()->stats();
  EXPECT_EQ(stats.requests, kThreads * kRequests);
  EXPECT_GT(stats.merged_batches, 0) << "no batch served more than one request";
  EXPECT_LT(stats.batches, kThreads * kRequests);
  EXPECT_LE(stats.largest_batch, 16);
}

TEST(Batcher, OneBadRequestInAMergedBatchFailsAloneAndTheOthersGetTheirPredictions) {
  // An Embedding over 10 ids: id 99 makes predict throw, for the whole merged batch.
  ModelDir dir;
  auto ids = Input({2}, {.dtype = DType::int32, .name = "ids"});
  Model model(ids, layers::Embedding(10, 3, {.name = "embed"})(ids), {.name = "embedder"});
  std::filesystem::create_directories(dir.path() + "/1");
  model.save(dir.path() + "/1/model.keras");
  const Tensor expected = model.predict(Tensor::from_vector<std::int32_t>({1, 2}, {1, 2}), {.verbose = 0});
  // Two one-example requests fill a batch of 2 at once; the timeout never passes.
  ModelRegistry models({.name = "m",
                        .base_path = dir.path(),
                        .file_system_poll_wait_seconds = 0,
                        .batching = BatchingParameters{.max_batch_size = 2, .batch_timeout_micros = 60'000'000,
                                                       .num_batch_threads = 1}});
  ASSERT_TRUE(models.find("m")->latest()) << models.find("m")->unavailable_reason();
  RestHandler handler(models);
  RestResponse good, bad;
  std::thread a([&] { good = handler.handle("POST", "/v1/models/m:predict", R"({"instances": [[1, 2]]})"); });
  std::thread b([&] { bad = handler.handle("POST", "/v1/models/m:predict", R"({"instances": [[1, 99]]})"); });
  a.join();
  b.join();
  ASSERT_EQ(good.status, 200) << good.body;
  expect_close(tensor_from_json(json::parse(good.body)["predictions"], Shape{1, 2, 3}), expected, "the valid request");
  EXPECT_EQ(bad.status, 400) << bad.body;
  EXPECT_NE(bad.body.find("token id 99"), std::string::npos) << bad.body;
  auto stats = models.find("m")->latest()->batcher()->stats();
  EXPECT_EQ(stats.merged_batches, 1) << "the two requests were not in one batch";
  EXPECT_EQ(stats.split_batches, 1);
}

}  // namespace
}  // namespace strata::serving::batcher_test
