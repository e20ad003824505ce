#include "core/cpu/thread_pool.h"

#include <pthread.h>

#include <chrono>

#if defined(__x86_64__) || defined(__i386__)
#include <immintrin.h>
#endif

#include "core/cpu/parallel.h"

namespace strata::cpu {

namespace {

// How long a worker stays awake after a task: longer than the gaps between one step's
// kernels and between batch-1 predictions, and than the serial time loop of a batch-1
// recurrent layer (~150 µs for the LSTM benchmark; with 50 µs the worker slept through it
// and its wake-up added 40 µs to every prediction). It yields while it waits, so an idle
// process gives its cores away within half a millisecond.
constexpr std::chrono::microseconds kSpin{500};
// After this long a waiting thread yields its core between checks instead of pausing:
// on a busy machine the thread it waits for may need that very core.
constexpr std::chrono::microseconds kPauseOnly{3};

thread_local int t_thread_index = 0;
thread_local bool t_in_task = false;

inline void cpu_relax() {
#if defined(__x86_64__) || defined(__i386__)
  _mm_pause();
#endif
}

constexpr std::uint64_t kTaskBits = 8;
constexpr std::uint64_t kTaskMask = (std::uint64_t{1} << kTaskBits) - 1;

// Spins until `ready()` or the spin time is over; true when ready.
template <typename Ready>
bool spin_until(Ready ready) {
  const auto start = std::chrono::steady_clock::now();
  for (;;) {
    for (int i = 0; i < 32; ++i) {
      if (ready()) return true;
      cpu_relax();
    }
    const auto waited = std::chrono::steady_clock::now() - start;
    if (waited > kSpin) return ready();
    if (waited > kPauseOnly) std::this_thread::yield();
  }
}

}  // namespace

ThreadPool::ThreadPool(int threads) {
  const int workers = std::max(0, std::min(threads, static_cast<int>(kTaskMask)) - 1);
  workers_.reserve(static_cast<std::size_t>(workers));
  for (int i = 1; i <= workers; ++i) workers_.emplace_back([this, i] { work(i); });
}

ThreadPool::~ThreadPool() {
  stopping_.store(true);
  region_.fetch_add(std::uint64_t{1} << kTaskBits);
  wake_all();
  for (auto& w : workers_) w.join();
}

void ThreadPool::wake_all() {
  // Taking the mutex orders this after a worker's check-then-wait: it is either waiting
  // (and gets the notification) or has not checked the region yet.
  { std::lock_guard lock(sleep_mutex_); }
  wake_.notify_all();
}

void ThreadPool::work(int index) {
  t_thread_index = index;
  t_in_task = true;  // a kernel inside a task runs its own parallel regions serially
  std::uint64_t seen = 0;  // the region at construction: this thread may start after a run() began
  for (;;) {
    if (!spin_until([&] { return region_.load(std::memory_order_acquire) != seen; })) {
      std::unique_lock lock(sleep_mutex_);
      sleepers_.fetch_add(1);  // seq_cst, then the region load: see run()
      wake_.wait(lock, [&] { return region_.load() != seen; });
      sleepers_.fetch_sub(1);
    }
    if (stopping_.load()) return;
    seen = region_.load(std::memory_order_acquire);
    const int tasks = static_cast<int>(seen & kTaskMask);
    if (index >= tasks) continue;
    try {
      task_(index);
    } catch (...) {
      std::lock_guard lock(error_mutex_);
      if (!error_) error_ = std::current_exception();
    }
    pending_.fetch_sub(1, std::memory_order_release);
  }
}

void ThreadPool::run(int tasks, TaskRef task) {
  std::unique_lock lock(busy_, std::defer_lock);
  if (tasks <= 1 || t_in_task || !lock.try_lock()) {
    for (int i = 0; i < tasks; ++i) task(i);
    return;
  }
  // Workers take tasks 1 .. shared - 1; the caller takes task 0 and any beyond the pool.
  const int shared = std::min(tasks, size());
  task_ = task;
  error_ = nullptr;
  pending_.store(shared - 1, std::memory_order_relaxed);
  const std::uint64_t next = ((region_.load() >> kTaskBits) + 1) << kTaskBits | static_cast<std::uint64_t>(shared);
  // Both seq_cst, as are a sleeping worker's sleepers_ increment and its region load:
  // either we see it asleep and wake it, or it sees the new region and does not sleep.
  region_.store(next);
  if (sleepers_.load() > 0) wake_all();

  std::exception_ptr first;
  t_in_task = true;
  try {
    task(0);
    for (int i = shared; i < tasks; ++i) task(i);
  } catch (...) {
    first = std::current_exception();
  }
  t_in_task = false;
  // The workers' tasks reference the caller's stack: wait for them even after a throw.
  if (!spin_until([&] { return pending_.load(std::memory_order_acquire) == 0; })) {
    while (pending_.load(std::memory_order_acquire) != 0) std::this_thread::yield();
  }
  task_ = TaskRef();
  if (!first) first = error_;
  error_ = nullptr;
  lock.unlock();
  if (first) std::rethrow_exception(first);
}

namespace {

std::mutex g_pool_mutex;
std::unique_ptr<ThreadPool> g_pool;
std::atomic<ThreadPool*> g_current{nullptr};

// A forked child has none of the parent's workers: it builds a pool of its own on first
// use. The parent's pool object is abandoned, not destroyed (joining threads that do not
// exist in this process would never return).
void forget_pool_after_fork() {
  (void)g_pool.release();
  g_current.store(nullptr);
}

}  // namespace

ThreadPool& pool() {
  if (ThreadPool* p = g_current.load(std::memory_order_acquire)) {
    if (p->size() == num_threads()) return *p;
  }
  std::lock_guard lock(g_pool_mutex);
  static const bool registered = [] { return pthread_atfork(nullptr, nullptr, forget_pool_after_fork) == 0; }();
  (void)registered;
  if (!g_pool || g_pool->size() != num_threads()) {
    g_current.store(nullptr);
    g_pool.reset();  // joins the old workers first: never more threads than asked for
    g_pool = std::make_unique<ThreadPool>(num_threads());
    g_current.store(g_pool.get(), std::memory_order_release);
  }
  return *g_pool;
}

int thread_index() { return t_thread_index; }

}  // namespace strata::cpu
