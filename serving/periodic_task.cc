#include "serving/periodic_task.h"

#include <chrono>

namespace strata::serving {

void PeriodicTask::start(int seconds, std::function<void()> task) {
  thread_ = std::thread([this, seconds, task = std::move(task)] {
    std::unique_lock lock(mu_);
    for (;;) {
      stop_cv_.wait_for(lock, std::chrono::seconds(seconds), [&] { return stopping_; });
      if (stopping_) return;
      lock.unlock();
      task();
      lock.lock();
    }
  });
}

PeriodicTask::~PeriodicTask() {
  {
    std::lock_guard lock(mu_);
    stopping_ = true;
  }
  stop_cv_.notify_all();
  if (thread_.joinable()) thread_.join();
}

}  // namespace strata::serving
