#include "core/cpu/gemv.h"

#include <cstdlib>

#include "core/cpu/avx512.h"

namespace strata::cpu {

#if defined(__AVX512F__)

namespace {

constexpr int kLanes = 16;
constexpr int kChunkVectors = 8;  // 128 columns: 8 vectors, twice over (even and odd k)

// Columns [0, 16·V) of the product, the last vector masked by `last` (all lanes unless
// this is the row's tail). Even and odd steps of k accumulate apart, so each
// accumulator's next multiply-add never waits for its previous one.
template <int V>
void chunk(std::int64_t k, const float* a, std::int64_t inc_a, const float* b, std::int64_t ldb, float* c,
           __mmask16 last) {
  __m512 even[V], odd[V];
  // The loops over v are unrolled so the accumulators stay in registers (-O2 keeps
  // loops rolled, and an array indexed in a loop lives in memory).
#pragma GCC unroll 8
  for (int v = 0; v < V; ++v) even[v] = odd[v] = _mm512_setzero_ps();
  auto row = [&](__m512* acc, float x, const float* r) {
    const __m512 xv = _mm512_set1_ps(x);
#pragma GCC unroll 8
    for (int v = 0; v + 1 < V; ++v) acc[v] = _mm512_fmadd_ps(xv, _mm512_loadu_ps(r + kLanes * v), acc[v]);
    acc[V - 1] = _mm512_fmadd_ps(xv, _mm512_maskz_loadu_ps(last, r + kLanes * (V - 1)), acc[V - 1]);
  };
  std::int64_t p = 0;
  for (; p + 1 < k; p += 2) {
    row(even, a[p * inc_a], b + p * ldb);
    row(odd, a[(p + 1) * inc_a], b + (p + 1) * ldb);
  }
  if (p < k) row(even, a[p * inc_a], b + p * ldb);
#pragma GCC unroll 8
  for (int v = 0; v + 1 < V; ++v) _mm512_storeu_ps(c + kLanes * v, _mm512_add_ps(even[v], odd[v]));
  _mm512_mask_storeu_ps(c + kLanes * (V - 1), last, _mm512_add_ps(even[V - 1], odd[V - 1]));
}

}  // namespace

bool gemv_available() noexcept { return true; }

void gemv_row(std::int64_t n, std::int64_t k, const float* a, std::int64_t inc_a, const float* b, std::int64_t ldb,
              float* c) {
  constexpr std::int64_t kChunk = kLanes * kChunkVectors;
  std::int64_t j = 0;
  for (; j + kChunk <= n; j += kChunk) chunk<kChunkVectors>(k, a, inc_a, b + j, ldb, c + j, 0xFFFF);
  const std::int64_t rest = n - j;
  if (rest == 0) return;
  const int vectors = static_cast<int>((rest + kLanes - 1) / kLanes);
  const int tail = static_cast<int>(rest - (vectors - 1) * kLanes);
  const __mmask16 last = static_cast<__mmask16>((1u << tail) - 1u);
  switch (vectors) {
    case 1: return chunk<1>(k, a, inc_a, b + j, ldb, c + j, last);
    case 2: return chunk<2>(k, a, inc_a, b + j, ldb, c + j, last);
    case 3: return chunk<3>(k, a, inc_a, b + j, ldb, c + j, last);
    case 4: return chunk<4>(k, a, inc_a, b + j, ldb, c + j, last);
    case 5: return chunk<5>(k, a, inc_a, b + j, ldb, c + j, last);
    case 6: return chunk<6>(k, a, inc_a, b + j, ldb, c + j, last);
    case 7: return chunk<7>(k, a, inc_a, b + j, ldb, c + j, last);
    default: return chunk<8>(k, a, inc_a, b + j, ldb, c + j, last);
  }
}

#else  // no AVX-512: cpu::gemm uses Eigen's matrix-vector kernel

bool gemv_available() noexcept { return false; }

void gemv_row(std::int64_t, std::int64_t, const float*, std::int64_t, const float*, std::int64_t, float*) {
  std::abort();  // callers check gemv_available() first
}

#endif

}  // namespace strata::cpu
