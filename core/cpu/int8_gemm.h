// Products of int8 matrices into int32, exactly: the arithmetic of Keras's int8 Dense and
// EinsumDense (`q · kernel` in int32, docs/precision.md), for the kernels of issue #39.
// One path per CPU, chosen at run time as the float GEMM's (cpu_isa.h):
//   avx512_vnni  AVX-512 VNNI's vpdpbusd, four products a lane per instruction: A's bytes
//                offset by 128 to unsigned (VNNI multiplies unsigned by signed), the
//                offset's share (128 · B's column sums) taken off at the end;
//   avx2         both operands widened to int16, pairs of products by vpmaddwd (an
//                AVX-512 machine without VNNI takes it too);
//   portable     the loops, in int32.
// Every path gives the same int32s, the exact sums, for up to kInt8GemmMaxDepth steps of k
// (|a·b| ≤ 2^14, so the sums of k < 2^17 products stay inside int32; VNNI's offset sums
// may pass it on the way, and wrap back: avx512/int8_gemm.cc).
#pragma once

#include <cstdint>
#include <vector>

namespace strata::cpu {

enum class Int8Path { kPortable, kAvx2, kAvx512Vnni };

// "portable", "avx2", "avx512_vnni".
const char* int8_path_name(Int8Path path);

// The path for the kernels' instruction set of the moment (kernel_isa(): STRATA_CPU_ISA
// forces a narrower one) and this CPU's VNNI.
Int8Path int8_path();

// Every path this CPU can run, narrowest first (tests).
std::vector<Int8Path> supported_int8_paths();

// The most steps of k a product may take (ValueError beyond).
inline constexpr std::int64_t kInt8GemmMaxDepth = (std::int64_t{1} << 17) - 1;

// B (k × n int8, row-major) packed once for the products with it (a layer's weights), as
// `path`'s kernel reads it; ValueError for a path this CPU cannot run.
class Int8PackedB {
 public:
  Int8PackedB() = default;
  Int8PackedB(std::int64_t k, std::int64_t n, const std::int8_t* b, std::int64_t ldb, Int8Path path = int8_path());
  std::int64_t k() const { return k_; }
  std::int64_t n() const { return n_; }
  Int8Path path() const { return path_; }
  // Steps of k as packed (k rounded up to the path's group), columns per panel, panels.
  std::int64_t padded_depth() const { return padded_depth_; }
  std::int64_t panel_width() const { return panel_width_; }
  std::int64_t panels() const { return panel_width_ == 0 ? 0 : (n_ + panel_width_ - 1) / panel_width_; }
  // Panel p's bytes; what the kernel subtracts from each column (VNNI's offset, else 0).
  const std::uint8_t* panel(std::int64_t p) const { return data_.data() + p * panel_bytes_; }
  std::int64_t panel_bytes() const { return panel_bytes_; }
  const std::int32_t* column_offsets() const { return offsets_.data(); }

 private:
  std::int64_t k_ = 0, n_ = 0, padded_depth_ = 0, panel_width_ = 0, panel_bytes_ = 0;
  Int8Path path_ = Int8Path::kPortable;
  std::vector<std::uint8_t> data_;
  std::vector<std::int32_t> offsets_;
};

// C (m × n int32, row-major, ldc) = A (m × k int8, row-major, lda) · B, on B's path, on
// the kernels' threads.
void gemm_s8(std::int64_t m, const std::int8_t* a, std::int64_t lda, const Int8PackedB& b, std::int32_t* c,
             std::int64_t ldc);

// dense_int8's rescale of the sums (isa_kernels.h: int8_rescaled): each divided by its
// column's scale times its row's, plus the column's bias where given, then relu where asked.
struct Int8Rescale {
  const float* column_scales = nullptr;
  const float* bias = nullptr;
  bool relu = false;
};

// dense_int8's kernel: A given as float rows (m × k, lda), each quantized as Keras's
// AbsMaxQuantizer does (quantize_row.h) as it is packed, its scale into row_scales[i]; the
// sums rescaled into y (m × n floats, ldy) in the kernel's store, while they are in
// registers: one pass over A and one over y.
void gemm_s8_quantizing_rows(std::int64_t m, const float* a, std::int64_t lda, const Int8PackedB& b,
                             float* row_scales, const Int8Rescale& rescale, float* y, std::int64_t ldy);

// The same with B unpacked (packed for this call, on int8_path()).
void gemm_s8(std::int64_t m, std::int64_t n, std::int64_t k, const std::int8_t* a, std::int64_t lda,
             const std::int8_t* b, std::int64_t ldb, std::int32_t* c, std::int64_t ldc);

}  // namespace strata::cpu
