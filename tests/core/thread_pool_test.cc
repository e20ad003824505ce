// The CPU worker pool every kernel shares (core/cpu/thread_pool.h): each task runs once,
// exceptions reach the caller, nested and concurrent use falls back to serial, resizing
// and fork work.
#include "core/cpu/thread_pool.h"

#include <gtest/gtest.h>
#include <sys/wait.h>
#include <unistd.h>

#include <atomic>
#include <stdexcept>
#include <thread>
#include <vector>

#include "core/cpu/parallel.h"
#include "thread_count.h"

namespace strata::thread_pool_test {
namespace {

using testing::ThreadCount;

TEST(ThreadPool, RunsEveryTaskOnceOnDistinctThreads) {
  ThreadCount threads(3);
  for (int round = 0; round < 200; ++round) {
    std::vector<std::atomic<int>> runs(3);
    std::vector<int> index_seen(3, -1);
    auto task = [&](int i) {
      runs[static_cast<std::size_t>(i)].fetch_add(1);
      index_seen[static_cast<std::size_t>(i)] = cpu::thread_index();
    };
    cpu::pool().run(3, task);
    for (int i = 0; i < 3; ++i) {
      EXPECT_EQ(runs[static_cast<std::size_t>(i)].load(), 1) << "task " << i << ", round " << round;
    }
    // Task 0 runs on the caller; the others on their workers (per-thread scratch relies on it).
    EXPECT_EQ(index_seen[0], 0);
    EXPECT_EQ(index_seen[1], 1);
    EXPECT_EQ(index_seen[2], 2);
  }
}

TEST(ThreadPool, MoreTasksThanThreadsAllRun) {
  ThreadCount threads(2);
  std::vector<std::atomic<int>> runs(7);
  auto task = [&](int i) { runs[static_cast<std::size_t>(i)].fetch_add(1); };
  cpu::pool().run(7, task);
  for (int i = 0; i < 7; ++i) EXPECT_EQ(runs[static_cast<std::size_t>(i)].load(), 1) << "task " << i;
}

TEST(ThreadPool, AWorkersExceptionReachesTheCallerAndThePoolStaysUsable) {
  ThreadCount threads(2);
  auto failing = [](int i) {
    if (i == 1) throw std::runtime_error("task 1 failed");
  };
  EXPECT_THROW(cpu::pool().run(2, failing), std::runtime_error);
  auto failing_on_caller = [](int i) {
    if (i == 0) throw std::runtime_error("task 0 failed");
  };
  EXPECT_THROW(cpu::pool().run(2, failing_on_caller), std::runtime_error);
  std::atomic<int> sum{0};
  auto add = [&](int i) { sum.fetch_add(i + 1); };
  cpu::pool().run(2, add);
  EXPECT_EQ(sum.load(), 3);
}

TEST(ThreadPool, ParallelForInsideATaskRunsSeriallyAndCompletes) {
  ThreadCount threads(2);
  std::vector<std::atomic<long>> sums(2);
  auto outer = [&](int i) {
    cpu::parallel_for(
        1 << 16,
        [&](std::int64_t b, std::int64_t e) {
          for (std::int64_t j = b; j < e; ++j) sums[static_cast<std::size_t>(i)].fetch_add(j);
        },
        1);
  };
  cpu::pool().run(2, outer);
  const long expected = (1L << 16) * ((1L << 16) - 1) / 2;
  EXPECT_EQ(sums[0].load(), expected);
  EXPECT_EQ(sums[1].load(), expected);
}

TEST(ThreadPool, ConcurrentCallersFromUserThreadsBothFinish) {
  ThreadCount threads(2);
  auto work = [](long* out) {
    for (int round = 0; round < 300; ++round) {
      std::vector<long> part(2, 0);
      cpu::parallel_for(
          10000, [&](std::int64_t b, std::int64_t e) { part[b == 0 ? 0 : 1] += e - b; }, 1);
      *out += part[0] + part[1];
    }
  };
  long a = 0, b = 0;
  std::thread first(work, &a), second(work, &b);
  first.join();
  second.join();
  EXPECT_EQ(a, 300L * 10000);
  EXPECT_EQ(b, 300L * 10000);
}

TEST(ThreadPool, FollowsSetNumThreads) {
  ThreadCount threads(1);
  EXPECT_EQ(cpu::pool().size(), 1);
  cpu::set_num_threads(4);
  EXPECT_EQ(cpu::pool().size(), 4);
  std::atomic<int> ran{0};
  auto count = [&](int) { ran.fetch_add(1); };
  cpu::pool().run(4, count);
  EXPECT_EQ(ran.load(), 4);
}

TEST(ThreadPool, AForkedChildBuildsItsOwnPool) {
  ThreadCount threads(2);
  std::atomic<int> warm{0};
  auto touch = [&](int) { warm.fetch_add(1); };
  cpu::pool().run(2, touch);  // the parent's workers exist now
  const pid_t child = fork();
  ASSERT_GE(child, 0);
  if (child == 0) {
    // The parent's workers do not exist here: a pool that waited for them would hang.
    std::atomic<int> ran{0};
    auto count = [&](int) { ran.fetch_add(1); };
    cpu::pool().run(2, count);
    _exit(ran.load() == 2 ? 0 : 1);
  }
  int status = 0;
  ASSERT_EQ(waitpid(child, &status, 0), child);
  ASSERT_TRUE(WIFEXITED(status));
  EXPECT_EQ(WEXITSTATUS(status), 0);
}

}  // namespace
}  // namespace strata::thread_pool_test
