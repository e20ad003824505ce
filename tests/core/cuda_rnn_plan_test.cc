// The recurrent ops' CUDA kernels do their work in the order core/cuda/rnn_plan.h writes
// down, each kernel a loop over a per-element function of core/cuda/rnn_step.h. Here that
// plan runs on the host — plain loops over the same per-element functions, a plain
// product for cuBLAS's, scratch filled with NaN as a GPU's holds garbage — against the
// CPU kernel (core/cpu/kernels/rnn.cc), for every configuration cuda_kernels_test.cc runs
// on a GPU: the workspace layout, the strided products, the step order, masks and dropout
// are checked in every build, GPU or not. What this leaves to a GPU run: cuBLAS's operand
// swap (core/cuda/gemm.cc, matmul's too), the launches, and CUDA's tanh and exp.
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <initializer_list>
#include <limits>
#include <string>
#include <vector>

#include "core/cuda/rnn_plan.h"
#include "core/op_registry.h"
#include "core/ops/rnn_config.h"
#include "core_test_util.h"
#include "rnn_configurations.h"

using namespace strata;
using namespace strata::testing;

namespace cuda_rnn_plan_test {

namespace {

// The Device of core/cuda/rnn_plan.h on the host, one loop per launch.
class HostRnnDevice {
 public:
  std::vector<float*> scratch(std::initializer_list<std::int64_t> floats) {
    std::vector<float*> pointers;
    for (std::int64_t n : floats) {
      parts_.emplace_back(static_cast<std::size_t>(n), std::numeric_limits<float>::quiet_NaN());
      pointers.push_back(n > 0 ? parts_.back().data() : nullptr);
    }
    return pointers;
  }
  // As core/cuda/gemm.cc: C = op(A) · op(B) + beta · C, row-major with leading dims;
  // summed in double, near the exact sum (a float sum in order strays further).
  void gemm(std::int64_t m, std::int64_t n, std::int64_t k, cuda::GemmOperand a, cuda::GemmOperand b, float* c,
            std::int64_t ldc, float beta) {
    ASSERT_TRUE(beta == 0.f || beta == 1.f);
    for (std::int64_t i = 0; i < m; ++i) {
      for (std::int64_t j = 0; j < n; ++j) {
        double sum = 0.0;
        for (std::int64_t p = 0; p < k; ++p) {
          const float av = a.transposed ? a.data[p * a.ld + i] : a.data[i * a.ld + p];
          const float bv = b.transposed ? b.data[j * b.ld + p] : b.data[p * b.ld + j];
          sum += static_cast<double>(av) * bv;
        }
        c[i * ldc + j] = beta == 0.f ? static_cast<float>(sum) : c[i * ldc + j] + static_cast<float>(sum);
      }
    }
  }
  void copy(float* to, const float* from, std::int64_t n) { std::copy_n(from, n, to); }
  void zero(float* to, std::int64_t n) { std::fill_n(to, n, 0.f); }
  void dropout_mask(float* mask, std::int64_t n, std::uint64_t seed, std::uint64_t stream, std::uint64_t first,
                    float rate, float keep_scale) {
    for (std::int64_t i = 0; i < n; ++i) {
      mask[i] = ops::dropout_mask_element(seed, stream, first + static_cast<std::uint64_t>(i), rate, keep_scale);
    }
  }
  void scale_rows(const float* in, const float* mask, float* out, std::int64_t rows, std::int64_t width,
                  std::int64_t per_mask_row) {
    for (std::int64_t i = 0; i < rows * width; ++i) cuda::scale_rows_element(in, mask, out, width, per_mask_row, i);
  }
  void step(const ops::RnnLayout& L, const cuda::RnnStep& p, std::int64_t s) {
    for (std::int64_t i = 0; i < L.B * L.H; ++i) cuda::step_element(L, p, s, i);
  }
  void gru_reset_gate(const ops::RnnLayout& L, const cuda::RnnStep& p, std::int64_t s) {
    for (std::int64_t i = 0; i < L.B * L.H; ++i) cuda::gru_reset_gate_element(L, p, s, i);
  }
  void gru_candidate(const ops::RnnLayout& L, const cuda::RnnStep& p, std::int64_t s) {
    for (std::int64_t i = 0; i < L.B * L.H; ++i) cuda::gru_candidate_element(L, p, s, i);
  }
  void gate_grad(const ops::RnnLayout& L, const cuda::RnnStepGrad& p, std::int64_t s) {
    for (std::int64_t i = 0; i < L.B * L.H; ++i) cuda::gate_grad_element(L, p, s, i);
  }
  void gru_reset_grad(const ops::RnnLayout& L, const cuda::RnnStepGrad& p, std::int64_t s) {
    for (std::int64_t i = 0; i < L.B * L.H; ++i) cuda::gru_reset_grad_element(L, p, s, i);
  }
  void carry_grad(const ops::RnnLayout& L, const cuda::RnnStepGrad& p) {
    for (std::int64_t i = 0; i < L.B * L.H; ++i) cuda::carry_grad_element(p, i);
  }
  void column_sums(const float* in, std::int64_t rows, std::int64_t cols, std::int64_t ld, float* out) {
    for (std::int64_t c = 0; c < cols; ++c) out[c] = cuda::column_sum(in, rows, ld, c);
  }

