// strata_bench's --device (bench/device.h): which devices parse, why a GPU run cannot
// start, the GPU's workload sizes (bench/workload.cc), and the GPU report's lines
// (bench/report.h).
#include <gtest/gtest.h>

#include <stdexcept>

#include "bench/device.h"
#include "bench/report.h"
#include "bench/workload.h"

namespace strata::bench::device_test {
namespace {

TEST(BenchDevice, ParsesCpuAndCudaAndRefusesTheRestNamingTheText) {
  EXPECT_EQ(parse_bench_device("cpu"), BenchDevice::cpu);
  EXPECT_EQ(parse_bench_device("cuda"), BenchDevice::cuda);
  EXPECT_EQ(parse_bench_device("cuda:0"), BenchDevice::cuda);
  EXPECT_EQ(device_name(BenchDevice::cuda), "cuda:0");
  EXPECT_EQ(device_name(BenchDevice::cpu), "cpu");
  try {
    parse_bench_device("cuda:1");
    FAIL() << "cuda:1 parsed";
  } catch (const std::invalid_argument& e) {
    EXPECT_NE(std::string(e.what()).find("'cuda:1'"), std::string::npos) << e.what();
  }
  EXPECT_THROW(parse_bench_device("gpu"), std::invalid_argument);
}

TEST(BenchDevice, ACudaRunSaysWhichFrameworkCannotRunAndWhy) {
  const CudaSupport all{.strata_built = true,
                        .strata_device = true,
                        .torch_built = true,
                        .torch_device = true,
                        .torch_version = "2.11.0"};
  EXPECT_EQ(cuda_unavailable_reason(all), "");

  CudaSupport s = all;
  s.strata_built = false;
  s.strata_device = false;
  EXPECT_NE(cuda_unavailable_reason(s).find("this build of Strata has no CUDA backend"), std::string::npos);
  s = all;
  s.strata_device = false;
  s.torch_device = false;
  EXPECT_NE(cuda_unavailable_reason(s).find("no CUDA device on this machine"), std::string::npos);
  s = all;
  s.torch_built = false;
  s.torch_device = false;
  s.torch_version = "1.13.0";
  EXPECT_NE(cuda_unavailable_reason(s).find("libtorch this suite was built against (1.13.0) has no CUDA"),
            std::string::npos);
  s = all;
  s.torch_device = false;
  EXPECT_NE(cuda_unavailable_reason(s).find("libtorch 2.11.0 sees no CUDA device"), std::string::npos);
  // One line each: the suite prints it as its only output.
  for (CudaSupport t : {CudaSupport{}, CudaSupport{.strata_built = true}}) {
    EXPECT_EQ(cuda_unavailable_reason(t).find('\n'), std::string::npos);
  }
}

TEST(BenchDevice, FirstLineKeepsAOneLineMessageWhole) {
  EXPECT_EQ(first_line("cannot run on cuda:0: op 'lstm'"), "cannot run on cuda:0: op 'lstm'");
  EXPECT_EQ(first_line("first\nsecond"), "first");
  EXPECT_EQ(first_line(""), "");
}

TEST(BenchDevice, TheGpuTrainsLargerBatchesOfTheSameModels) {
  const std::vector<std::pair<std::string, std::int64_t>> gpu_batches{
      {"mlp", 1024}, {"lstm", 256}, {"bilstm", 256}, {"cnn", 512}, {"transformer", 128}, {"dense4096", 4096},
      {"resnet20", 512}, {"mobilenet_small", 512}};
  for (const auto& [name, batch] : gpu_batches) {
    const Workload cpu = make_workload(name, 2, false);
    const Workload gpu = make_workload(name, 2, false, BenchDevice::cuda);
    EXPECT_EQ(gpu.batch_size, batch) << name;
    EXPECT_EQ(gpu.device, BenchDevice::cuda) << name;
    EXPECT_EQ(cpu.device, BenchDevice::cpu) << name;
    EXPECT_EQ(gpu.sample_shape, cpu.sample_shape) << name;
    EXPECT_EQ(gpu.units, cpu.units) << name;
    EXPECT_EQ(gpu.batches(), cpu.batches()) << name;
    EXPECT_DOUBLE_EQ(gpu.train_flops_per_sample(), cpu.train_flops_per_sample()) << name;
  }
  // The CPU's sizes are the suite's as before --device existed.
  EXPECT_EQ(make_workload("mlp", 2, false).batch_size, 128);
  EXPECT_EQ(make_workload("dense4096", 2, false).batch_size, 512);
  // --quick is a smoke run on either device: the same small sizes.
  for (const std::string& name : workload_names()) {
    EXPECT_EQ(make_workload(name, 2, true, BenchDevice::cuda).batch_size, make_workload(name, 2, true).batch_size)
        << name;
  }
}

TEST(BenchDevice, TheGpuTargetIsEightyPercentOfCublasPeakAndTheCpusSeventy) {
  EXPECT_DOUBLE_EQ(dense_gemm_share_target(BenchDevice::cuda), 0.8);
  EXPECT_DOUBLE_EQ(dense_gemm_share_target(BenchDevice::cpu), 0.7);
}

TEST(BenchDevice, TheOverheadReportComparesStrataWithAndWithoutCudaGraphs) {
  const std::vector<OverheadResult> overhead{
      {"strata", {10, 12, 11}, ""}, {"libtorch", {}, "no GPU"}, {kStrataWithoutGraphs, {40, 42, 41}, ""}};
  const std::vector<std::string> lines = overhead_lines(overhead);
  ASSERT_EQ(lines.size(), 2u);
  EXPECT_NE(lines[0].find("per-step host overhead"), std::string::npos) << lines[0];
  EXPECT_NE(lines[0].find("strata 11.0 (10.0..12.0"), std::string::npos) << lines[0];
  EXPECT_NE(lines[0].find("libtorch failed: no GPU"), std::string::npos) << lines[0];
  EXPECT_NE(lines[0].find("strata-no-graphs 41.0 (40.0..42.0"), std::string::npos) << lines[0];
  EXPECT_NE(lines[1].find("CUDA graphs: strata's step takes 11.0 (10.0..12.0"), std::string::npos) << lines[1];
  EXPECT_NE(lines[1].find("41.0 (40.0..42.0"), std::string::npos) << lines[1];
  EXPECT_NE(lines[1].find("3.73x"), std::string::npos) << lines[1];
}

TEST(BenchDevice, TheOverheadReportOnTheCpuMakesNoGraphsComparison) {
  const std::vector<OverheadResult> overhead{{"strata", {40, 42, 41}, ""}, {"libtorch", {30}, ""}};
  const std::vector<std::string> lines = overhead_lines(overhead);
  ASSERT_EQ(lines.size(), 2u);
  EXPECT_NE(lines[1].find("not compared (only on --device=cuda)"), std::string::npos) << lines[1];
}

}  // namespace
}  // namespace strata::bench::device_test
