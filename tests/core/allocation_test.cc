// A steady-state step allocates nothing. This binary interposes malloc and its siblings
// (operator new and Eigen both end in them) and counts calls while `counting` is set.
#include <gtest/gtest.h>

#include <atomic>
#include <chrono>
#include <cerrno>
#include <cstdlib>
#include <thread>

#include "core/autodiff.h"
#include "core/ops.h"
#include "core/ops/optimizer_update_ops.h"
#include "core/program.h"
#include "core/rng.h"
#include "core/variable.h"

extern "C" {
void* __libc_malloc(std::size_t);
void* __libc_calloc(std::size_t, std::size_t);
void* __libc_realloc(void*, std::size_t);
void* __libc_memalign(std::size_t, std::size_t);
}

namespace {
std::atomic<bool> counting{false};
std::atomic<long> allocations{0};
inline void note() {
  if (counting.load(std::memory_order_relaxed)) allocations.fetch_add(1, std::memory_order_relaxed);
}
}  // namespace

extern "C" {
void* malloc(std::size_t n) {
  note();
  return __libc_malloc(n);
}
void* calloc(std::size_t a, std::size_t b) {
  note();
  return __libc_calloc(a, b);
}
void* realloc(void* p, std::size_t n) {
  note();
  return __libc_realloc(p, n);
}
void* aligned_alloc(std::size_t alignment, std::size_t n) {
  note();
  return __libc_memalign(alignment, n);
}
void* memalign(std::size_t alignment, std::size_t n) {
  note();
  return __libc_memalign(alignment, n);
}
int posix_memalign(void** out, std::size_t alignment, std::size_t n) {
  note();
  *out = __libc_memalign(alignment, n);
  return *out ? 0 : ENOMEM;
}
}

using namespace strata;

namespace {

struct CountAllocations {
  CountAllocations() {
    allocations = 0;
    counting = true;
  }
  ~CountAllocations() { counting = false; }
  long count() const { return allocations.load(); }
};

Tensor random_tensor(Shape shape, std::uint64_t seed, float scale) {
  Tensor t(std::move(shape));
  Philox rng(seed, 0);
  for (std::int64_t i = 0; i < t.size(); ++i) t.data<float>()[i] = scale * (rng.uniform(i) - 0.5f);
  return t;
}

}  // namespace

TEST(Allocations, TheCountingHookSeesAllocations) {
  CountAllocations scope;
  std::vector<float>* v = new std::vector<float>(1000);
  delete v;
  Tensor t(Shape{64, 64});
  EXPECT_GE(scope.count(), 3);  // operator new twice, aligned_alloc once (at least)
}

