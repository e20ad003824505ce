// The CUDA kernels of matmul and dense (registered by register_*_kernels, below; the
// CPU kernels are in core/cpu/kernels/matmul.cc): cuBLAS's float32 GEMM on row-major
// matrices, with the CPU kernels' reading of shapes (leading dims of an N-D operand
// flattened into rows; transpose attrs). dense adds its bias and relu in cuBLASLt's
// epilogue (core/cuda/dense_epilogue.h), or in one pass after the product where cuBLASLt
// has no algorithm. dense_int8 (Keras's int8 Dense product) runs kernels of its own
// (core/cuda/dense_int8.cu). Defined only in a build with STRATA_WITH_CUDA; this header is plain
// C++ and compiles in every build.
#pragma once

namespace strata {
struct KernelContext;
class OpRegistry;
}

namespace strata::cuda {

void matmul(KernelContext& ctx);
void dense(KernelContext& ctx);
void dense_int8(KernelContext& ctx);

// Binds the ops these kernels serve in the op table (core/cuda/register_kernels.cc calls it).
void register_matmul_kernels(OpRegistry& registry);

}  // namespace strata::cuda
