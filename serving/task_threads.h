// TaskThreads: a fixed number of threads running queued tasks in order. The HTTP server's
// connections are served on it; unlike httplib's own pool it outlives httplib's listen
// loop, so connections parked idle (serving/idle_connections.h) can come back to it.
#pragma once

#include <condition_variable>
#include <cstddef>
#include <deque>
#include <functional>
#include <mutex>
#include <thread>
#include <vector>

namespace strata::serving {

class TaskThreads {
 public:
  explicit TaskThreads(std::size_t threads);
  ~TaskThreads();  // stop()
  TaskThreads(const TaskThreads&) = delete;
  TaskThreads& operator=(const TaskThreads&) = delete;

  // Queues `task`; false once stopping, or when it could not be queued (out of memory):
  // then it is not run. Tasks must not throw.
  bool enqueue(std::function<void()> task) noexcept;
  // Runs what is queued, then joins the threads. Safe to call from several threads.
  void stop();
  // Threads waiting for a task now: a task queued would start at once.
  std::size_t idle_threads() const;

 private:
  void run();

  mutable std::mutex mu_;
  std::mutex stop_mu_;  // one stop() joins at a time
  std::condition_variable changed_;
  std::deque<std::function<void()>> tasks_;
  bool stopping_ = false;
  std::size_t idle_ = 0;
  std::vector<std::thread> threads_;
};

}  // namespace strata::serving
