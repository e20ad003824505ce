#include "core/cpu/bf16_gemm.h"

#include <algorithm>
#include <string>
#include <vector>

#include "core/cpu/cpu_isa.h"
#include "core/cpu/gemm.h"
#include "core/cpu/isa_kernels.h"
#include "core/cpu/parallel.h"
#include "core/error.h"
#include "core/precision_rounding.h"

namespace strata::cpu {

namespace {

bool cpu_has_avx512_bf16() {
#if defined(STRATA_X86_KERNELS)
  return __builtin_cpu_supports("avx512bf16");
#else
  return false;
#endif
}

Bf16Path bf16_path_for(Isa isa) {
  return isa == Isa::kAvx512 && cpu_has_avx512_bf16() ? Bf16Path::kAvx512Bf16 : Bf16Path::kFloat;
}

// A float's bfloat16 bits, rounded to the nearest (ties to even).
std::uint32_t bf16_word(float v) { return bfloat16_bits(round_to_bfloat16(v)); }

}  // namespace

const char* bf16_path_name(Bf16Path path) {
  switch (path) {
    case Bf16Path::kFloat:
      return "float";
    case Bf16Path::kAvx512Bf16:
      return "avx512_bf16";
  }
  return "?";
}

Bf16Path bf16_path() { return bf16_path_for(kernel_isa()); }

std::vector<Bf16Path> supported_bf16_paths() {
  std::vector<Bf16Path> paths{Bf16Path::kFloat};
  if (cpu_has_avx512_bf16() && bf16_path_for(best_isa()) == Bf16Path::kAvx512Bf16) paths.push_back(Bf16Path::kAvx512Bf16);
  return paths;
}

Bf16PackedB::Bf16PackedB(std::int64_t k, std::int64_t n, const float* b, std::int64_t ldb, Bf16Path path)
    : k_(k), n_(n), path_(path) {
  if (k < 0 || n < 0) {
    throw ValueError("bfloat16 product of " + std::to_string(k) + " steps and " + std::to_string(n) +
                     " columns: expected 0 or more");
  }
  const auto paths = supported_bf16_paths();
  if (std::find(paths.begin(), paths.end(), path) == paths.end()) {
    throw ValueError(std::string("bfloat16 product packed for the ") + bf16_path_name(path) +
                     " path, which this CPU cannot run");
  }
  if (path == Bf16Path::kFloat) {
    rounded_.resize(static_cast<std::size_t>(k * n));
    for (std::int64_t s = 0; s < k; ++s)
      for (std::int64_t j = 0; j < n; ++j) rounded_[static_cast<std::size_t>(s * n + j)] = round_to_bfloat16(b[s * ldb + j]);
    return;
  }
  // Panel p, pair q, column j: the 32-bit lane (b[2q][col] | b[2q + 1][col] << 16), zero
  // past k and past n.
  words_.assign(static_cast<std::size_t>(panels() * panel_words()), 0);
  for (std::int64_t p = 0; p < panels(); ++p) {
    std::uint16_t* out = words_.data() + p * panel_words();
    const std::int64_t col0 = p * kPanelWidth, cols = std::min(kPanelWidth, n - col0);
    for (std::int64_t s = 0; s < k; ++s) {
      for (std::int64_t j = 0; j < cols; ++j) {
        out[(s / 2 * kPanelWidth + j) * 2 + s % 2] = static_cast<std::uint16_t>(bf16_word(b[s * ldb + col0 + j]));
      }
    }
  }
}

std::int64_t Bf16PackedB::panels() const { return (n_ + kPanelWidth - 1) / kPanelWidth; }

const std::uint16_t* Bf16PackedB::panel(std::int64_t p) const { return words_.data() + p * panel_words(); }

void gemm_bf16(std::int64_t m, const float* a, std::int64_t lda, const Bf16PackedB& b, float* c, std::int64_t ldc) {
  if (m < 0) throw ValueError("bfloat16 product of " + std::to_string(m) + " rows: expected 0 or more");
  const std::int64_t k = b.k(), n = b.n();
  if (m == 0 || n == 0) return;
  if (b.path() == Bf16Path::kFloat) {
    std::vector<float> rounded(static_cast<std::size_t>(m * k));
    for (std::int64_t i = 0; i < m; ++i)
      for (std::int64_t s = 0; s < k; ++s) rounded[static_cast<std::size_t>(i * k + s)] = round_to_bfloat16(a[i * lda + s]);
    gemm(false, false, m, n, k, rounded.data(), k, b.rounded(), n, c, ldc);
    return;
  }
#if defined(STRATA_X86_KERNELS)
  // A's rows as bfloat16 pairs, in the float GEMM's packing workspace for A of the calling
  // thread (it only grows).
  const std::int64_t pairs = b.pairs();
  auto* packed_a = reinterpret_cast<std::uint32_t*>(packing_buffer(0, static_cast<std::size_t>(std::max<std::int64_t>(1, m * pairs))));
  parallel_for(m, [&](std::int64_t first, std::int64_t last) {
    avx512::bf16_pack_rows(first, last, a, lda, k, pairs, packed_a);
  }, threshold_for(k));
  // Panels of columns split over the threads, each over every row, as the int8 product's.
  parallel_for(b.panels(), [&](std::int64_t first, std::int64_t last) {
    avx512::bf16_gemm_panels(m, packed_a, pairs, b.panel(0), b.panel_words(), n, first, last, c, ldc);
  }, threshold_for(m * pairs * Bf16PackedB::kPanelWidth));
#endif
}

}  // namespace strata::cpu
