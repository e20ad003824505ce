// Devices in the engine: names parse as TensorFlow's do, tensors know their device and
// their memory is counted, a Program runs on one device and refuses at compile time a
// device its ops have no kernel for — naming op, layer and device — and logs placement.
#include <gtest/gtest.h>

#include <cstring>
#include <functional>
#include <thread>

#include "core/allocator.h"
#include "core/device.h"
#include "core/ops.h"
#include "core/ops/hash_ops.h"
#include "core/program.h"
#include "core_test_util.h"

using namespace strata;
using namespace strata::testing;

namespace placement_test {

TEST(Placement, ParsesDeviceNamesAsTensorFlowWritesThem) {
  EXPECT_EQ(parse_device("cpu"), (Device{DeviceType::cpu, 0, ""}));
  EXPECT_EQ(parse_device("CPU:0"), (Device{DeviceType::cpu, 0, ""}));
  EXPECT_EQ(parse_device("cuda"), (Device{DeviceType::cuda, 0, ""}));
  EXPECT_EQ(parse_device("cuda:1"), (Device{DeviceType::cuda, 1, ""}));
  EXPECT_EQ(parse_device("/GPU:0"), (Device{DeviceType::cuda, 0, ""}));
  EXPECT_EQ(parse_device("/device:GPU:2"), (Device{DeviceType::cuda, 2, ""}));
  for (const char* bad : {"tpu", "cuda:x", "cpu:1", "", "cuda:-1", "gpu:99999"}) {
    std::string msg = message_of([&] { parse_device(bad); });
    EXPECT_NE(msg.find("unknown device '" + std::string(bad) + "'"), std::string::npos) << msg;
  }
}

TEST(Placement, CpuMemoryInfoCountsLiveTensorsAndThePeak) {
  const Device cpu{};
  const MemoryInfo before = memory_info(cpu);
  {
    Tensor big(Shape{1024, 256});  // 1 MiB
    const MemoryInfo during = memory_info(cpu);
    EXPECT_GE(during.current_bytes - before.current_bytes, 1 << 20);
    EXPECT_GE(during.peak_bytes, during.current_bytes);
    EXPECT_TRUE(big.is_on(cpu));
    EXPECT_EQ(to_string(big.device()), "cpu:0");
  }
  const MemoryInfo after = memory_info(cpu);
  EXPECT_LE(after.current_bytes, before.current_bytes);
  EXPECT_GE(after.peak_bytes, before.current_bytes + (1 << 20));
  reset_peak_memory(cpu);
  EXPECT_EQ(memory_info(cpu).peak_bytes, memory_info(cpu).current_bytes);
}

TEST(Placement, ToTheSameDeviceSharesTheTensor) {
  Tensor t = uniform({4, 3}, -1, 1, 1);
  Tensor same = t.to(Device{});
  EXPECT_TRUE(same.shares_storage_with(t));
}

// String elements point into the host's intern pool, so they never move to a device
// (checked before the device itself, so on any machine).
TEST(Placement, AStringTensorStaysOnTheCpu) {
  const Tensor words = Tensor::from_strings({2}, {"a", "b"});
  const std::string msg = message_of([&] { words.to(parse_device("cuda:0")); });
  EXPECT_NE(msg.find("string tensor"), std::string::npos) << msg;
  EXPECT_TRUE(words.to(Device{}).shares_storage_with(words));
}

TEST(Placement, AMissingGpuIsAClearError) {
  if (has_cuda_device()) GTEST_SKIP() << "this machine has a CUDA device";
  std::string msg = message_of([] { Tensor t(Shape{2}, DType::float32, parse_device("cuda:0")); });
  EXPECT_NE(msg.find("cuda:0"), std::string::npos) << msg;
  EXPECT_NE(msg.find("not available"), std::string::npos) << msg;
  msg = message_of([] { memory_info(parse_device("cuda:3")); });
  EXPECT_NE(msg.find("cuda:3"), std::string::npos) << msg;
}

// Every op has a CPU kernel; string ops never get a CUDA one (strings stay on the host),
// so a Program for cuda:0 that hashes strings is refused while compiling, naming what
// lacks a kernel — on any machine, GPU or not. Ops that have a CUDA kernel in this build
// (matmul and tanh when Strata is built with CUDA) are not named.
TEST(Placement, AProgramForADeviceItsOpsLackIsRefusedAtCompileTimeNamingOpLayerAndDevice) {
  Graph g;
  Output x = g.placeholder({Shape{kUnknownDim, 3}}, "x");
  Output words = g.placeholder({Shape{kUnknownDim}, DType::string}, "words");
  Output y, w, bins;
  {
    NameScope scope(g, "dense_7");
    w = g.placeholder({Shape{3, 2}}, "w");
    y = ops::tanh(ops::matmul(x, w));
  }
  {
    NameScope scope(g, "hashing_2");
    bins = ops::hash_bucket(words, {.num_bins = 8});
  }
  const int nodes = g.num_nodes();
  std::string msg = message_of([&] { Program p(g, {x, w, words}, {y, bins}, {}, parse_device("cuda:0")); });
  EXPECT_NE(msg.find("cannot run on cuda:0"), std::string::npos) << msg;
  EXPECT_NE(msg.find("op 'hash_bucket'"), std::string::npos) << msg;
  EXPECT_NE(msg.find("layer 'hashing_2'"), std::string::npos) << msg;
  if (built_with_cuda()) {
    EXPECT_EQ(msg.find("op 'matmul'"), std::string::npos) << msg;
    EXPECT_EQ(msg.find("layer 'dense_7'"), std::string::npos) << msg;
  } else {
    EXPECT_NE(msg.find("op 'matmul'"), std::string::npos) << msg;
    EXPECT_NE(msg.find("layer 'dense_7'"), std::string::npos) << msg;
  }
  EXPECT_EQ(g.num_nodes(), nodes);
  // The same graph compiles for the CPU.
  Program cpu(g, {x, w, words}, {y, bins});
  EXPECT_EQ(to_string(cpu.device()), "cpu:0");
}

TEST(Placement, LogDevicePlacementPrintsEachNodesDevice) {
  Graph g;
  Output x = g.placeholder({Shape{kUnknownDim, 3}}, "x");
  Output y = ops::exp(x);
  Output z = ops::tanh(x);
  set_log_device_placement(true);
  ::testing::internal::CaptureStderr();
  Program p(g, {x}, {y});
  const std::string log = ::testing::internal::GetCapturedStderr();
  set_log_device_placement(false);
  EXPECT_NE(log.find(g.node(y.node).name + " (exp): cpu:0"), std::string::npos) << log;
  EXPECT_EQ(log.find("placeholder"), std::string::npos) << "fed nodes run nowhere: " << log;
  ::testing::internal::CaptureStderr();
  Program quiet(g, {x}, {z});
  EXPECT_EQ(::testing::internal::GetCapturedStderr(), "");
}

TEST(Placement, ACudaTensorRoundTripsAndHostAccessFailsClearly) {
  if (!has_cuda_device()) GTEST_SKIP() << "no CUDA device on this machine (or Strata built without CUDA)";
  const Device gpu = parse_device("cuda:0");
  Tensor host = uniform({64, 32}, -1, 1, 7);
  const MemoryInfo before = memory_info(gpu);
  Tensor on_gpu = host.to(gpu);
  EXPECT_TRUE(on_gpu.is_on(gpu));
  EXPECT_GE(memory_info(gpu).current_bytes - before.current_bytes, static_cast<std::int64_t>(host.nbytes()));
  std::string msg = message_of([&] { on_gpu.data<float>(); });
  EXPECT_NE(msg.find("cuda:0"), std::string::npos) << msg;
  Tensor back = on_gpu.to(Device{});
  EXPECT_EQ(std::memcmp(back.raw_data(), host.raw_data(), host.nbytes()), 0);
}

// Variables live on the device of the Program that reads them: placed there explicitly,
// assigned and read through copies, and refused — by name — by the run of a Program of
// another device.
TEST(Placement, AVariableOnTheGpuIsReadInPlaceAndRefusedByACpuProgram) {
  if (!has_cuda_device()) GTEST_SKIP() << "no CUDA device on this machine (or Strata built without CUDA)";
  const Device gpu = parse_device("cuda:0");
  Variable kernel("dense/kernel", uniform({8, 4}, -1, 1, 3));
  const Tensor on_host = kernel.value().clone();
  kernel.place_on(gpu);
  ASSERT_TRUE(kernel.value().is_on(gpu));
  EXPECT_EQ(std::memcmp(kernel.value().to(Device{}).raw_data(), on_host.raw_data(), on_host.nbytes()), 0);
  Variable step("sgd/iteration", Tensor(Shape{}, DType::int64));
  step.place_on(gpu);
  step.assign_scalar(7);
  EXPECT_EQ(step.scalar(), 7.0);

  Graph g;
  Output x = g.placeholder({Shape{kUnknownDim, 8}}, "x");
  Output y = ops::matmul(x, g.variable(kernel));
  Program on_gpu(g, {x}, {y}, {}, gpu);
  const Tensor input = uniform({5, 8}, -1, 1, 4);
  Graph reference;  // the same product on the CPU, with the kernel's values there
  Output rx = reference.placeholder({Shape{kUnknownDim, 8}}, "x");
  Output ry = ops::matmul(rx, reference.variable(Variable("dense/kernel", on_host)));
  const Tensor expected = Program(reference, {rx}, {ry}).run({input})[0];
  EXPECT_TRUE(tensors_near(on_gpu.run({input})[0], expected, 1e-5f));
  kernel.assign(on_host);  // from the host into the device's storage
  EXPECT_TRUE(kernel.value().is_on(gpu));
  Program on_cpu(g, {x}, {y});  // compiles; its run finds the variable elsewhere
  const std::string msg = message_of([&] { on_cpu.run({input}); });
  EXPECT_NE(msg.find("variable 'dense/kernel' lives on cuda:0"), std::string::npos) << msg;
}

// A Program on a GPU runs its kernels on its execution state's own stream: feeds are
// copied in, fetches out, and the answers are the CPU's. Two threads run the one plan at
// once, each on a state (and stream) of its own.
TEST(Placement, AProgramOnAGpuRunsOnItsStatesStreamsAndMatchesTheCpu) {
  if (!has_cuda_device()) GTEST_SKIP() << "no CUDA device on this machine (or Strata built without CUDA)";
  Graph g;
  Output x = g.placeholder({Shape{kUnknownDim, 48}}, "x");
  Output w = g.placeholder({Shape{48, 32}}, "w");
  Output b = g.placeholder({Shape{32}}, "b");
  Output y = ops::reduce_sum(ops::tanh(ops::add(ops::matmul(x, w), b)), {1});
  Program cpu(g, {x, w, b}, {y});
  Program gpu(g, {x, w, b}, {y}, {}, parse_device("cuda:0"));
  auto feeds_for = [](std::uint64_t seed) {
    return std::vector<Tensor>{uniform({64, 48}, -1, 1, seed), uniform({48, 32}, -0.5f, 0.5f, seed + 1),
                               uniform({32}, -0.1f, 0.1f, seed + 2)};
  };
  std::vector<Tensor> results[2];
  std::thread other([&] {
    for (int i = 0; i < 20; ++i) results[1] = gpu.run(feeds_for(100));
  });
  for (int i = 0; i < 20; ++i) results[0] = gpu.run(feeds_for(200));
  other.join();
  EXPECT_GE(gpu.num_execution_states(), 1);
  for (int t = 0; t < 2; ++t) {
    ASSERT_TRUE(results[t][0].on_cpu());
    EXPECT_TRUE(tensors_near(results[t][0], cpu.run(feeds_for(t == 0 ? 200 : 100))[0], 1e-4f));
  }
}

}  // namespace placement_test
