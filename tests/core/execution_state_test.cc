// Plan and run state apart: one Program runs on many threads at once, each run on its own
// execution state from the Program's pool; runs that write variables take turns.
#include <gtest/gtest.h>

#include <atomic>
#include <cstring>
#include <thread>
#include <vector>

#include "core/execution_state.h"
#include "core/ops.h"
#include "core/program.h"
#include "core/variable.h"
#include "core_test_util.h"

using namespace strata;
using namespace strata::testing;

namespace execution_state_test {

namespace {

bool same_bits(const Tensor& a, const Tensor& b) {
  return a.shape() == b.shape() && a.dtype() == b.dtype() && std::memcmp(a.raw_data(), b.raw_data(), a.nbytes()) == 0;
}

}  // namespace

TEST(ExecutionState, ManyThreadsRunOneProgramAndGetTheSingleThreadedAnswers) {
  Variable w("w", uniform({16, 32}, -1, 1, 1));
  Variable v("v", uniform({32, 4}, -1, 1, 2));
  Graph g;
  Output x = g.placeholder({Shape{kUnknownDim, 16}}, "x");
  Output h = ops::tanh(ops::matmul(x, g.variable(w)));
  Output y = ops::softmax(ops::matmul(h, g.variable(v)));
  Program p(g, {x}, {y, ops::reduce_sum(h)});

  constexpr int kThreads = 8, kRuns = 300;
  std::vector<Tensor> inputs;
  std::vector<std::vector<Tensor>> expected;
  for (int i = 0; i < 5; ++i) {
    inputs.push_back(uniform({1 + i * 7, 16}, -2, 2, 10 + static_cast<std::uint64_t>(i)));  // batches differ
    expected.push_back(p.run({inputs.back()}));
  }
  std::atomic<int> mismatches{0};
  std::vector<std::thread> threads;
  for (int t = 0; t < kThreads; ++t) {
    threads.emplace_back([&, t] {
      std::vector<Tensor> results;
      for (int i = 0; i < kRuns; ++i) {
        const std::size_t k = static_cast<std::size_t>(t * 3 + i) % inputs.size();
        p.run_into({inputs[k]}, results);
        if (!same_bits(results[0], expected[k][0]) || !same_bits(results[1], expected[k][1])) mismatches.fetch_add(1);
      }
    });
  }
  for (auto& th : threads) th.join();
  EXPECT_EQ(mismatches.load(), 0) << "of " << kThreads * kRuns << " concurrent runs";
  EXPECT_GE(p.num_execution_states(), 1);
  EXPECT_LE(p.num_execution_states(), kThreads) << "a state is made only when every other one is in use";
  EXPECT_EQ(p.executions(y.node), 5 + kThreads * kRuns) << "counts add up over every state";
}

TEST(ExecutionState, OneThreadReusesOneState) {
  Graph g;
  Output x = g.placeholder({Shape{kUnknownDim, 3}}, "x");
  Program p(g, {x}, {ops::exp(x)});
  for (int i = 0; i < 100; ++i) p.run({uniform({2, 3}, -1, 1, 4)});
  EXPECT_EQ(p.num_execution_states(), 1);
}

// A step that writes a variable reads what the previous step wrote: such runs take
// turns, so 8 threads x 250 increments count exactly 2000 (a lost update counts less).
TEST(ExecutionState, RunsThatWriteVariablesTakeTurns) {
  Variable counter("counter", Tensor(Shape{}, DType::float32));
  Graph g;
  Output x = g.placeholder({Shape{}}, "x");
  Output c = g.variable(counter);
  Output update = ops::assign_add(c, x);
  Program p(g, {x}, {c}, {update});
  EXPECT_TRUE(p.writes_variables());
  constexpr int kThreads = 8, kRuns = 250;
  std::vector<std::thread> threads;
  for (int t = 0; t < kThreads; ++t) {
    threads.emplace_back([&] {
      for (int i = 0; i < kRuns; ++i) p.run({Tensor::scalar(1.f)});
    });
  }
  for (auto& th : threads) th.join();
  EXPECT_EQ(counter.value().item(), static_cast<float>(kThreads * kRuns));
}

// A Program that only reads variables does not take turns: runs that overlap get
// states of their own. Four threads start together and run 200 times each; a run takes a
// few hundred microseconds, long enough that runs overlap even on a loaded machine (one
// preempted mid-run holds its state), where 3 µs runs often never met (a write lock would
// serialize them onto one state).
TEST(ExecutionState, RunsThatOnlyReadOverlapOnStatesOfTheirOwn) {
  Variable w("w", uniform({256, 256}, -1, 1, 1));
  Graph g;
  Output x = g.placeholder({Shape{kUnknownDim, 256}}, "x");
  Program p(g, {x}, {ops::matmul(x, g.variable(w))});
  EXPECT_FALSE(p.writes_variables());
  const Tensor input = uniform({256, 256}, -1, 1, 2);
  constexpr int kThreads = 4;
  std::atomic<int> running{0};
  std::vector<std::thread> threads;
  for (int t = 0; t < kThreads; ++t) {
    threads.emplace_back([&] {
      running.fetch_add(1);
      while (running.load() < kThreads) std::this_thread::yield();
      for (int i = 0; i < 200; ++i) p.run({input});
    });
  }
  for (auto& th : threads) th.join();
  EXPECT_GT(p.num_execution_states(), 1) << "overlapping runs of a read-only Program never ran at once";
  EXPECT_LE(p.num_execution_states(), kThreads);
}

// A run that throws gives its state back: the next run on the same state works.
TEST(ExecutionState, AStateGoesBackToThePoolWhenARunThrows) {
  Graph g;
  Output x = g.placeholder({Shape{kUnknownDim, 3}}, "x");
  Output labels = g.placeholder({Shape{kUnknownDim}, DType::int64}, "labels");
  Program p(g, {x, labels}, {ops::pick(ops::exp(x), labels)});
  Tensor xv = tensor<float>({2, 3}, {0, 1, 2, 3, 4, 5});
  Tensor bad(Shape{2}, DType::int64);
  bad.data<std::int64_t>()[1] = 7;  // out of range
  for (int i = 0; i < 3; ++i) EXPECT_THROW(p.run({xv, bad}), Error);
  Tensor good(Shape{2}, DType::int64);
  good.data<std::int64_t>()[1] = 2;
  EXPECT_NEAR(p.run({xv, good})[0].item(1), std::exp(5.f), 1e-3);
  EXPECT_EQ(p.num_execution_states(), 1);
}

}  // namespace execution_state_test
