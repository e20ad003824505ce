// When an execution state on a GPU captures a CUDA graph, replays it or runs eagerly
// (core/cuda_graph_policy.h): host logic, checked in every build over sequences of fed
// shapes, modes and addresses. That a replay computes what the eager run does is for
// tests/models/cuda_graphs_test.cc, on a GPU.
#include "core/cuda_graph_policy.h"

#include <gtest/gtest.h>

#include <string>
#include <vector>

#include "core/op_registry.h"

using namespace strata;

namespace cuda_graph_policy_test {

namespace {

std::vector<Tensor> batch(std::int64_t rows, DType labels = DType::int32) {
  return {Tensor(Shape{rows, 4}), Tensor(Shape{rows}, labels)};
}

// Two distinct addresses standing for variables' storage.
int first_variable = 0, second_variable = 0;
const std::vector<const void*> kAddresses{&first_variable, &second_variable};

// A policy that warms up for one run, captured the 8-row batch on its second and holds
// that graph.
CudaGraphPolicy holding_a_graph() {
  CudaGraphPolicy policy(2);
  EXPECT_EQ(policy.decide(batch(8), true, kAddresses), GraphRunMode::eager);
  EXPECT_EQ(policy.decide(batch(8), true, kAddresses), GraphRunMode::capture);
  policy.captured(kAddresses);
  return policy;
}

}  // namespace

TEST(CudaGraphPolicy, CapturesOnTheThirdRunOfOneShapeAndReplaysAfter) {
  CudaGraphPolicy policy;
  EXPECT_EQ(policy.decide(batch(8), true, kAddresses), GraphRunMode::eager);
  EXPECT_EQ(policy.decide(batch(8), true, kAddresses), GraphRunMode::eager);
  EXPECT_EQ(policy.decide(batch(8), true, kAddresses), GraphRunMode::capture);
  policy.captured(kAddresses);
  for (int run = 0; run < 5; ++run) EXPECT_EQ(policy.decide(batch(8), true, kAddresses), GraphRunMode::replay);
}

TEST(CudaGraphPolicy, ASmallerBatchRunsEagerAndTheFullOneWarmsUpAgain) {
  CudaGraphPolicy policy(2);
  EXPECT_EQ(policy.decide(batch(8), true, kAddresses), GraphRunMode::eager);
  EXPECT_EQ(policy.decide(batch(8), true, kAddresses), GraphRunMode::capture);
  policy.captured(kAddresses);
  EXPECT_EQ(policy.decide(batch(8), true, kAddresses), GraphRunMode::replay);
  // The epoch's last, smaller batch: nothing captured for it is replayed, and the graph
  // of the full batch is dropped (one graph per state).
  EXPECT_EQ(policy.decide(batch(3), true, kAddresses), GraphRunMode::eager);
  EXPECT_FALSE(policy.holds_graph());
  EXPECT_EQ(policy.decide(batch(8), true, kAddresses), GraphRunMode::eager);
  EXPECT_EQ(policy.decide(batch(8), true, kAddresses), GraphRunMode::capture);
}

TEST(CudaGraphPolicy, ADtypeOrModeChangeIsANewKey) {
  CudaGraphPolicy policy = holding_a_graph();
  ASSERT_TRUE(policy.holds_graph());
  EXPECT_EQ(policy.decide(batch(8, DType::int64), true, kAddresses), GraphRunMode::eager);
  EXPECT_EQ(policy.decide(batch(8, DType::int64), true, kAddresses), GraphRunMode::capture);
  policy.captured(kAddresses);
  // Training off: dropout copies instead of drawing, a different graph.
  EXPECT_EQ(policy.decide(batch(8, DType::int64), false, kAddresses), GraphRunMode::eager);
  EXPECT_EQ(policy.decide(batch(8, DType::int64), true, kAddresses), GraphRunMode::eager);
  // A different number of feeds.
  EXPECT_EQ(policy.decide({Tensor(Shape{8, 4})}, true, kAddresses), GraphRunMode::eager);
}

TEST(CudaGraphPolicy, MovedStorageDropsTheGraphAndWarmsUpAgain) {
  CudaGraphPolicy policy = holding_a_graph();
  ASSERT_TRUE(policy.holds_graph());
  ASSERT_EQ(policy.decide(batch(8), true, kAddresses), GraphRunMode::replay);
  // A variable placed or assigned anew: its storage moved, the graph would read freed memory.
  int moved = 0;
  const std::vector<const void*> after_move{&first_variable, &moved};
  EXPECT_EQ(policy.decide(batch(8), true, after_move), GraphRunMode::eager);
  EXPECT_FALSE(policy.holds_graph());
  EXPECT_EQ(policy.decide(batch(8), true, after_move), GraphRunMode::capture);
  policy.captured(after_move);
  EXPECT_EQ(policy.decide(batch(8), true, after_move), GraphRunMode::replay);
  EXPECT_EQ(policy.decide(batch(8), true, kAddresses), GraphRunMode::eager);
}

TEST(CudaGraphPolicy, ARunWithGraphsSwitchedOffDropsTheGraph) {
  CudaGraphPolicy policy = holding_a_graph();
  ASSERT_TRUE(policy.holds_graph());
  policy.drop_graph();  // the state ran eagerly without asking, and dropped its graph
  EXPECT_FALSE(policy.holds_graph());
  EXPECT_EQ(policy.decide(batch(8), true, kAddresses), GraphRunMode::eager);
  EXPECT_EQ(policy.decide(batch(8), true, kAddresses), GraphRunMode::capture);
}

TEST(CudaGraphPolicy, ARefusalIsForGood) {
  CudaGraphPolicy policy(2);
  policy.decide(batch(8), true, kAddresses);
  ASSERT_EQ(policy.decide(batch(8), true, kAddresses), GraphRunMode::capture);
  policy.refuse("capturing its run failed: cudnnConvolutionForward is not capturable");
  EXPECT_TRUE(policy.refused());
  EXPECT_EQ(policy.refusal(), "capturing its run failed: cudnnConvolutionForward is not capturable");
  for (int run = 0; run < 4; ++run) EXPECT_EQ(policy.decide(batch(8), true, kAddresses), GraphRunMode::eager);
  EXPECT_EQ(policy.decide(batch(3), true, kAddresses), GraphRunMode::eager);
}

TEST(CudaGraphPolicy, ASwitchAndCountersAreProcessWide) {
  {
    const ScopedCudaGraphs restore;
    set_cuda_graphs(false);
    EXPECT_FALSE(cuda_graphs_enabled());
    set_cuda_graphs(true);
    EXPECT_TRUE(cuda_graphs_enabled());
  }

  reset_cuda_graph_counts();
  count_cuda_graph_event(GraphRunMode::capture);
  count_cuda_graph_event(GraphRunMode::replay);
  count_cuda_graph_event(GraphRunMode::replay);
  count_cuda_graph_event(GraphRunMode::eager);  // not counted
  count_cuda_graph_refusal();
  const CudaGraphCounts counts = cuda_graph_counts();
  EXPECT_EQ(counts.captures, 1);
  EXPECT_EQ(counts.replays, 2);
  EXPECT_EQ(counts.refusals, 1);
  reset_cuda_graph_counts();
  EXPECT_EQ(cuda_graph_counts().replays, 0);
}

// Which ops a graph cannot replay is said where the CUDA device registers its kernel for
// the op: the recurrent ops with dropout (their CUDA kernels take the masks' step on the
// host), and no other op.
TEST(CudaGraphPolicy, TheRecurrentOpsWithDropoutRefuseAGraphWhereTheirKernelIsRegistered) {
#ifndef STRATA_WITH_CUDA
  GTEST_SKIP() << "built without CUDA: no op has a CUDA kernel, so none refuses a CUDA graph";
#endif
  for (const char* op : {"rnn_sequence", "rnn_sequence_grad"}) {
    const OpDef& def = OpRegistry::global().get(op);
    const DeviceKernel* cuda = def.on(DeviceType::cuda);
    ASSERT_TRUE(cuda && cuda->graph_refusal) << op;
    Node node;
    node.op = op;
    node.def = &def;
    EXPECT_EQ(cuda->graph_refusal(node), "") << op << " without dropout";
    node.attrs.set("recurrent_dropout", 0.25);
    EXPECT_NE(cuda->graph_refusal(node).find("dropout masks"), std::string::npos) << op;
    node.attrs = {};
    node.attrs.set("dropout", 0.5);
    EXPECT_NE(cuda->graph_refusal(node), "") << op;
  }
  for (const char* op : {"dense", "dropout", "matmul"}) {
    const DeviceKernel* cuda = OpRegistry::global().get(op).on(DeviceType::cuda);
    ASSERT_NE(cuda, nullptr) << op;
    EXPECT_FALSE(cuda->graph_refusal) << op;
  }
  for (const char* op : {"dense", "conv2d", "matmul"}) {
    EXPECT_FALSE(OpRegistry::global().get(op).on(DeviceType::cpu)->graph_refusal) << op << " on the CPU";
  }
}

}  // namespace cuda_graph_policy_test