 private:
  std::vector<std::vector<float>> parts_;
};

// The plan's products sum in double here, the CPU kernel's in float in its own blocked
// order, and the CPU's LSTM runs Eigen's tanh and logistic; nothing else differs. Where
// the terms of a weight gradient's sum cancel, the CPU's float sum alone strays by 1e-5
// and more (the 40x12 GRU's recurrent kernel gradient differs by 1.4e-5 on an element of
// 0.11 between a gcc and a clang build): the CUDA table's tolerance. A slip in the plan
// (a wrong row, step or leading dimension) is off by far more.
constexpr float kTolerance = 1e-4f;

::testing::AssertionResult agree(const Tensor& actual, const Tensor& expected) {
  if (actual.shape() != expected.shape()) {
    return ::testing::AssertionFailure() << "shape " << actual.shape().to_string() << ", expected "
                                         << expected.shape().to_string();
  }
  for (std::int64_t i = 0; i < actual.size(); ++i) {
    const float a = actual.item(i), e = expected.item(i);
    if (!(std::fabs(a - e) <= kTolerance * (1.f + std::fabs(e)))) {
      return ::testing::AssertionFailure() << "element " << i << " is " << a << ", the CPU kernel gives " << e;
    }
  }
  return ::testing::AssertionSuccess();
}

std::vector<const Tensor*> inputs_of(const std::vector<Tensor>& ts) {
  std::vector<const Tensor*> p;
  for (const Tensor& t : ts) p.push_back(&t);
  return p;
}
std::vector<Tensor*> outputs_of(std::vector<Tensor>& ts) {
  std::vector<Tensor*> p;
  for (Tensor& t : ts) p.push_back(&t);
  return p;
}

}  // namespace

// rnn_sequence: y, the last h and c, and the workspace, laid out as the CPU writes them.
TEST(CudaRnnPlan, TheForwardPlanOnTheHostGivesTheCpuKernelsOutputs) {
  std::uint64_t seed = 2700;
  for (const RnnCase& r : rnn_configurations()) {
    std::vector<Tensor> inputs = rnn_inputs(r, seed);
    const std::vector<Tensor> expected = rnn_cpu_forward(r, seed, inputs);
    const Node node = rnn_node("rnn_sequence", r, seed, inputs);
    std::vector<Tensor> actual = rnn_nan_outputs(node);
    const KernelContext ctx = rnn_context(r, node, inputs_of(inputs), outputs_of(actual));
    const ops::Config c(node, inputs[0].shape(), inputs[4].shape()[0], r.masked);
    const cuda::RnnForwardIO io{.x = inputs[0].data<float>(),
                                .h0 = inputs[1].data<float>(),
                                .c0 = inputs[2].data<float>(),
                                .kernel = inputs[3].data<float>(),
                                .recurrent_kernel = inputs[4].data<float>(),
                                .bias = inputs[5].data<float>(),
                                .mask = r.masked ? inputs[6].data<float>() : nullptr,
                                .y = actual[0].data<float>(),
                                .h = actual[1].data<float>(),
                                .c = actual[2].data<float>(),
                                .workspace = actual[3].data<float>()};
    HostRnnDevice device;
    cuda::run_rnn_forward(device, c, cuda::rnn_dropout(ctx, c), io);
    for (std::size_t i = 0; i < expected.size(); ++i) {
      EXPECT_TRUE(agree(actual[i], expected[i])) << r.label << ", output " << i;
    }
    seed += 10;
  }
}

// rnn_sequence_grad, fed the CPU forward pass's workspace: dx, dh0, dc0, and the kernel,
// recurrent kernel and bias gradients.
TEST(CudaRnnPlan, TheBackwardPlanOnTheHostGivesTheCpuKernelsGradients) {
  std::uint64_t seed = 2700;
  for (const RnnCase& r : rnn_configurations()) {
    std::vector<Tensor> inputs = rnn_grad_inputs(r, seed);
    const Node node = rnn_node("rnn_sequence_grad", r, seed, inputs);
    std::vector<Tensor> expected = rnn_nan_outputs(node), actual = rnn_nan_outputs(node);
    KernelContext cpu = rnn_context(r, node, inputs_of(inputs), outputs_of(expected));
    node.def->on(DeviceType::cpu)->run(cpu);
    const KernelContext ctx = rnn_context(r, node, inputs_of(inputs), outputs_of(actual));
    const ops::Config c(node, inputs[0].shape(), inputs[4].shape()[0], r.masked);
    const cuda::RnnBackwardIO io{.x = inputs[0].data<float>(),
                                 .h0 = inputs[1].data<float>(),
                                 .c0 = inputs[2].data<float>(),
                                 .kernel = inputs[3].data<float>(),
                                 .recurrent_kernel = inputs[4].data<float>(),
                                 .workspace = inputs[6].data<float>(),
                                 .dy = inputs[7].data<float>(),
                                 .dh = inputs[8].data<float>(),
                                 .dc = inputs[9].data<float>(),
                                 .mask = r.masked ? inputs[10].data<float>() : nullptr,
                                 .dx = actual[0].data<float>(),
                                 .dh0 = actual[1].data<float>(),
                                 .dc0 = actual[2].data<float>(),
                                 .dkernel = actual[3].data<float>(),
                                 .drecurrent_kernel = actual[4].data<float>(),
                                 .dbias = actual[5].data<float>()};
    HostRnnDevice device;
    cuda::run_rnn_backward(device, c, cuda::rnn_dropout(ctx, c), io);
    for (std::size_t i = 0; i < expected.size(); ++i) {
      EXPECT_TRUE(agree(actual[i], expected[i])) << r.label << ", output " << i;
    }
    seed += 10;
  }
}

}  // namespace cuda_rnn_plan_test
