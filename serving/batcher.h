// Batcher: server-side batching of predict requests, as TensorFlow Serving's batching
// session does it. Requests from many connections wait in one queue; a batch thread takes
// the oldest request and every queued request whose inputs have the same per-example
// shapes, up to max_batch_size examples, waiting at most batch_timeout_micros after the
// oldest arrived for the batch to fill. The batch is concatenated along axis 0, run with
// one predict, and the results are split back into each request's rows. When that merged
// predict throws (one request's values can make it fail), each request of the batch is run
// again on its own, so each gets its own outputs or its own error.
//
// The parameters are named as TensorFlow Serving's BatchingParameters. A request of
// max_batch_size examples or more runs on its own, on the caller's thread (TensorFlow
// Serving would reject it). When the queue holds more than max_enqueued_batches full
// batches, a request is refused with UNAVAILABLE (503).
#pragma once

#include <chrono>
#include <condition_variable>
#include <cstdint>
#include <deque>
#include <functional>
#include <memory>
#include <mutex>
#include <string>
#include <thread>
#include <vector>

#include "core/tensor.h"
#include "serving/batching_parameters.h"

namespace strata::serving {

// The examples a request holds, counted in this one place for the request limit, the
// batcher and the predict chunks: its first input's leading dimension (1 for a request
// with no input or a scalar first input).
inline std::int64_t request_rows(const std::vector<Tensor>& inputs) {
  return inputs.empty() || inputs[0].rank() == 0 ? 1 : inputs[0].shape()[0];
}

class Batcher {
 public:
  using RunFn = std::function<std::vector<Tensor>(const std::vector<Tensor>&)>;

  // What the batcher has done so far (for tests and logs).
  struct Stats {
    std::int64_t requests = 0;      // requests answered through a batch
    std::int64_t batches = 0;       // predicts run
    std::int64_t merged_batches = 0;  // predicts that served more than one request
    std::int64_t largest_batch = 0;  // examples in the largest batch
    std::int64_t split_batches = 0;  // merged batches that failed and were rerun request by request
  };

  // `model_name` labels its batches' sizes in serving_metrics() (serving/metrics.h).
  Batcher(BatchingParameters params, RunFn run, std::string model_name = "");
  ~Batcher();  // finishes the queued requests, then stops the threads
  Batcher(const Batcher&) = delete;
  Batcher& operator=(const Batcher&) = delete;

  // Runs `inputs` (batch-major, one tensor per model input) as part of a batch and returns
  // this request's rows of the outputs. Blocks; rethrows what this request's predict threw.
  std::vector<Tensor> run(std::vector<Tensor> inputs);

  Stats stats() const;
  // Requests waiting in the queue now.
  std::int64_t queued() const;
  const BatchingParameters& parameters() const { return params_; }

 private:
  struct Task;
  void loop();
  std::vector<std::shared_ptr<Task>> take_batch();  // with mu_ held
  std::int64_t compatible_rows() const;             // with mu_ held
  void execute(const std::vector<std::shared_ptr<Task>>& batch);

  BatchingParameters params_;
  RunFn run_;
  std::string model_name_;
  mutable std::mutex mu_;
  std::condition_variable cv_;
  std::deque<std::shared_ptr<Task>> queue_;
  std::int64_t queued_rows_ = 0;
  bool stopping_ = false;
  Stats stats_;
  std::vector<std::thread> threads_;
};

}  // namespace strata::serving
