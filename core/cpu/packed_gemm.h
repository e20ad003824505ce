// Strata's own single-threaded SGEMM kernel: operands packed into cache-sized panels, a
// register tile of C updated by fused multiply-adds, for AVX-512 and for AVX2 machines
// (the path chosen at run time: cpu_isa.h; the kernel: packed_gemm_kernel.h).
//
// Eigen's kernel reached 70-90% of oneDNN's on the shapes our models run and a quarter
// of it where the output has few columns (a 10-class Dense layer); oneDNN's sgemm
// allocates its packing buffers on every call, which a training step must not do
// (docs/performance.md). This kernel packs into per-thread buffers that only grow.
// cpu::gemm (gemm.h) calls it for each thread's block of a product.
#pragma once

#include <cstdint>
#include <vector>

#include "core/cpu/aligned_buffer.h"
#include "core/cpu/cpu_isa.h"
#include "core/cpu/epilogue.h"

namespace strata::cpu {

// True when the kernels' path (cpu::kernel_isa()) has this kernel (AVX2 or AVX-512);
// otherwise packed_gemm must not be called and cpu::gemm uses Eigen's kernel.
bool packed_gemm_available();

// The most steps of k the kernel takes in one block on this machine (KC: sized from L1d,
// read once). A product with more steps runs in equal blocks, one pass over C each;
// tests use it to reach several blocks on any machine.
std::int64_t packed_gemm_max_depth();

// C = op(A)·op(B), or C += op(A)·op(B) when `accumulate`, then the epilogue; row-major,
// the operands and strides as cpu::gemm's. Runs on the calling thread only.
void packed_gemm(bool transpose_a, bool transpose_b, std::int64_t m, std::int64_t n, std::int64_t k, const float* a,
                 std::int64_t lda, const float* b, std::int64_t ldb, float* c, std::int64_t ldc, bool accumulate,
                 const Epilogue& epilogue = {});

// op(B) packed once for every product with it: a layer's weights, which packed_gemm packs
// again on each call (11% of ResNet50's batch-1 time went to that). Blocked as
// packed_gemm blocks a k×n op(B) on this machine for the kernels' path of the moment, so
// a product with it packs nothing; the products read it with that path's kernel.
class PackedB {
 public:
  // Packs op(B) (k×n; B stored n×k when transpose_b), replacing what it held.
  // Only where packed_gemm_available().
  void pack(bool transpose_b, std::int64_t k, std::int64_t n, const float* b, std::int64_t ldb);
  std::int64_t k() const { return k_; }
  std::int64_t n() const { return n_; }
  bool empty() const { return n_ == 0; }
  // The path whose kernel packed it (and reads it).
  Isa isa() const { return isa_; }
  // Columns per packed sliver: a share of the product's columns starts at a multiple.
  std::int64_t sliver_width() const { return width_; }

  // The packed block of k-block `pc_block` and column block `jc_block` (the kernel's).
  const float* block(std::int64_t pc_block, std::int64_t jc_block) const {
    return data_.get() + offsets_[static_cast<std::size_t>(pc_block * column_blocks_ + jc_block)];
  }

 private:
  AlignedBuffer data_;
  std::vector<std::int64_t> offsets_;
  std::int64_t k_ = 0, n_ = 0, column_blocks_ = 0, width_ = 0;
  Isa isa_ = Isa::kPortable;
};

// C = A·B, or C += A·B when `accumulate`, then the epilogue: A m×k row-major (lda), B
// packed. Runs on the calling thread only; the same as packed_gemm(false, ...) on B
// unpacked, on the path that packed B.
void packed_gemm_prepacked(std::int64_t m, const float* a, std::int64_t lda, const PackedB& b, float* c,
                           std::int64_t ldc, bool accumulate, const Epilogue& epilogue = {});
// Only C's columns [col_begin, col_end) of that product (col_begin a multiple of
// b.sliver_width()): one thread's share when the columns are split.
void packed_gemm_prepacked_columns(std::int64_t m, const float* a, std::int64_t lda, const PackedB& b,
                                   std::int64_t col_begin, std::int64_t col_end, float* c, std::int64_t ldc,
                                   bool accumulate, const Epilogue& epilogue = {});

}  // namespace strata::cpu
