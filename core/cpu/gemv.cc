#include "core/cpu/gemv.h"

#include <cstdlib>

#include "core/cpu/cpu_isa.h"
#include "core/cpu/isa_kernels.h"

namespace strata::cpu {

namespace {

// The kernel of a path, or null for the portable one (Eigen's).
GemvRowKernel kernel_of(Isa isa) {
#if defined(STRATA_X86_KERNELS)
  switch (isa) {
    case Isa::kAvx512:
      return avx512::gemv_row;
    case Isa::kAvx2:
      return avx2::gemv_row;
    case Isa::kPortable:
      break;
  }
#endif
  return nullptr;
}

}  // namespace

bool gemv_available() { return kernel_of(kernel_isa()) != nullptr; }

GemvRowKernel gemv_kernel() { return kernel_of(kernel_isa()); }

void gemv_row(std::int64_t n, std::int64_t k, const float* a, std::int64_t inc_a, const float* b, std::int64_t ldb,
              float* c, GemvEpilogue epilogue) {
  const GemvRowKernel kernel = kernel_of(kernel_isa());
  if (kernel == nullptr) std::abort();  // callers check gemv_available() first
  kernel(n, k, a, inc_a, b, ldb, c, epilogue);
}

}  // namespace strata::cpu
