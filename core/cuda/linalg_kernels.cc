// Host side of the linear-algebra CUDA kernels: the batch of matrices, the workspace the
// eliminations run in, then one launch (core/cuda/linalg.cu).
#include "core/cuda/linalg_kernels.h"

#include <algorithm>
#include <cstddef>

#include "core/cuda/check.h"
#include "core/cuda/device_floats.h"
#include "core/cuda/kernel_registration.h"
#include "core/cuda/linalg_launch.h"
#include "core/cuda/run_context.h"
#include "core/cuda/workspace.h"
#include "core/op_registry.h"
#include "core/ops/linalg_ops.h"
#include "core/ops/matrix_decompositions.h"

namespace strata::cuda {

namespace {

// count·n·n floats of the run's workspace: a copy of the matrices to eliminate in.
float* elimination_space(KernelContext& ctx, const ops::MatrixBatch& b) {
  const auto bytes = static_cast<std::size_t>(b.count * b.n * b.n) * sizeof(float);
  return bytes == 0 ? nullptr : static_cast<float*>(run_context(ctx).workspace().get(bytes));
}

}  // namespace

void matrix_inverse(KernelContext& ctx) {
  const ops::MatrixBatch b = ops::matrix_batch(ctx.input(0).shape());
  float* work = elimination_space(ctx, b);
  launch_matrix_inverse(floats(ctx.input(0)), floats(ctx.output(0)), work, b.count, b.n,
                        run_context(ctx).stream().get());
  check_launch(ctx);
}

void matrix_determinant(KernelContext& ctx) {
  const ops::MatrixBatch b = ops::matrix_batch(ctx.input(0).shape());
  float* work = elimination_space(ctx, b);
  launch_matrix_determinant(floats(ctx.input(0)), floats(ctx.output(0)), work, b.count, b.n,
                            run_context(ctx).stream().get());
  check_launch(ctx);
}

void cholesky(KernelContext& ctx) {
  const ops::MatrixBatch b = ops::matrix_batch(ctx.input(0).shape());
  launch_cholesky(floats(ctx.input(0)), floats(ctx.output(0)), b.count, b.n, run_context(ctx).stream().get());
  check_launch(ctx);
}

void qr(KernelContext& ctx) {
  const ops::MatrixShape s = ops::matrix_shape(ctx.input(0).shape());
  const auto bytes = static_cast<std::size_t>(s.count * (s.rows * s.cols + std::min(s.rows, s.cols))) * sizeof(float);
  float* work = bytes == 0 ? nullptr : static_cast<float*>(run_context(ctx).workspace().get(bytes));
  launch_qr(floats(ctx.input(0)), floats(ctx.output(0)), floats(ctx.output(1)), work, s.count, s.rows, s.cols,
            ctx.node.attrs.get_or<bool>("full_matrices", false), run_context(ctx).stream().get());
  check_launch(ctx);
}

void register_linalg_kernels(OpRegistry& r) {
  add_kernel(r, "matrix_inverse", matrix_inverse);
  add_kernel(r, "matrix_determinant", matrix_determinant);
  add_kernel(r, "cholesky", cholesky);
  add_kernel(r, "qr", qr);
}

}  // namespace strata::cuda
