// Products of bfloat16 matrices summed in float32, as Keras's bfloat16 layers multiply
// (TensorFlow's oneDNN kernels on the CPU; docs/precision.md), for the kernels of issue
// #39. The operands come as float32 values and are rounded to bfloat16 as they are packed
// (round_to_bfloat16: ties to even); each product of two bfloat16 is exact in float32, the
// sums are float32's. One path per CPU, chosen at run time as the float GEMM's
// (cpu_isa.h; STRATA_CPU_ISA forces a narrower one):
//   avx512_bf16  AVX-512 BF16's vdpbf16ps: two products a lane per instruction, twice an
//                FMA's multiply-adds; a register tile of 12 rows × 32 columns. The
//                instruction treats subnormal operands as zero and flushes subnormal sums
//                (as oneDNN's kernels on such a CPU do);
//   float        every other CPU: the rounded operands through the float32 GEMM.
// Both give A·B of the rounded operands within float32's summation error (they sum in
// different orders).
#pragma once

#include <cstdint>
#include <vector>

namespace strata::cpu {

enum class Bf16Path { kFloat, kAvx512Bf16 };

// "float", "avx512_bf16".
const char* bf16_path_name(Bf16Path path);
// The path for the kernels' instruction set of the moment and this CPU's AVX-512 BF16.
Bf16Path bf16_path();
// Every path this CPU can run, the float one first (tests).
std::vector<Bf16Path> supported_bf16_paths();

// B (k × n float32, row-major) rounded to bfloat16 and packed once for the products with
// it (a layer's kernel), as `path`'s kernel reads it; ValueError for a path this CPU
// cannot run.
class Bf16PackedB {
 public:
  Bf16PackedB() = default;
  Bf16PackedB(std::int64_t k, std::int64_t n, const float* b, std::int64_t ldb, Bf16Path path = bf16_path());
  // Packs again, in the storage it has (a training step's operand changes every step):
  // from B (k × n row-major, ldb apart) or, `transposed`, from Bᵀ (n × k row-major). The
  // avx512_bf16 path packs with vector code on the kernels' threads.
  void pack(std::int64_t k, std::int64_t n, const float* b, std::int64_t ldb, bool transposed = false,
            Bf16Path path = bf16_path());
  std::int64_t k() const { return k_; }
  std::int64_t n() const { return n_; }
  Bf16Path path() const { return path_; }
  // avx512_bf16: k in pairs (rounded up), panels of 32 columns, each pair a 32-bit lane
  // per column (the even step's bfloat16 in the low half). float: B's rounded floats.
  std::int64_t pairs() const { return (k_ + 1) / 2; }
  std::int64_t panels() const;
  const std::uint16_t* panel(std::int64_t p) const;
  std::int64_t panel_words() const { return 2 * pairs() * kPanelWidth; }
  const float* rounded() const { return rounded_.data(); }

  static constexpr std::int64_t kPanelWidth = 32;

 private:
  std::int64_t k_ = 0, n_ = 0;
  Bf16Path path_ = Bf16Path::kFloat;
  std::vector<std::uint16_t> words_;
  std::vector<float> rounded_;
};

// C (m × n float32, ldc) = round(A) (m × k float32, lda) · B, on B's path, on the
// kernels' threads. `a_transposed`: `a` holds Aᵀ (k × m row-major, lda apart).
void gemm_bf16(std::int64_t m, const float* a, std::int64_t lda, const Bf16PackedB& b, float* c, std::int64_t ldc,
               bool a_transposed = false);

}  // namespace strata::cpu
