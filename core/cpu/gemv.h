// Strata's matrix-vector kernel: one row of output, c = a·B, the product of a batch-1
// Dense layer, for AVX-512 and for AVX2 machines (the path chosen at run time:
// cpu_isa.h; the kernel and why it is fast: gemv_kernel.h). cpu::gemm (gemm.h) calls it
// for each thread's columns, or each thread's run of rows of B, of a one-row product.
#pragma once

#include <cstdint>

namespace strata::cpu {

// The widest row the kernel reads whole at each step of k (wider rows go in chunks of
// this many columns).
inline constexpr std::int64_t kGemvWholeRowColumns = 256;

// True when the kernels' path (cpu::kernel_isa()) has this kernel (AVX2 or AVX-512);
// otherwise gemv_row must not be called.
bool gemv_available();

// What a batch-1 Dense layer does to the product before it is stored: its bias (n
// floats, or none) added, then relu.
struct GemvEpilogue {
  const float* bias = nullptr;
  bool relu = false;
};

// The kernel of the path of the moment (null where gemv_available() is false), for
// callers that make several products in one prediction (a Dense pair): looked up once
// instead of once a product (the lookup was 0.6% of the MLP's batch-1 time).
using GemvRowKernel = void (*)(std::int64_t n, std::int64_t k, const float* a, std::int64_t inc_a, const float* b,
                               std::int64_t ldb, float* c, GemvEpilogue epilogue);
GemvRowKernel gemv_kernel();

// c[j] = Σ_p a[p·inc_a] · b[p·ldb + j] for j < n: a row vector of length k (elements
// inc_a apart) times a row-major k×n matrix with row stride ldb, then the epilogue, on
// the accumulators before they are stored. Runs on the calling thread only.
void gemv_row(std::int64_t n, std::int64_t k, const float* a, std::int64_t inc_a, const float* b, std::int64_t ldb,
              float* c, GemvEpilogue epilogue = {});

// Below this many multiply-adds (n·k) a one-row product runs on one thread: a fork-join
// costs more than the second core saves.
inline constexpr std::int64_t kGemvParallelMacs = std::int64_t{1} << 15;

}  // namespace strata::cpu
