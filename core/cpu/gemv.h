// Strata's matrix-vector kernel for AVX-512 machines: one row of output, c = a·B, the
// product of a batch-1 Dense layer.
//
// The product reads every weight once and does one multiply-add with it, so its speed is
// the speed at which a core streams B from its cache. Eigen's matrix-vector kernel
// streamed the MLP's weights at about 100 GB/s a core where plain loads reach 173
// (docs/performance.md, "What bounds the MLP's batch-1 latency"); this one keeps one
// accumulator in a register per 16 columns, up to 256 columns (a whole 1 KB row per step
// of k), so the loads never wait. cpu::gemm (gemm.h) calls it for each thread's columns,
// or each thread's run of rows of B, of a one-row product.
#pragma once

#include <cstdint>

namespace strata::cpu {

// The widest row the kernel reads whole at each step of k (wider rows go in chunks of
// this many columns).
inline constexpr std::int64_t kGemvWholeRowColumns = 256;

// True when this build has the kernel (compiled for a CPU with AVX-512F); otherwise
// gemv_row must not be called.
bool gemv_available() noexcept;

// What a batch-1 Dense layer does to the product before it is stored: its bias (n
// floats, or none) added, then relu.
struct GemvEpilogue {
  const float* bias = nullptr;
  bool relu = false;
};

// c[j] = Σ_p a[p·inc_a] · b[p·ldb + j] for j < n: a row vector of length k (elements
// inc_a apart) times a row-major k×n matrix with row stride ldb, then the epilogue, on
// the accumulators before they are stored. Runs on the calling thread only.
void gemv_row(std::int64_t n, std::int64_t k, const float* a, std::int64_t inc_a, const float* b, std::int64_t ldb,
              float* c, GemvEpilogue epilogue = {});

// Below this many multiply-adds (n·k) a one-row product runs on one thread: a fork-join
// costs more than the second core saves.
inline constexpr std::int64_t kGemvParallelMacs = std::int64_t{1} << 15;

}  // namespace strata::cpu
