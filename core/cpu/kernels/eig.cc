// The CPU kernel of eig (core/ops/matrix_decompositions.h) as TensorFlow's CPU kernel computes
// it for a real matrix: Eigen's EigenSolver (the real Schur form), whose eigenvalue order and
// eigenvector phases, which no definition fixes, Keras's files then hold. Those phases move
// with rounding: fused multiply-adds moved a complex eigenvector's by up to 1e-2 in float32
// (the 4×4 matrix of tests/data/keras_ops_eig_golden.json). So this file is compiled as
// TensorFlow's wheel is (CMakeLists.txt): without FMA or AVX-512, each product rounded, and
// without the precompiled header (GCC compiles a template with the options in force where it
// was parsed). The batch's matrices run on the thread pool.
#include <Eigen/Core>
#include <Eigen/Eigenvalues>

#include <atomic>
#include <complex>
#include <string>

#include "core/cpu/kernels/register.h"
#include "core/cpu/parallel.h"
#include "core/error.h"
#include "core/op_registry.h"
#include "core/ops/matrix_decompositions.h"

namespace strata::cpu {

namespace {

// A matrix type of eig's own: the solver's templates are instantiated for it in this file
// alone, so the linker cannot take another file's copies of them, compiled with FMA.
using EigMatrix = Eigen::Matrix<float, Eigen::Dynamic, Eigen::Dynamic, Eigen::RowMajor | Eigen::DontAlign>;
using ConstMatrixMap = Eigen::Map<const Eigen::Matrix<float, Eigen::Dynamic, Eigen::Dynamic, Eigen::RowMajor>>;

void eig_kernel(KernelContext& ctx) {
  const ops::MatrixShape s = ops::matrix_shape(ctx.input(0).shape());
  const std::int64_t n = s.cols;
  const float* a = ctx.input(0).data<float>();
  float* values = ctx.output(0).data<float>();
  float* vectors = ctx.output(1).data<float>();
  std::atomic<std::int64_t> failed{-1};  // a matrix the solver failed on (thrown after the loop)
  parallel_for(s.count, [&](std::int64_t b, std::int64_t e) {
    for (std::int64_t i = b; i < e; ++i) {
      const Eigen::EigenSolver<EigMatrix> eig(EigMatrix(ConstMatrixMap(a + i * n * n, n, n)), true);
      if (eig.info() != Eigen::Success) {
        failed = i;
        continue;
      }
      const Eigen::VectorXcf e_i = eig.eigenvalues();
      const Eigen::MatrixXcf v_i = eig.eigenvectors();  // built on each call: once
      for (std::int64_t k = 0; k < n; ++k) {
        values[(i * n + k) * 2] = e_i(k).real();
        values[(i * n + k) * 2 + 1] = e_i(k).imag();
        for (std::int64_t c = 0; c < n; ++c) {
          vectors[((i * n + k) * n + c) * 2] = v_i(k, c).real();
          vectors[((i * n + k) * n + c) * 2 + 1] = v_i(k, c).imag();
        }
      }
    }
  }, threshold_for(n * n * n));
  if (failed >= 0)
    throw ValueError("eig: the eigen decomposition of matrix " + std::to_string(failed.load()) + " of " +
                     ctx.input(0).shape().to_string() + " was not successful (a NaN or an infinity?), as "
                     "TensorFlow's fails");
}

}  // namespace

void register_eig_kernel(OpRegistry& r) { r.add_kernel("eig", DeviceType::cpu, {.run = eig_kernel}); }

}  // namespace strata::cpu
