// The CPU kernels of the linear-algebra ops (core/ops/linalg_ops.h) on Eigen, a matrix at a
// time: matrix_inverse and matrix_determinant by LU with partial pivoting (Eigen's
// PartialPivLU, as TensorFlow's CPU kernels), cholesky by Eigen's LLT of the lower triangle.
// The batch's matrices run on the thread pool.
#include <Eigen/Cholesky>
#include <Eigen/Core>
#include <Eigen/LU>

#include <limits>

#include "core/cpu/kernels/register.h"
#include "core/cpu/parallel.h"
#include "core/op_registry.h"
#include "core/ops/linalg_ops.h"

namespace strata::cpu {

namespace {

using RowMatrix = Eigen::Matrix<float, Eigen::Dynamic, Eigen::Dynamic, Eigen::RowMajor>;
using ConstMatrixMap = Eigen::Map<const RowMatrix>;
using MatrixMap = Eigen::Map<RowMatrix>;

// fn(i, a_i) for each matrix of the input, in parallel.
template <typename Fn>
void each_matrix(KernelContext& ctx, Fn fn) {
  const ops::MatrixBatch b = ops::matrix_batch(ctx.input(0).shape());
  const float* a = ctx.input(0).data<float>();
  parallel_for(b.count, [&](std::int64_t s, std::int64_t e) {
    for (std::int64_t i = s; i < e; ++i) fn(i, ConstMatrixMap(a + i * b.n * b.n, b.n, b.n), b.n);
  }, threshold_for(b.n * b.n * b.n));
}

void matrix_inverse_kernel(KernelContext& ctx) {
  float* y = ctx.output(0).data<float>();
  each_matrix(ctx, [&](std::int64_t i, const ConstMatrixMap& a, std::int64_t n) {
    MatrixMap(y + i * n * n, n, n) = Eigen::PartialPivLU<RowMatrix>(a).inverse();
  });
}

void matrix_determinant_kernel(KernelContext& ctx) {
  float* y = ctx.output(0).data<float>();
  each_matrix(ctx, [&](std::int64_t i, const ConstMatrixMap& a, std::int64_t n) {
    y[i] = n == 0 ? 1.0f : Eigen::PartialPivLU<RowMatrix>(a).determinant();
  });
}

void cholesky_kernel(KernelContext& ctx) {
  float* y = ctx.output(0).data<float>();
  each_matrix(ctx, [&](std::int64_t i, const ConstMatrixMap& a, std::int64_t n) {
    MatrixMap l(y + i * n * n, n, n);
    const Eigen::LLT<RowMatrix, Eigen::Lower> llt(a);
    if (llt.info() != Eigen::Success) {
      l.setConstant(std::numeric_limits<float>::quiet_NaN());
      return;
    }
    l = llt.matrixL();
  });
}

}  // namespace

void register_linalg_kernels(OpRegistry& r) {
  r.add_kernel("matrix_inverse", DeviceType::cpu, {.run = matrix_inverse_kernel});
  r.add_kernel("matrix_determinant", DeviceType::cpu, {.run = matrix_determinant_kernel});
  r.add_kernel("cholesky", DeviceType::cpu, {.run = cholesky_kernel});
}

}  // namespace strata::cpu
