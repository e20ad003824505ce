#include "core/cpu/packed_gemm.h"

#include <algorithm>
#include <cstdlib>

#include "core/cpu/aligned_buffer.h"
#include "core/cpu/isa_kernels.h"

namespace strata::cpu {

namespace {

// The kernels of a path, or null for the portable one (Eigen's).
const PackedGemmKernels* kernels_of(Isa isa) {
#if defined(STRATA_X86_KERNELS)
  switch (isa) {
    case Isa::kAvx512:
      return &avx512::packed_gemm_kernels();
    case Isa::kAvx2:
      return &avx2::packed_gemm_kernels();
    case Isa::kPortable:
      break;
  }
#endif
  return nullptr;
}

const PackedGemmKernels& current() {
  const PackedGemmKernels* k = kernels_of(kernel_isa());
  if (k == nullptr) std::abort();  // callers check packed_gemm_available() first
  return *k;
}

}  // namespace

// Here, in a file compiled for no instruction set in particular: the buffers' code
// (allocation, the thread's destructor) must not come from a file compiled for AVX-512,
// whose inline functions another file might end up calling on a CPU without it.
float* packing_buffer(int which, std::size_t floats) {
  thread_local AlignedBuffer buffers[2];
  return buffers[which].reserve(floats);
}

bool packed_gemm_available() { return kernels_of(kernel_isa()) != nullptr; }

std::int64_t packed_gemm_max_depth() {
  const PackedGemmKernels* k = kernels_of(kernel_isa());
  return k ? k->max_depth() : 0;
}

void packed_gemm(bool ta, bool tb, std::int64_t m, std::int64_t n, std::int64_t k, const float* a, std::int64_t lda,
                 const float* b, std::int64_t ldb, float* c, std::int64_t ldc, bool accumulate,
                 const Epilogue& epilogue) {
  current().gemm(ta, tb, m, n, k, a, lda, b, ldb, c, ldc, accumulate, epilogue);
}

// The blocking the kernel's blocked product uses for a k×n op(B): blocks of k, and of
// columns.
void PackedB::pack(bool tb, std::int64_t k, std::int64_t n, const float* b, std::int64_t ldb) {
  k_ = k;
  n_ = n;
  offsets_.clear();
  if (k <= 0 || n <= 0) {
    n_ = 0;
    return;
  }
  const PackedGemmKernels& kernels = current();
  isa_ = kernel_isa();
  const auto [depth_step, col_step] = kernels.blocking(k);
  const std::int64_t width = kernels.sliver_width(n);
  width_ = width;
  column_blocks_ = (n + col_step - 1) / col_step;
  std::int64_t total = 0;
  for (std::int64_t pc = 0; pc < k; pc += depth_step) {
    for (std::int64_t jc = 0; jc < n; jc += col_step) {
      offsets_.push_back(total);
      const std::int64_t kc = std::min(depth_step, k - pc), nc = std::min(col_step, n - jc);
      total += (nc + width - 1) / width * width * kc;
    }
  }
  float* out = data_.reserve(static_cast<std::size_t>(total));
  std::size_t block = 0;
  for (std::int64_t pc = 0; pc < k; pc += depth_step) {
    for (std::int64_t jc = 0; jc < n; jc += col_step) {
      const std::int64_t kc = std::min(depth_step, k - pc), nc = std::min(col_step, n - jc);
      const float* src = tb ? b + jc * ldb + pc : b + pc * ldb + jc;
      kernels.pack_b(tb, src, ldb, kc, nc, width, out + offsets_[block++]);
    }
  }
}

void packed_gemm_prepacked(std::int64_t m, const float* a, std::int64_t lda, const PackedB& b, float* c,
                           std::int64_t ldc, bool accumulate, const Epilogue& epilogue) {
  const PackedGemmKernels* k = kernels_of(b.isa());
  if (k == nullptr) std::abort();  // packed only where a kernel is
  k->gemm_prepacked(m, a, lda, b, c, ldc, accumulate, epilogue, 0, b.n());
}

void packed_gemm_prepacked_columns(std::int64_t m, const float* a, std::int64_t lda, const PackedB& b,
                                   std::int64_t col_begin, std::int64_t col_end, float* c, std::int64_t ldc,
                                   bool accumulate, const Epilogue& epilogue) {
  if (col_begin < 0 || col_end > b.n() || col_begin % b.sliver_width() != 0) std::abort();
  const PackedGemmKernels* k = kernels_of(b.isa());
  if (k == nullptr) std::abort();  // packed only where a kernel is
  k->gemm_prepacked(m, a, lda, b, c, ldc, accumulate, epilogue, col_begin, col_end);
}

}  // namespace strata::cpu
