// The CUDA kernels of the linear-algebra ops (core/ops/linalg_ops.h; the CPU's are in
// core/cpu/kernels/linalg.cc): matrix_inverse, matrix_determinant and cholesky, a thread per
// matrix (core/cuda/linalg.cu), and qr. Defined only in a build with STRATA_WITH_CUDA; this header is
// plain C++ and compiles in every build.
#pragma once

namespace strata {
struct KernelContext;
class OpRegistry;
}

namespace strata::cuda {

void matrix_inverse(KernelContext& ctx);
void matrix_determinant(KernelContext& ctx);
void cholesky(KernelContext& ctx);
// qr (core/ops/matrix_decompositions.h); svd, singular_values and self_adjoint_eig have no
// CUDA kernel (their vectors' signs are Eigen's algorithms').
void qr(KernelContext& ctx);

// Binds the ops these kernels serve in the op table (core/cuda/register_kernels.cc calls it).
void register_linalg_kernels(OpRegistry& registry);

}  // namespace strata::cuda
