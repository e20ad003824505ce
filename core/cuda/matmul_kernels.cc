#include "core/cuda/kernel_registration.h"
#include "core/cuda/matmul_kernels.h"

#include <cstdint>
#include <utility>

#include "core/cuda/check.h"
#include "core/cuda/dense_int8_launch.h"
#include "core/cuda/dense_epilogue.h"
#include "core/cuda/device_floats.h"
#include "core/cuda/elementwise_launch.h"
#include "core/cuda/gemm.h"
#include "core/cuda/output_rounding.h"
#include "core/cuda/run_context.h"
#include "core/op_registry.h"
#include "core/ops/fused_activation.h"

namespace strata::cuda {

namespace {

// (rows, cols) of a tensor read as a matrix: product of leading dims, last dim.
std::pair<std::int64_t, std::int64_t> as_matrix(const Shape& s) {
  if (s.rank() < 1) return {1, 1};
  return {s.product(0, s.rank() - 1), s.dims()[static_cast<std::size_t>(s.rank() - 1)]};
}

}  // namespace

void matmul(KernelContext& ctx) {
  const RunContext& run = run_context(ctx);
  const Tensor& a = ctx.input(0);
  const Tensor& b = ctx.input(1);
  auto [ar, ac] = as_matrix(a.shape());
  auto [br, bc] = as_matrix(b.shape());
  const bool ta = ctx.node.attrs.get<bool>("transpose_a"), tb = ctx.node.attrs.get<bool>("transpose_b");
  const std::int64_t m = ta ? ac : ar, k = ta ? ar : ac, n = tb ? br : bc;
  gemm(ctx, run, m, n, k, {floats(a), ac, ta}, {floats(b), bc, tb}, floats(ctx.output(0)), n);
  round_output_in_place(ctx, floats(ctx.output(0)), m * n, run.stream().get());
}

void dense(KernelContext& ctx) {
  RunContext& run = run_context(ctx);
  const Tensor& x = ctx.input(0);
  const Tensor& kernel = ctx.input(1);
  const float* bias = ctx.inputs.size() == 3 ? floats(ctx.input(2)) : nullptr;
  const bool relu = ops::fuses_relu(ctx.node);
  auto [rows, in] = as_matrix(x.shape());
  const std::int64_t units = kernel.shape()[1];
  float* y = floats(ctx.output(0));
  // With a bias or a relu, one cuBLASLt product with both in its epilogue where it has an
  // algorithm for the shapes; else the product, then a pass over y for them.
  if ((bias || relu) &&
      run.dense_epilogue().run(ctx, run, rows, units, in, floats(x), floats(kernel), bias, relu, y)) {
    round_output_in_place(ctx, y, rows * units, run.stream().get());
    return;
  }
  gemm(ctx, run, rows, units, in, {floats(x), in}, {floats(kernel), units}, y, units);
  launch_bias_relu(y, bias, relu, rows, units, run.stream().get());
  check_launch(ctx);
  round_output_in_place(ctx, y, rows * units, run.stream().get());
}

// Keras's int8 Dense product: the rows quantized into the run's workspace, then the
// product in int32 (core/cuda/dense_int8.cu).
void dense_int8(KernelContext& ctx) {
  RunContext& run = run_context(ctx);
  const Tensor& x = ctx.input(0);
  const Tensor& kernel = ctx.input(1);
  auto [rows, in] = as_matrix(x.shape());
  const std::int64_t units = kernel.shape()[1];
  if (rows == 0 || units == 0) return;
  const std::size_t values_bytes = (static_cast<std::size_t>(rows * in) + 255) / 256 * 256;
  auto* scratch = static_cast<char*>(run.workspace().get(values_bytes + static_cast<std::size_t>(rows) * sizeof(float)));
  auto* q = reinterpret_cast<std::int8_t*>(scratch);
  auto* scales = reinterpret_cast<float*>(scratch + values_bytes);
  launch_quantize_rows_int8(floats(x), rows, in, q, scales, run.stream().get());
  const float* bias = ctx.inputs.size() == 4 ? floats(ctx.input(3)) : nullptr;
  launch_dense_int8_product(q, scales, floats(kernel), floats(ctx.input(2)), bias, ops::fuses_relu(ctx.node), rows, in,
                            units, floats(ctx.output(0)), run.stream().get());
  check_launch(ctx);
}

void register_matmul_kernels(OpRegistry& r) {
  add_kernel(r, "dense", dense);
  add_kernel(r, "matmul", matmul);
  add_kernel(r, "dense_int8", dense_int8);
}

}  // namespace strata::cuda
