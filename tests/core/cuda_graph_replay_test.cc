// CUDA graph replay of a hand-built Program on cuda:0 (docs/gpu.md, "CUDA graphs"): a
// replay reads the values the host last gave the variables, whether assigned in place or
// placed anew, and a change of batch size between replays replays nothing stale. Skips
// without a GPU.
#include <gtest/gtest.h>

#include "core/cuda_graph_policy.h"
#include "core/device.h"
#include "core/ops.h"
#include "core/program.h"
#include "core/variable.h"
#include "core_test_util.h"

using namespace strata;
using namespace strata::testing;

namespace cuda_graph_replay_test {

namespace {

constexpr const char* kNoGpu = "no CUDA device on this machine (or Strata built without CUDA)";

// x · kernel (then tanh, if asked) on the CPU, for the kernel's values `kernel`.
Tensor product_on_the_cpu(const Tensor& x, const Tensor& kernel, bool tanh = false) {
  Graph g;
  Output px = g.placeholder({Shape{kUnknownDim, 8}}, "x");
  Output y = ops::matmul(px, g.variable(Variable("kernel", kernel)));
  return Program(g, {px}, {tanh ? ops::tanh(y) : y}).run({x})[0];
}

}  // namespace

TEST(CudaGraphReplay, AReplayReadsTheVariablesAsTheHostLastSetThem) {
  if (!has_cuda_device()) GTEST_SKIP() << kNoGpu;
  const ScopedCudaGraphs graphs(true);
  reset_cuda_graph_counts();
  const Device gpu = parse_device("cuda:0");
  Variable kernel("dense/kernel", uniform({8, 4}, -1, 1, 3));
  const Tensor first = kernel.value().clone();
  kernel.place_on(gpu);
  Graph g;
  Output x = g.placeholder({Shape{kUnknownDim, 8}}, "x");
  Program on_gpu(g, {x}, {ops::tanh(ops::matmul(x, g.variable(kernel)))}, {}, gpu);
  const Tensor input = uniform({5, 8}, -1, 1, 4);
  auto expected = [&](const Tensor& values) { return product_on_the_cpu(input, values, true); };
  for (int run = 0; run < 5; ++run) EXPECT_TRUE(tensors_near(on_gpu.run({input})[0], expected(first), 1e-5f)) << run;
  EXPECT_EQ(cuda_graph_counts().captures, 1);
  EXPECT_EQ(cuda_graph_counts().replays, 3);

  // Assigned in place: the graph is kept and reads the new values.
  const Tensor second = uniform({8, 4}, -1, 1, 5);
  kernel.assign(second);
  EXPECT_TRUE(tensors_near(on_gpu.run({input})[0], expected(second), 1e-5f));
  EXPECT_EQ(cuda_graph_counts().replays, 4);

  // Placed anew: the storage may have moved; either the graph is dropped or it reads
  // the same address, which holds the new values.
  const Tensor third = uniform({8, 4}, -1, 1, 6);
  kernel.place_on(Device{});
  kernel.assign(third);
  kernel.place_on(gpu);
  for (int run = 0; run < 4; ++run) EXPECT_TRUE(tensors_near(on_gpu.run({input})[0], expected(third), 1e-5f)) << run;
  EXPECT_EQ(cuda_graph_counts().refusals, 0);
}

TEST(CudaGraphReplay, AnotherBatchSizeBetweenReplaysReplaysNothingStale) {
  if (!has_cuda_device()) GTEST_SKIP() << kNoGpu;
  const ScopedCudaGraphs graphs(true);
  reset_cuda_graph_counts();
  const Device gpu = parse_device("cuda:0");
  Variable kernel("dense/kernel", uniform({8, 4}, -1, 1, 3));
  const Tensor values = kernel.value().clone();
  kernel.place_on(gpu);
  Graph g;
  Output x = g.placeholder({Shape{kUnknownDim, 8}}, "x");
  Program on_gpu(g, {x}, {ops::matmul(x, g.variable(kernel))}, {}, gpu);
  const Tensor full = uniform({8, 8}, -1, 1, 7), short_batch = uniform({3, 8}, -1, 1, 8);
  for (int run = 0; run < 4; ++run) {
    EXPECT_TRUE(tensors_near(on_gpu.run({full})[0], product_on_the_cpu(full, values), 1e-5f)) << run;
  }
  EXPECT_TRUE(tensors_near(on_gpu.run({short_batch})[0], product_on_the_cpu(short_batch, values), 1e-5f));
  for (int run = 0; run < 4; ++run) {
    // New values in the same host tensor's shape: a replay copies each run's feed in.
    const Tensor batch = uniform({8, 8}, -1, 1, 20 + static_cast<std::uint64_t>(run));
    EXPECT_TRUE(tensors_near(on_gpu.run({batch})[0], product_on_the_cpu(batch, values), 1e-5f)) << run;
  }
  // 8 rows: eager, eager, captured, replayed; 3 rows: eager; 8 rows again: the same.
  EXPECT_EQ(cuda_graph_counts().captures, 2);
  EXPECT_EQ(cuda_graph_counts().replays, 4);
}

// A step whose updates run only where a condition computed in it holds (RunIfScope: the
// LossScaleOptimizer's skipped steps) reads the condition back on the host, so it is never
// captured, and each run updates or not by that run's condition.
TEST(CudaGraphReplay, UpdatesUnderARunIfScopeRunOnlyWhereTheConditionHoldsAndAreNotCaptured) {
  if (!has_cuda_device()) GTEST_SKIP() << kNoGpu;
  const ScopedCudaGraphs graphs(true);
  reset_cuda_graph_counts();
  const Device gpu = parse_device("cuda:0");
  Variable gated("gated", tensor<float>({2}, {1, 2}));
  gated.place_on(gpu);
  Graph g;
  Output condition = g.placeholder({Shape{}}, "condition");
  Output read = g.variable(gated);
  Output update;
  {
    RunIfScope scope(g, ops::equal(condition, ops::constant(g, 1.f)));
    update = ops::assign(read, ops::mul(read, 2.f));
  }
  Program on_gpu(g, {condition}, {}, {update}, gpu);
  for (int run = 0; run < 4; ++run) on_gpu.run({Tensor::scalar(0.f)});
  EXPECT_TRUE(tensors_near(gated.value().to(Device{}), tensor<float>({2}, {1, 2}))) << "skipped where 0";
  on_gpu.run({Tensor::scalar(1.f)});
  on_gpu.run({Tensor::scalar(1.f)});
  EXPECT_TRUE(tensors_near(gated.value().to(Device{}), tensor<float>({2}, {4, 8})));
  EXPECT_EQ(cuda_graph_counts().captures, 0);
  EXPECT_EQ(cuda_graph_counts().replays, 0);
}

}  // namespace cuda_graph_replay_test
