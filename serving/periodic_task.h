// PeriodicTask: runs a function every N seconds on a thread of its own until it is
// destroyed, which wakes the thread at once and joins it. The model directories' polls
// (ModelManager) and the config file's (ModelConfigFilePoller) run on it. The function
// must not throw: an exception leaving the thread would std::terminate the server.
#pragma once

#include <condition_variable>
#include <functional>
#include <mutex>
#include <thread>

namespace strata::serving {

class PeriodicTask {
 public:
  PeriodicTask() = default;
  ~PeriodicTask();
  PeriodicTask(const PeriodicTask&) = delete;
  PeriodicTask& operator=(const PeriodicTask&) = delete;

  // Calls `task` every `seconds` (the first time after `seconds`); once per object.
  void start(int seconds, std::function<void()> task);
  bool started() const { return thread_.joinable(); }

 private:
  std::mutex mu_;
  std::condition_variable stop_cv_;
  bool stopping_ = false;
  std::thread thread_;
};

}  // namespace strata::serving