TEST(Allocations, SteadyStateTrainStepAllocatesNothing) {
  // An MLP train step at the engine level: forward, softmax cross-entropy, gradients,
  // fused Adam updates and the iteration counter. Large enough that Eigen's GEMM would
  // need heap workspace and kernels take the multi-threaded paths.
  const std::int64_t batch = 128, in = 256, hidden = 256, classes = 10;
  std::vector<Variable> weights = {Variable("w1", random_tensor({in, hidden}, 1, 0.1f)),
                                   Variable("b1", Tensor(Shape{hidden})),
                                   Variable("w2", random_tensor({hidden, classes}, 2, 0.1f)),
                                   Variable("b2", Tensor(Shape{classes}))};
  Variable lr("lr", Tensor::scalar(1e-3f));
  Variable iterations("iteration", Tensor(Shape{}, DType::int64));
  Graph g;
  Output x = g.placeholder({Shape{kUnknownDim, in}}, "x");
  Output labels = g.placeholder({Shape{kUnknownDim}, DType::int64}, "labels");
  Output h = ops::relu(ops::add(ops::matmul(x, g.variable(weights[0])), g.variable(weights[1])));
  Output logits = ops::add(ops::matmul(h, g.variable(weights[2])), g.variable(weights[3]));
  Output loss = ops::reduce_mean(ops::neg(ops::pick(ops::log_softmax(logits), labels)));
  std::vector<Output> vars;
  for (const auto& w : weights) vars.push_back(g.variable(w));
  std::vector<Output> grads = gradients(loss, vars);
  std::vector<Output> updates;
  std::vector<Variable> slots;
  for (std::size_t i = 0; i < weights.size(); ++i) {
    slots.emplace_back("m" + std::to_string(i), Tensor(weights[i].shape()));
    slots.emplace_back("v" + std::to_string(i), Tensor(weights[i].shape()));
    updates.push_back(ops::apply_adam(vars[i], g.variable(slots[slots.size() - 2]), g.variable(slots.back()), Output{},
                                      grads[i], g.variable(lr), g.variable(iterations), {}));
  }
  updates.push_back(ops::assign_add(g.variable(iterations), ops::cast(ops::constant(g, 1.f), DType::int64)));
  Program step(g, {x, labels}, {loss}, updates);

  Tensor xb = random_tensor({batch, in}, 3, 2.f);
  Tensor yb(Shape{batch}, DType::int64);
  for (std::int64_t i = 0; i < batch; ++i) yb.data<std::int64_t>()[i] = i % classes;
  std::vector<Tensor> feeds = {xb, yb};
  std::vector<Tensor> results;
  for (int i = 0; i < 5; ++i) step.run_into(feeds, results, {.training = true, .step = i});  // warm up
  float first_loss = results[0].item();

  long counted = 0;
  {
    CountAllocations scope;
    for (int i = 5; i < 105; ++i) step.run_into(feeds, results, {.training = true, .step = i});
    counted = scope.count();
  }
  EXPECT_EQ(counted, 0) << "heap allocations in 100 steady-state steps";
  EXPECT_LT(results[0].item(), first_loss);  // it really trained
  EXPECT_EQ(iterations.value().data<std::int64_t>()[0], 105);
}

// Two threads predicting at once on a warmed-up pool: each run borrows an execution
// state that already ran at this batch shape, so nothing is allocated.
TEST(Allocations, WarmedUpExecutionStatePoolAllocatesNothingAcrossThreads) {
  Variable w1("w1", random_tensor({64, 128}, 1, 0.1f)), w2("w2", random_tensor({128, 10}, 2, 0.1f));
  Graph g;
  Output x = g.placeholder({Shape{kUnknownDim, 64}}, "x");
  Output y = ops::softmax(ops::matmul(ops::relu(ops::matmul(x, g.variable(w1))), g.variable(w2)));
  Program p(g, {x}, {y});

  // Phase 1: both threads run until the pool holds two states (their runs overlapped at
  // least once; on a busy machine that can take many runs). Phase 2: each waits. Phase
  // 3: 300 counted runs each.
  std::atomic<int> phase{1};
  std::atomic<int> waiting{0};
  auto worker = [&](std::uint64_t seed) {
    std::vector<Tensor> feeds = {random_tensor({16, 64}, seed, 2.f)};
    std::vector<Tensor> results;
    while (phase.load() == 1) p.run_into(feeds, results);
    waiting.fetch_add(1);
    while (phase.load() < 3) std::this_thread::yield();
    for (int i = 0; i < 300; ++i) p.run_into(feeds, results);
  };
  std::thread a(worker, 3), b(worker, 4);
  const auto deadline = std::chrono::steady_clock::now() + std::chrono::seconds(20);
  while (p.num_execution_states() < 2 && std::chrono::steady_clock::now() < deadline)
    std::this_thread::yield();
  phase = 2;
  while (waiting.load() < 2) std::this_thread::yield();
  const int states = p.num_execution_states();
  long counted = 0;
  {
    CountAllocations scope;
    phase = 3;
    a.join();
    b.join();
    counted = scope.count();
  }
  ASSERT_EQ(states, 2) << "the two threads' runs never overlapped in 20 s of warm-up";
  EXPECT_EQ(counted, 0) << "heap allocations in 600 runs on two threads";
}
