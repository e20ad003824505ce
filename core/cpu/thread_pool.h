// The CPU backend's worker threads, shared by every kernel (parallel_for and GEMM).
//
// Kernels come back to back inside a step, a few microseconds apart. A worker that sleeps
// between them pays a futex wake-up per kernel, more than a batch-1 matrix-vector
// product costs; OpenMP with a passive wait policy did exactly that. Here a worker spins
// for a short while after each task before it sleeps, so a step's kernels find it
// awake; an idle process still sleeps.
#pragma once

#include <atomic>
#include <condition_variable>
#include <cstdint>
#include <exception>
#include <memory>
#include <mutex>
#include <thread>
#include <vector>

namespace strata::cpu {

// A non-owning reference to a callable taking the task index: a parallel region
// allocates nothing. The callable must outlive the call it is passed to.
class TaskRef {
 public:
  TaskRef() = default;
  template <typename F>
  TaskRef(F& f) : object_(&f), call_([](void* o, int i) { (*static_cast<F*>(o))(i); }) {}  // NOLINT: implicit by design
  void operator()(int index) const { call_(object_, index); }

 private:
  void* object_ = nullptr;
  void (*call_)(void*, int) = nullptr;
};

class ThreadPool {
 public:
  // `threads` counts the calling thread: a pool of 2 starts one worker.
  explicit ThreadPool(int threads);
  ~ThreadPool();
  ThreadPool(const ThreadPool&) = delete;
  ThreadPool& operator=(const ThreadPool&) = delete;

  int size() const { return static_cast<int>(workers_.size()) + 1; }

  // Runs task(0) ... task(tasks - 1), task 0 (and any beyond size() - 1) on the calling
  // thread, and returns when all have finished; the first exception a task throws is rethrown here. From inside a
  // task, or while another thread is using the pool, the tasks run one after another on
  // the caller (same results: tasks never depend on which thread runs them).
  void run(int tasks, TaskRef task);

 private:
  void work(int index);
  void wake_all();

  std::vector<std::thread> workers_;
  // The generation of the current region (high bits) and its task count (low 8 bits),
  // published in one word so a worker never pairs one region's count with another's.
  std::atomic<std::uint64_t> region_{0};
  std::atomic<int> pending_{0};
  std::atomic<int> sleepers_{0};
  std::atomic<bool> stopping_{false};
  // The region's task, by value beside region_ and pending_: a worker that sees a new
  // region finds its task on the same cache line, not behind a pointer to the caller's
  // stack (one fewer line to fetch from the other core before it starts).
  TaskRef task_;
  std::mutex sleep_mutex_;
  std::condition_variable wake_;
  std::mutex busy_;
  std::mutex error_mutex_;
  std::exception_ptr error_;
};

// The process's pool, sized by set_num_threads (parallel.h).
ThreadPool& pool();

// 0 on a thread that is not one of the pool's workers, i on worker i: an index for
// per-thread scratch inside a task.
int thread_index();

}  // namespace strata::cpu
