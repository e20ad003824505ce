// The CUDA kernels of matmul and dense (core/cuda/register_kernels.cc registers them; the
// CPU kernels are in core/cpu/kernels/matmul.cc): cuBLAS's float32 GEMM on row-major
// matrices, with the CPU kernels' reading of shapes (leading dims of an N-D operand
// flattened into rows; transpose attrs). dense adds its bias and relu in cuBLASLt's
// epilogue (core/cuda/dense_epilogue.h), or in one pass after the product where cuBLASLt
// has no algorithm. Defined only in a build with STRATA_WITH_CUDA; this header is plain
// C++ and compiles in every build.
#pragma once

namespace strata {
struct KernelContext;
}

namespace strata::cuda {

void matmul(KernelContext& ctx);
void dense(KernelContext& ctx);

}  // namespace strata::cuda
