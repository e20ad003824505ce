// The CUDA kernel of batch_matmul (registered by register_*_kernels, below; the CPU
// kernel is in core/cpu/kernels/batch_matmul.cc): cuBLAS's strided-batched float32 GEMM
// over the leading dims, one product per batch entry of the last two axes, with the
// transpose attrs read as on the CPU. Strict float32: the run context's cuBLAS handle
// never enables TF32 (core/cuda/cublas_handle.h). Defined only in a build with
// STRATA_WITH_CUDA; this header is plain C++ and compiles in every build.
#pragma once

namespace strata {
struct KernelContext;
class OpRegistry;
}

namespace strata::cuda {

// batch_matmul(a (..., m, k), b (..., k, n)) -> (..., m, n), either operand's last two
// axes swapped by transpose_a / transpose_b.
void batch_matmul(KernelContext& ctx);

// Binds the ops these kernels serve in the op table (core/cuda/register_kernels.cc calls it).
void register_batch_matmul_kernels(OpRegistry& registry);

}  // namespace strata::cuda
