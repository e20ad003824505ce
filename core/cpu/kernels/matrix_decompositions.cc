// The CPU kernels of the matrix decompositions (core/ops/matrix_decompositions.h) on the
// Eigen classes TensorFlow's CPU kernels use, called as TensorFlow calls them (qr_op_impl.h,
// svd_op_impl.h, self_adjoint_eig_v2_op_impl.h, lu_op.cc): the singular and eigenvectors'
// signs, which no definition fixes, then come out as TensorFlow's. The batch's matrices run on
// the thread pool. eig's kernel has a file of its own (eig.cc), compiled as TensorFlow's is.
#include <Eigen/Core>
#include <Eigen/Eigenvalues>
#include <Eigen/LU>
#include <Eigen/QR>
#include <Eigen/SVD>

#include <algorithm>
#include <atomic>
#include <cmath>
#include <string>

#include "core/cpu/kernels/register.h"
#include "core/cpu/parallel.h"
#include "core/error.h"
#include "core/op_registry.h"
#include "core/ops/matrix_decompositions.h"

namespace strata::cpu {

namespace {

using DecompositionMatrix = Eigen::Matrix<float, Eigen::Dynamic, Eigen::Dynamic, Eigen::RowMajor>;
using ConstDecompositionMap = Eigen::Map<const DecompositionMatrix>;
using DecompositionMap = Eigen::Map<DecompositionMatrix>;
using ValuesMap = Eigen::Map<Eigen::VectorXf>;

// fn(i, a_i) for each matrix of the input, in parallel.
template <typename Fn>
void each_decomposed_matrix(KernelContext& ctx, Fn fn) {
  const ops::MatrixShape s = ops::matrix_shape(ctx.input(0).shape());
  const float* a = ctx.input(0).data<float>();
  const std::int64_t size = s.rows * s.cols;
  parallel_for(s.count, [&](std::int64_t b, std::int64_t e) {
    for (std::int64_t i = b; i < e; ++i) fn(i, ConstDecompositionMap(a + i * size, s.rows, s.cols));
  }, threshold_for(size * std::max(s.rows, s.cols)));
}

void qr_kernel(KernelContext& ctx) {
  const bool full = ctx.node.attrs.get_or<bool>("full_matrices", false);
  const ops::MatrixShape s = ops::matrix_shape(ctx.input(0).shape());
  const std::int64_t m = s.rows, n = s.cols, k = full ? m : std::min(m, n);
  float* q = ctx.output(0).data<float>();
  float* r = ctx.output(1).data<float>();
  each_decomposed_matrix(ctx, [&](std::int64_t i, const ConstDecompositionMap& a) {
    const Eigen::HouseholderQR<DecompositionMatrix> qr(a);
    DecompositionMap q_i(q + i * m * k, m, k);
    if (full) {
      q_i = qr.householderQ();
    } else {
      // The first k columns of Q: the reflections applied to the identity's, as TensorFlow.
      DecompositionMatrix thin = DecompositionMatrix::Identity(m, k);
      qr.householderQ().setLength(k).applyThisOnTheLeft(thin);
      q_i = thin;
    }
    DecompositionMap(r + i * k * n, k, n) = qr.matrixQR().topRows(k).template triangularView<Eigen::Upper>();
  });
}

void svd_kernel(KernelContext& ctx) {
  const bool full = ctx.node.attrs.get_or<bool>("full_matrices", false);
  const ops::MatrixShape s = ops::matrix_shape(ctx.input(0).shape());
  const std::int64_t m = s.rows, n = s.cols, k = std::min(m, n);
  const std::int64_t u_cols = full ? m : k, v_cols = full ? n : k;
  float* values = ctx.output(0).data<float>();
  float* u = ctx.output(1).data<float>();
  float* v = ctx.output(2).data<float>();
  const unsigned options = full ? Eigen::ComputeFullU | Eigen::ComputeFullV : Eigen::ComputeThinU | Eigen::ComputeThinV;
  each_decomposed_matrix(ctx, [&](std::int64_t i, const ConstDecompositionMap& a) {
    const Eigen::BDCSVD<DecompositionMatrix> svd(a, options);
    ValuesMap(values + i * k, k) = svd.singularValues();
    DecompositionMap(u + i * m * u_cols, m, u_cols) = svd.matrixU();
    DecompositionMap(v + i * n * v_cols, n, v_cols) = svd.matrixV();
  });
}

void singular_values_kernel(KernelContext& ctx) {
  const ops::MatrixShape s = ops::matrix_shape(ctx.input(0).shape());
  const std::int64_t k = std::min(s.rows, s.cols);
  float* values = ctx.output(0).data<float>();
  each_decomposed_matrix(ctx, [&](std::int64_t i, const ConstDecompositionMap& a) {
    ValuesMap(values + i * k, k) = Eigen::BDCSVD<DecompositionMatrix>(a).singularValues();
  });
}

void self_adjoint_eig_kernel(KernelContext& ctx) {
  const std::int64_t n = ops::matrix_shape(ctx.input(0).shape()).cols;
  float* values = ctx.output(0).data<float>();
  float* vectors = ctx.output(1).data<float>();
  each_decomposed_matrix(ctx, [&](std::int64_t i, const ConstDecompositionMap& a) {
    const Eigen::SelfAdjointEigenSolver<DecompositionMatrix> eig(a, Eigen::ComputeEigenvectors);
    ValuesMap(values + i * n, n) = eig.eigenvalues();
    DecompositionMap(vectors + i * n * n, n, n) = eig.eigenvectors();
  });
}

void lu_kernel(KernelContext& ctx) {
  const std::int64_t n = ops::matrix_shape(ctx.input(0).shape()).cols;
  float* lu = ctx.output(0).data<float>();
  std::int32_t* from = ctx.output(1).data<std::int32_t>();
  std::atomic<std::int64_t> singular{-1};  // a matrix with a pivot of 0 (thrown after the loop)
  each_decomposed_matrix(ctx, [&](std::int64_t i, const ConstDecompositionMap& m) {
    const Eigen::PartialPivLU<DecompositionMatrix> f(m);
    DecompositionMap(lu + i * n * n, n, n) = f.matrixLU();
    // TensorFlow's guard: an exact 0 pivot (a NaN is not caught, there as here).
    if (!(f.matrixLU().diagonal().cwiseAbs().minCoeff() > 0.f)) singular = i;
    // P a = L U, and Eigen's P sends row r of a to row indices[r]: L U's row indices[r] came
    // from a's row r.
    const auto& to = f.permutationP().indices();
    for (std::int64_t r = 0; r < n; ++r) from[i * n + to[r]] = static_cast<std::int32_t>(r);
  });
  if (singular >= 0)
    throw ValueError("lu: matrix " + std::to_string(singular.load()) + " of " + ctx.input(0).shape().to_string() +
                     " is not invertible (a pivot of 0), as TensorFlow's Lu refuses it");
}

}  // namespace

void register_matrix_decomposition_kernels(OpRegistry& r) {
  r.add_kernel("qr", DeviceType::cpu, {.run = qr_kernel});
  r.add_kernel("svd", DeviceType::cpu, {.run = svd_kernel});
  r.add_kernel("singular_values", DeviceType::cpu, {.run = singular_values_kernel});
  r.add_kernel("self_adjoint_eig", DeviceType::cpu, {.run = self_adjoint_eig_kernel});
  r.add_kernel("lu", DeviceType::cpu, {.run = lu_kernel});
}

}  // namespace strata::cpu
