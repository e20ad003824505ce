#include "core/cpu/gemv.h"

#include <cstdlib>
#include <utility>

#include "core/cpu/avx512.h"

namespace strata::cpu {

#if defined(__AVX512F__)

namespace {

constexpr int kLanes = 16;
// 256 columns: a batch-1 Dense layer's whole row of 1 KB is one contiguous read per step
// of k. Over half rows (128 columns of a 256-wide matrix) the same kernel streamed its
// cache at 144-158 GB/s, over whole rows at 156-175 in the same runs (docs/performance.md).
constexpr int kChunkVectors = kGemvWholeRowColumns / kLanes;
// With this many vectors or more, one accumulator per vector already keeps both FMA
// units busy (8 independent chains cover the 4-cycle latency); fewer get two sets.
constexpr int kOneSetVectors = 8;

// Columns [0, 16·V) of the product, the last vector masked by `last` unless `Whole`
// (then every lane is in the product). Narrow chunks accumulate even and odd steps of k
// apart, so each accumulator's next multiply-add never waits for its previous one.
template <int V, bool Whole>
void chunk(std::int64_t k, const float* a, std::int64_t inc_a, const float* b, std::int64_t ldb, float* c,
           __mmask16 last, GemvEpilogue epilogue) {
  constexpr bool two_sets = V < kOneSetVectors;
  __m512 even[V], odd[V];
  // The loops over v are unrolled so the accumulators stay in registers (-O2 keeps
  // loops rolled, and an array indexed in a loop lives in memory).
#pragma GCC unroll 16
  for (int v = 0; v < V; ++v) even[v] = odd[v] = _mm512_setzero_ps();
  auto row = [&](__m512* acc, float x, const float* r) {
    const __m512 xv = _mm512_set1_ps(x);
#pragma GCC unroll 16
    for (int v = 0; v + 1 < V; ++v) acc[v] = _mm512_fmadd_ps(xv, _mm512_loadu_ps(r + kLanes * v), acc[v]);
    const float* r_last = r + kLanes * (V - 1);
    acc[V - 1] =
        _mm512_fmadd_ps(xv, Whole ? _mm512_loadu_ps(r_last) : _mm512_maskz_loadu_ps(last, r_last), acc[V - 1]);
  };
  std::int64_t p = 0;
  if constexpr (two_sets) {
    for (; p + 1 < k; p += 2) {
      row(even, a[p * inc_a], b + p * ldb);
      row(odd, a[(p + 1) * inc_a], b + (p + 1) * ldb);
    }
  }
  for (; p < k; ++p) row(even, a[p * inc_a], b + p * ldb);
  if constexpr (two_sets) {
#pragma GCC unroll 16
    for (int v = 0; v < V; ++v) even[v] = _mm512_add_ps(even[v], odd[v]);
  }
  // The epilogue on the registers: added to the stored row afterwards, the bias made
  // each element's load wait on the masked store before it (no store forwarding).
  if (epilogue.bias) {
#pragma GCC unroll 16
    for (int v = 0; v + 1 < V; ++v) even[v] = _mm512_add_ps(even[v], _mm512_loadu_ps(epilogue.bias + kLanes * v));
    const float* bias_last = epilogue.bias + kLanes * (V - 1);
    even[V - 1] =
        _mm512_add_ps(even[V - 1], Whole ? _mm512_loadu_ps(bias_last) : _mm512_maskz_loadu_ps(last, bias_last));
  }
  if (epilogue.relu) {
#pragma GCC unroll 16
    for (int v = 0; v < V; ++v) even[v] = _mm512_max_ps(even[v], _mm512_setzero_ps());
  }
#pragma GCC unroll 16
  for (int v = 0; v + 1 < V; ++v) _mm512_storeu_ps(c + kLanes * v, even[v]);
  if constexpr (Whole) {
    _mm512_storeu_ps(c + kLanes * (V - 1), even[V - 1]);
  } else {
    _mm512_mask_storeu_ps(c + kLanes * (V - 1), last, even[V - 1]);
  }
}

template <int... V>
void tail_chunk(int vectors, std::int64_t k, const float* a, std::int64_t inc_a, const float* b, std::int64_t ldb,
                float* c, __mmask16 last, GemvEpilogue epilogue, std::integer_sequence<int, V...>) {
  // chunk<vectors>: one instantiation per vector count 1..16.
  (void)((vectors == V + 1 ? (chunk<V + 1, false>(k, a, inc_a, b, ldb, c, last, epilogue), true) : false) || ...);
}

}  // namespace

bool gemv_available() noexcept { return true; }

void gemv_row(std::int64_t n, std::int64_t k, const float* a, std::int64_t inc_a, const float* b, std::int64_t ldb,
              float* c, GemvEpilogue epilogue) {
  constexpr std::int64_t kChunk = kLanes * kChunkVectors;
  // The epilogue's bias from column j on.
  auto from = [&](std::int64_t j) { return GemvEpilogue{epilogue.bias ? epilogue.bias + j : nullptr, epilogue.relu}; };
  std::int64_t j = 0;
  for (; j + kChunk <= n; j += kChunk) chunk<kChunkVectors, true>(k, a, inc_a, b + j, ldb, c + j, 0xFFFF, from(j));
  const std::int64_t rest = n - j;
  if (rest == 0) return;
  const int vectors = static_cast<int>((rest + kLanes - 1) / kLanes);
  const int tail = static_cast<int>(rest - (vectors - 1) * kLanes);
  const __mmask16 last = static_cast<__mmask16>((1u << tail) - 1u);
  tail_chunk(vectors, k, a, inc_a, b + j, ldb, c + j, last, from(j), std::make_integer_sequence<int, kChunkVectors>{});
}

#else  // no AVX-512: cpu::gemm uses Eigen's matrix-vector kernel

bool gemv_available() noexcept { return false; }

void gemv_row(std::int64_t, std::int64_t, const float*, std::int64_t, const float*, std::int64_t, float*, GemvEpilogue) {
  std::abort();  // callers check gemv_available() first
}

#endif

}  // namespace strata::cpu
