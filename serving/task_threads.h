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

  // Queues `task`; false once stopping (the task is not run). Tasks must not throw.
  bool enqueue(std::function<void()> task);
  // Runs what is queued, then joins the threads.
  void stop();
  // Threads waiting for a task now: a task queued would start at once.
  std::size_t idle_threads() const;

 private:
  void run();

  mutable std::mutex mu_;
  std::condition_variable changed_;
  std::deque<std::function<void()>> tasks_;
  bool stopping_ = false;
  std::size_t idle_ = 0;
  std::vector<std::thread> threads_;
};

}  // namespace strata::serving
