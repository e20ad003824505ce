// The matrix-vector kernel compiled for avx2 (core/cpu/gemv_kernel.h; the flags in
// CMakeLists.txt). gemv.cc calls it where cpu::kernel_isa() is avx2.
#include "core/cpu/avx2/ops.h"
#include "core/cpu/gemv_kernel.h"
#include "core/cpu/isa_kernels.h"

namespace strata::cpu::avx2 {

void gemv_row(std::int64_t n, std::int64_t k, const float* a, std::int64_t inc_a, const float* b, std::int64_t ldb,
              float* c, GemvEpilogue epilogue) {
  Gemv<Ops>::row(n, k, a, inc_a, b, ldb, c, epilogue);
}

}  // namespace strata::cpu::avx2
