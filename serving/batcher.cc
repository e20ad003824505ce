#include "serving/batcher.h"

#include <algorithm>
#include <cstring>
#include <future>
#include <limits>

#include "serving/errors.h"
#include "serving/metrics.h"

namespace strata::serving {

struct Batcher::Task {
  std::vector<Tensor> inputs;
  std::int64_t rows = 0;
  std::chrono::steady_clock::time_point arrived;
  std::promise<std::vector<Tensor>> result;
};

namespace {

// Same number of inputs, same dtypes, same per-example shapes: can share a batch.
bool compatible(const std::vector<Tensor>& a, const std::vector<Tensor>& b) {
  if (a.size() != b.size()) return false;
  for (std::size_t i = 0; i < a.size(); ++i) {
    if (a[i].dtype() != b[i].dtype() || a[i].rank() != b[i].rank() || a[i].rank() == 0) return false;
    if (a[i].shape().without_batch() != b[i].shape().without_batch()) return false;
  }
  return true;
}

}  // namespace

Batcher::Batcher(BatchingParameters params, RunFn run, std::string model_name)
    : params_(params), run_(std::move(run)), model_name_(std::move(model_name)) {
  if (params_.max_batch_size < 1) throw ValueError("batching: max_batch_size must be at least 1, got " + std::to_string(params_.max_batch_size));
  if (params_.batch_timeout_micros < 0) throw ValueError("batching: batch_timeout_micros must be >= 0");
  if (params_.max_enqueued_batches < 1) throw ValueError("batching: max_enqueued_batches must be at least 1");
  // The queue limit, in examples, is max_enqueued_batches * max_batch_size.
  if (params_.max_enqueued_batches > std::numeric_limits<std::int64_t>::max() / params_.max_batch_size) {
    throw ValueError("batching: max_enqueued_batches * max_batch_size (" + std::to_string(params_.max_enqueued_batches) +
                     " * " + std::to_string(params_.max_batch_size) + ") overflows a 64-bit count of examples");
  }
  if (params_.num_batch_threads <= 0) params_.num_batch_threads = std::max(1u, std::thread::hardware_concurrency());
  for (int i = 0; i < params_.num_batch_threads; ++i) threads_.emplace_back([this] { loop(); });
}

Batcher::~Batcher() {
  {
    std::lock_guard lock(mu_);
    stopping_ = true;
  }
  cv_.notify_all();
  for (auto& t : threads_) t.join();
}

std::vector<Tensor> Batcher::run(std::vector<Tensor> inputs) {
  if (inputs.empty() || inputs[0].rank() == 0) throw ValueError("batching: inputs must be batch-major tensors");
  const std::int64_t rows = request_rows(inputs);
  if (rows >= params_.max_batch_size) {  // a full batch already
    serving_metrics().record_batch(model_name_, rows);
    auto out = run_(inputs);
    std::lock_guard lock(mu_);
    ++stats_.batches;
    ++stats_.requests;
    stats_.largest_batch = std::max(stats_.largest_batch, rows);
    return out;
  }
  auto task = std::make_shared<Task>();
  task->inputs = std::move(inputs);
  task->rows = rows;
  task->arrived = std::chrono::steady_clock::now();
  auto future = task->result.get_future();
  {
    std::lock_guard lock(mu_);
    if (stopping_) throw unavailable("the server is shutting down");
    if (queued_rows_ + rows > params_.max_enqueued_batches * params_.max_batch_size) {
      throw unavailable("the batch queue is full (" + std::to_string(params_.max_enqueued_batches) +
                        " batches of " + std::to_string(params_.max_batch_size) + " examples); retry later");
    }
    queue_.push_back(task);
    queued_rows_ += rows;
  }
  cv_.notify_all();
  return future.get();
}

Batcher::Stats Batcher::stats() const {
  std::lock_guard lock(mu_);
  return stats_;
}

std::int64_t Batcher::queued() const {
  std::lock_guard lock(mu_);
  return static_cast<std::int64_t>(queue_.size());
}

std::int64_t Batcher::compatible_rows() const {
  std::int64_t rows = 0;
  for (const auto& t : queue_) {
    if (compatible(t->inputs, queue_.front()->inputs)) rows += t->rows;
  }
  return rows;
}

std::vector<std::shared_ptr<Batcher::Task>> Batcher::take_batch() {
  std::vector<std::shared_ptr<Task>> batch;
  std::int64_t rows = 0;
  const auto& first = queue_.front()->inputs;
  for (auto it = queue_.begin(); it != queue_.end();) {
    if (!compatible((*it)->inputs, first)) {
      ++it;
      continue;
    }
    if (rows + (*it)->rows > params_.max_batch_size) break;
    rows += (*it)->rows;
    batch.push_back(*it);
    it = queue_.erase(it);
  }
  queued_rows_ -= rows;
  return batch;
}

void Batcher::loop() {
  std::unique_lock lock(mu_);
  for (;;) {
    cv_.wait(lock, [&] { return stopping_ || !queue_.empty(); });
    if (queue_.empty()) return;  // stopping, and nothing left to do
    const auto deadline = queue_.front()->arrived + std::chrono::microseconds(params_.batch_timeout_micros);
    while (!stopping_ && !queue_.empty() && compatible_rows() < params_.max_batch_size &&
           std::chrono::steady_clock::now() < deadline) {
      cv_.wait_until(lock, deadline);
    }
    if (queue_.empty()) continue;  // another thread took it
    auto batch = take_batch();
    stats_.requests += static_cast<std::int64_t>(batch.size());
    ++stats_.batches;
    if (batch.size() > 1) ++stats_.merged_batches;
    std::int64_t rows = 0;
    for (const auto& t : batch) rows += t->rows;
    stats_.largest_batch = std::max(stats_.largest_batch, rows);
    lock.unlock();
    serving_metrics().record_batch(model_name_, rows);
    execute(batch);
    lock.lock();
  }
}

void Batcher::execute(const std::vector<std::shared_ptr<Task>>& batch) {
  // Runs one request alone and answers it with its outputs or its error.
  auto run_alone = [this](Task& t) {
    try {
      t.result.set_value(run_(t.inputs));
    } catch (...) {
      t.result.set_exception(std::current_exception());
    }
  };
  if (batch.size() == 1) {
    run_alone(*batch[0]);
    return;
  }
  std::vector<Tensor> outputs;
  try {
    std::int64_t rows = 0;
    for (const auto& t : batch) rows += t->rows;
    std::vector<Tensor> inputs;
    for (std::size_t i = 0; i < batch[0]->inputs.size(); ++i) {
      const Tensor& proto = batch[0]->inputs[i];
      Tensor joined(proto.shape().with_dim(0, rows), proto.dtype());
      auto* dst = static_cast<char*>(joined.raw_data());
      for (const auto& t : batch) {
        std::memcpy(dst, t->inputs[i].raw_data(), t->inputs[i].nbytes());
        dst += t->inputs[i].nbytes();
      }
      inputs.push_back(std::move(joined));
    }
    outputs = run_(inputs);
  } catch (...) {
    {
      std::lock_guard lock(mu_);
      ++stats_.split_batches;
    }
    // One request's values (an index out of range, say) fail the whole merged predict:
    // run each request on its own, so that only the bad one gets the error.
    for (const auto& t : batch) run_alone(*t);
    return;
  }
  std::int64_t begin = 0;
  for (const auto& t : batch) {
    try {
      std::vector<Tensor> mine;
      for (const auto& o : outputs) mine.push_back(o.slice_rows(begin, begin + t->rows));
      t->result.set_value(std::move(mine));
    } catch (...) {
      t->result.set_exception(std::current_exception());
    }
    begin += t->rows;
  }
}

}  // namespace strata::serving
