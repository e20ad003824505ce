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

// Whether this CPU runs `path` (asked on every pack: a training step packs every run).
bool cpu_runs(Bf16Path path) {
  return path == Bf16Path::kFloat || bf16_path_for(best_isa()) == Bf16Path::kAvx512Bf16;
}

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
  if (cpu_runs(Bf16Path::kAvx512Bf16)) paths.push_back(Bf16Path::kAvx512Bf16);
  return paths;
}

Bf16PackedB::Bf16PackedB(std::int64_t k, std::int64_t n, const float* b, std::int64_t ldb, Bf16Path path) {
  pack(k, n, b, ldb, false, path);
}

void Bf16PackedB::pack(std::int64_t k, std::int64_t n, const float* b, std::int64_t ldb, bool transposed,
                       Bf16Path path) {
  if (k < 0 || n < 0) {
    throw ValueError("bfloat16 product of " + std::to_string(k) + " steps and " + std::to_string(n) +
                     " columns: expected 0 or more");
  }
  if (!cpu_runs(path)) {
    throw ValueError(std::string("bfloat16 product packed for the ") + bf16_path_name(path) +
                     " path, which this CPU cannot run");
  }
  k_ = k;
  n_ = n;
  path_ = path;
  const auto at = [&](std::int64_t s, std::int64_t j) { return transposed ? b[j * ldb + s] : b[s * ldb + j]; };
  if (path == Bf16Path::kFloat) {
    words_.clear();
    rounded_.resize(static_cast<std::size_t>(k * n));
    for (std::int64_t s = 0; s < k; ++s)
      for (std::int64_t j = 0; j < n; ++j) rounded_[static_cast<std::size_t>(s * n + j)] = round_to_bfloat16(at(s, j));
    return;
  }
  rounded_.clear();
  words_.resize(static_cast<std::size_t>(panels() * panel_words()));
#if defined(STRATA_X86_KERNELS)
  // Panel p, pair q, column j: the 32-bit lane (b[2q][col] | b[2q + 1][col] << 16), zero
  // past k and past n.
  std::uint16_t* out = words_.data();
  const std::int64_t pairs_of_k = pairs();
  parallel_for(panels(), [&](std::int64_t first, std::int64_t last) {
    avx512::bf16_pack_panels(first, last, b, ldb, transposed, k, n, pairs_of_k, out);
  }, threshold_for(pairs_of_k * kPanelWidth));
#endif
}

std::int64_t Bf16PackedB::panels() const { return (n_ + kPanelWidth - 1) / kPanelWidth; }

const std::uint16_t* Bf16PackedB::panel(std::int64_t p) const { return words_.data() + p * panel_words(); }

void gemm_bf16(std::int64_t m, const float* a, std::int64_t lda, const Bf16PackedB& b, float* c, std::int64_t ldc,
               bool a_transposed) {
  if (m < 0) throw ValueError("bfloat16 product of " + std::to_string(m) + " rows: expected 0 or more");
  const std::int64_t k = b.k(), n = b.n();
  if (m == 0 || n == 0) return;
  if (b.path() == Bf16Path::kFloat) {
    std::vector<float> rounded(static_cast<std::size_t>(m * k));
    for (std::int64_t i = 0; i < m; ++i)
      for (std::int64_t s = 0; s < k; ++s) {
        rounded[static_cast<std::size_t>(i * k + s)] = round_to_bfloat16(a_transposed ? a[s * lda + i] : a[i * lda + s]);
      }
    gemm(false, false, m, n, k, rounded.data(), k, b.rounded(), n, c, ldc);
    return;
  }
#if defined(STRATA_X86_KERNELS)
  // A's rows as bfloat16 pairs, in the float GEMM's packing workspace for A of the calling
  // thread (it only grows).
  const std::int64_t pairs = b.pairs();
  auto* packed_a = reinterpret_cast<std::uint32_t*>(packing_buffer(0, static_cast<std::size_t>(std::max<std::int64_t>(1, m * pairs))));
  const auto pack_rows = [&](std::int64_t first, std::int64_t last) {
    if (a_transposed) {
      avx512::bf16_pack_columns(first, last, a, lda, k, pairs, packed_a);
    } else {
      avx512::bf16_pack_rows(first, last, a, lda, k, pairs, packed_a);
    }
  };
  constexpr std::int64_t kRowBlock = 16;  // rows a task packs and multiplies by every panel
  if (m >= 2 * kRowBlock) {
    // Rows split over the threads, each packing its own rows of A and multiplying them by
    // every panel: one hand-off for the product, A's rows in the cache of the core that
    // packed them.
    parallel_for((m + kRowBlock - 1) / kRowBlock, [&](std::int64_t first, std::int64_t last) {
      const std::int64_t r0 = first * kRowBlock, r1 = std::min(m, last * kRowBlock);
      pack_rows(r0, r1);
      avx512::bf16_gemm_panels(r1 - r0, packed_a + r0 * pairs, pairs, b.panel(0), b.panel_words(), n, 0, b.panels(),
                               c + r0 * ldc, ldc);
    }, threshold_for(kRowBlock * pairs * n));
    return;
  }
  // Few rows: A packed, then the panels split over the threads, each over every row.
  pack_rows(0, m);
  parallel_for(b.panels(), [&](std::int64_t first, std::int64_t last) {
    avx512::bf16_gemm_panels(m, packed_a, pairs, b.panel(0), b.panel_words(), n, first, last, c, ldc);
  }, threshold_for(m * pairs * Bf16PackedB::kPanelWidth));
#endif
}

}  // namespace strata::cpu
