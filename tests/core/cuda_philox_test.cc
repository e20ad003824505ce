// The CUDA dropout kernel decides each Philox block's elements with dropout_block
// (core/cuda/philox.h), which compiles for the host as well. Its words come from the one
// Philox-4x32-10 function the CPU's Philox uses too (core/philox_rounds.h; Random123's
// known answers in rng_test.cc); run here, dropout_block must give the CPU dropout
// kernel's outputs bit for bit (the CPU kernel draws sixteen blocks at a time and keeps an
// element by an integer test), so that a GPU draws the CPU's masks. The CUDA
// random_normal_like kernel draws each element with random_normal_element, likewise held
// here to the CPU kernel's bits (on the device only CUDA's double log and cos may round
// differently). This runs in every build, GPU or not; the CUDA kernels themselves are
// compared with the CPU's in cuda_kernels_test.cc where there is a GPU.
#include <gtest/gtest.h>

#include <cstdint>
#include <cstring>
#include <string>
#include <vector>

#include "core/cuda/philox.h"
#include "core/op_registry.h"
#include "core/rng.h"
#include "core_test_util.h"

using namespace strata;

namespace cuda_philox_test {

// Every Philox block the elements fall in, through dropout_block, as the CUDA kernel
// walks them, against the CPU kernel run on the same node and step: equal bits.
TEST(CudaPhilox, DropoutBlocksGiveTheCpuKernelsOutputs) {
  struct D {
    Shape shape;
    double rate;
    std::int64_t step, sample_offset;
  };
  const std::vector<D> ds = {{{1000, 33}, 0.5, 0, 0},  {{257}, 0.5, 7, 0},     {{3, 5, 7}, 0.2, 3, 0},
                             {{64, 64}, 0.9, 12, 0},   {{5, 7}, 0.5, 2, 3},    {{6, 10}, 0.3, 5, 2},
                             {{}, 0.5, 1, 0},          {{130, 3}, 0.1, 9, 61}, {{2, 200}, 0.5, 4, 5}};
  const OpDef& def = OpRegistry::global().get("dropout");
  std::uint64_t seed = 1;
  for (const D& d : ds) {
    const std::string label = d.shape.to_string() + ", rate " + std::to_string(d.rate) + ", step " +
                              std::to_string(d.step) + ", sample_offset " + std::to_string(d.sample_offset);
    const std::int64_t node_seed = 1000 + static_cast<std::int64_t>(seed), node_stream = 77;
    Node node;
    node.op = "dropout";
    node.name = "dropout/dropout";
    node.attrs = Attrs{{"rate", d.rate}, {"seed", node_seed}, {"stream", node_stream}};
    const Tensor x = strata::testing::uniform(d.shape, -2, 2, seed++);
    Tensor expected(d.shape, DType::float32);
    KernelContext ctx{node, {&x}, {&expected}};
    ctx.training = true;
    ctx.step = d.step;
    ctx.sample_offset = d.sample_offset;
    def.on(DeviceType::cpu)->run(ctx);

    // As core/cuda/dropout.cu draws and numbers them: the key derived from the step on
    // the device (dropout_draw, which must be the CPU's mix_seed), the first element from
    // the sample offset and the sample's size.
    const auto rate = static_cast<float>(d.rate);
    const cuda::DropoutDraw draw = cuda::dropout_draw(static_cast<std::uint64_t>(node_seed), d.step,
                                                      static_cast<std::uint64_t>(node_stream), rate, 1.f / (1.f - rate));
    ASSERT_EQ(draw.key, mix_seed(static_cast<std::uint64_t>(node_seed), static_cast<std::uint64_t>(d.step))) << label;
    const std::int64_t n = x.size();
    const std::int64_t sample_size = x.rank() > 0 && x.shape()[0] > 0 ? n / x.shape()[0] : 0;
    const std::int64_t first = d.sample_offset * sample_size;
    Tensor actual = Tensor::filled(d.shape, -1.f);
    for (std::int64_t b = first / 4; b <= (first + n - 1) / 4; ++b) {
      cuda::dropout_block(x.data<float>(), actual.data<float>(), first, n, b, draw);
    }
    int kept = 0;
    for (std::int64_t i = 0; i < n; ++i) {
      const float a = actual.data<float>()[i], e = expected.data<float>()[i];
      ASSERT_EQ(std::memcmp(&a, &e, sizeof a), 0) << label << ": element " << i << " is " << a << ", the CPU gives " << e;
      kept += a != 0.f;
    }
    if (n >= 100) {  // a mask, not all or nothing
      EXPECT_GT(kept, 0) << label;
      EXPECT_LT(kept, n) << label;
    }
  }
}

// Every element through random_normal_element, as core/cuda/random_normal.cu numbers them,
// against the CPU kernel run on the same node and step: equal bits.
TEST(CudaPhilox, RandomNormalElementsGiveTheCpuKernelsOutputs) {
  struct D {
    Shape shape;
    std::int64_t step, sample_offset;
  };
  const std::vector<D> ds = {{{1000, 33}, 0, 0}, {{257}, 7, 0}, {{3, 5, 7}, 3, 0},
                             {{5, 7}, 2, 3},     {{}, 1, 0},    {{130, 3}, 9, 61}};
  const OpDef& def = OpRegistry::global().get("random_normal_like");
  std::int64_t node_seed = 2000;
  for (const D& d : ds) {
    const std::string label = d.shape.to_string() + ", step " + std::to_string(d.step) + ", sample_offset " +
                              std::to_string(d.sample_offset);
    const std::int64_t node_stream = 78;
    Node node;
    node.op = "random_normal_like";
    node.name = "gaussian_noise/random_normal_like";
    node.attrs = Attrs{{"seed", ++node_seed}, {"stream", node_stream}};
    const Tensor like = Tensor::filled(d.shape, 0.f);
    Tensor expected(d.shape, DType::float32);
    KernelContext ctx{node, {&like}, {&expected}};
    ctx.training = true;
    ctx.step = d.step;
    ctx.sample_offset = d.sample_offset;
    def.on(DeviceType::cpu)->run(ctx);

    // The key as the CUDA kernel derives it on the device from the step, the first
    // element from the sample offset and the sample's size.
    const std::uint64_t key = mix_seed_bits(static_cast<std::uint64_t>(node_seed), static_cast<std::uint64_t>(d.step));
    const std::int64_t n = like.size();
    const std::int64_t sample_size = like.rank() > 0 && like.shape()[0] > 0 ? n / like.shape()[0] : 0;
    const std::int64_t first = d.sample_offset * sample_size;
    for (std::int64_t i = 0; i < n; ++i) {
      const float a = cuda::random_normal_element(key, static_cast<std::uint64_t>(node_stream), first + i);
      const float e = expected.data<float>()[i];
      ASSERT_EQ(std::memcmp(&a, &e, sizeof a), 0)
          << label << ": element " << i << " is " << a << ", the CPU gives " << e;
    }
  }
}

}  // namespace cuda_philox_test
