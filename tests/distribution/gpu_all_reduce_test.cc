// Gradients on GPUs (distribution/): which way the processes of a job sum them
// (gpu_all_reduce_choice.h), which GPU each process trains on (spread_over_gpus), and
// NCCL's reducer itself in a job of one process, which needs a GPU and a build with NCCL
// and skips saying so otherwise. Jobs of several processes on GPUs are in
// data_parallel_test.cc (SameAnswerOnGpus).
#include <gtest/gtest.h>

#include <chrono>
#include <cstdlib>
#include <iostream>
#include <string>
#include <vector>

#include "core/device.h"
#include "core/error.h"
#include "core/tensor.h"
#include "distribution/data_parallel.h"
#include "distribution/gpu_all_reduce_choice.h"

#ifdef STRATA_WITH_NCCL
#include "core/cuda/stream.h"
#include "distribution/nccl_all_reducer.h"
#endif

using namespace strata;
using namespace strata::distribution;

namespace gpu_all_reduce_test {

namespace {

std::vector<char> gathered(const std::vector<std::string>& descriptions) {
  std::vector<char> all;
  for (const std::string& d : descriptions) {
    const std::vector<char> record = encode_gpu_description(d);
    EXPECT_EQ(record.size(), kGpuDescriptionBytes);
    all.insert(all.end(), record.begin(), record.end());
  }
  return all;
}

TEST(GpuAllReduceChoice, DescriptionsRoundTripInProcessOrder) {
  const std::vector<std::string> sent{"node1/00000000:1B:00.0", "", "node2/00000000:3D:00.0"};
  EXPECT_EQ(decode_gpu_descriptions(gathered(sent)), sent);
  // Too long for a record: cut, never spilling into the next process's record.
  const std::string long_name(kGpuDescriptionBytes + 40, 'h');
  const auto decoded = decode_gpu_descriptions(gathered({long_name, "b"}));
  ASSERT_EQ(decoded.size(), 2u);
  EXPECT_EQ(decoded[0], long_name.substr(0, kGpuDescriptionBytes - 1));
  EXPECT_EQ(decoded[1], "b");
  std::vector<char> torn = gathered({"a"});
  torn.pop_back();
  EXPECT_THROW(decode_gpu_descriptions(torn), Error);
}

TEST(GpuAllReduceChoice, NcclWhenEveryProcessHasAGpuOfItsOwn) {
  const auto choice = choose_gpu_all_reduce({"node1/0000:1B:00.0", "node1/0000:3D:00.0", "node2/0000:1B:00.0"});
  EXPECT_TRUE(choice.nccl) << choice.reason;
  EXPECT_TRUE(choice.reason.empty());
}

TEST(GpuAllReduceChoice, HostMemoryWhenTwoProcessesShareAGpu) {
  const auto choice = choose_gpu_all_reduce({"node1/0000:1B:00.0", "node2/0000:1B:00.0", "node1/0000:1B:00.0"});
  EXPECT_FALSE(choice.nccl);
  EXPECT_NE(choice.reason.find("processes 0 and 2 share GPU node1/0000:1B:00.0"), std::string::npos) << choice.reason;
}

TEST(GpuAllReduceChoice, HostMemoryWhenAProcessHasNoNccl) {
  const auto choice = choose_gpu_all_reduce({"node1/0000:1B:00.0", ""});
  EXPECT_FALSE(choice.nccl);
  EXPECT_NE(choice.reason.find("process 1 cannot use NCCL"), std::string::npos) << choice.reason;
}

TEST(SpreadOverGpus, ProcessesOfAMachineTakeItsGpusInTurn) {
  const Device cpu{DeviceType::cpu, 0, "cpu"};
  const Device gpu0{DeviceType::cuda, 0, "a"}, gpu1{DeviceType::cuda, 1, "b"};
  const std::vector<Device> two{cpu, gpu0, gpu1};
  EXPECT_EQ(spread_over_gpus(two, 0).index, 0);
  EXPECT_EQ(spread_over_gpus(two, 1).index, 1);
  EXPECT_EQ(spread_over_gpus(two, 2).index, 0);  // more processes than GPUs: they share
  EXPECT_EQ(spread_over_gpus(two, 3).type, DeviceType::cuda);
  EXPECT_EQ(spread_over_gpus(two, 3).index, 1);
  EXPECT_EQ(spread_over_gpus({cpu}, 1).type, DeviceType::cpu);
}

// The default device a DataParallel gives compile: STRATA_DEFAULT_DEVICE wins (the suite
// sets it to "cpu"); without it, a job of one process trains on the machine's first GPU.
TEST(SpreadOverGpus, TheStrategysDefaultDeviceHonoursStrataDefaultDevice) {
  const DataParallel strategy;
  EXPECT_EQ(strategy.default_device().type, default_device().type);
  const char* told = std::getenv("STRATA_DEFAULT_DEVICE");
  const std::string saved = told ? told : "";
  ::unsetenv("STRATA_DEFAULT_DEVICE");
  const Device spread = strategy.default_device();
  if (!saved.empty()) ::setenv("STRATA_DEFAULT_DEVICE", saved.c_str(), 1);
  EXPECT_EQ(spread.type, default_device(available_devices(), "").type);
  if (spread.type == DeviceType::cuda) EXPECT_EQ(spread.index, 0);  // local rank 0
}

// A job of one process: the sum is the buffer itself, but the parts around it run —
// joining NCCL, the events between the two streams, the polled wait, leaving. (With one
// process the buffer comes out the same whatever the order of the streams: that the sum
// waits for the compute stream shows only with two GPUs, SameAnswerOnGpus.)
TEST(NcclAllReducer, OneProcessSumsInPlaceAfterTheComputeStream) {
#ifndef STRATA_WITH_NCCL
  GTEST_SKIP() << "Strata was built without NCCL (set NCCL_ROOT): GPU gradients are summed through host memory";
#else
  if (!has_cuda_device()) GTEST_SKIP() << "no CUDA device on this machine: NCCL's reducer is compiled, not run";
  std::cout << NcclAllReducer::version() << ", " << NcclAllReducer::describe_gpu(0) << "\n";
  const Device gpu{DeviceType::cuda, 0, ""};
  NcclAllReducer reducer(NcclAllReducer::new_unique_id(), 0, 1, 0, std::chrono::seconds(30));
  cuda::Stream compute(0);
  Tensor host(Shape{1000});
  for (std::int64_t i = 0; i < host.size(); ++i) host.data<float>()[i] = 0.25f * static_cast<float>(i) - 7.f;
  Tensor buffer = host.to(gpu);
  auto* data = static_cast<float*>(buffer.device_data());
  for (int step = 0; step < 3; ++step) {  // events are reused from the second step on
    reducer.start(data, buffer.size(), compute.get(), std::chrono::seconds(30));
    EXPECT_THROW(reducer.start(data, buffer.size(), compute.get(), std::chrono::seconds(30)), Error);  // twice
    const NcclAllReducer::Completed sum = reducer.wait(data, compute.get(), std::chrono::seconds(30));
    EXPECT_EQ(sum.bytes, static_cast<std::int64_t>(sizeof(float)) * buffer.size());
    EXPECT_GE(sum.in_flight_seconds, sum.blocked_seconds);
  }
  compute.synchronize();
  const Tensor back = buffer.to(Device{});
  for (std::int64_t i = 0; i < host.size(); ++i) ASSERT_EQ(back.data<float>()[i], host.data<float>()[i]) << i;
  EXPECT_THROW(reducer.wait(data, compute.get(), std::chrono::seconds(1)), Error);  // never started
#endif
}

}  // namespace

}  // namespace gpu_all_reduce_test
