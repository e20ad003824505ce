// The packed GEMM compiled for avx2 (core/cpu/packed_gemm_kernel.h; the flags in
// CMakeLists.txt). packed_gemm.cc calls it where cpu::kernel_isa() is avx2.
#include "core/cpu/avx2/ops.h"
#include "core/cpu/packed_gemm_kernel.h"

namespace strata::cpu::avx2 {

const PackedGemmKernels& packed_gemm_kernels() { return PackedGemm<Ops>::kernels(); }

}  // namespace strata::cpu::avx2
