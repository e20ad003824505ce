#include "serving/task_threads.h"

#include <new>

namespace strata::serving {

TaskThreads::TaskThreads(std::size_t threads) {
  threads_.reserve(threads);
  for (std::size_t i = 0; i < threads; ++i) threads_.emplace_back([this] { run(); });
}

TaskThreads::~TaskThreads() { stop(); }

bool TaskThreads::enqueue(std::function<void()> task) noexcept {
  try {
    std::lock_guard lock(mu_);
    if (stopping_) return false;
    tasks_.push_back(std::move(task));
  } catch (const std::bad_alloc&) {
    return false;
  }
  changed_.notify_one();
  return true;
}

void TaskThreads::stop() {
  std::lock_guard stopping(stop_mu_);
  {
    std::lock_guard lock(mu_);
    stopping_ = true;
  }
  changed_.notify_all();
  for (auto& t : threads_) {
    if (t.joinable()) t.join();
  }
}

std::size_t TaskThreads::idle_threads() const {
  std::lock_guard lock(mu_);
  return tasks_.empty() ? idle_ : 0;
}

void TaskThreads::run() {
  for (;;) {
    std::function<void()> task;
    {
      std::unique_lock lock(mu_);
      ++idle_;
      changed_.wait(lock, [this] { return stopping_ || !tasks_.empty(); });
      --idle_;
      if (tasks_.empty()) return;  // stopping, and nothing left to run
      task = std::move(tasks_.front());
      tasks_.pop_front();
    }
    task();
  }
}

}  // namespace strata::serving
