#include "core/cpu/gemv.h"

#include <algorithm>
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
// A matrix of at least this many bytes is read kStreamedDepth rows at a time, each
// chunk's accumulators carried in c from one block of rows to the next. Batch-1 products
// on two threads on an AMD EPYC (Zen 5, 32 MB L3), each thread's part of B in one call
// (docs/performance.md): 1x4096x4096 (32 MB a thread, from memory) took 0.71 of the time
// in blocks of 8 rows (4: 0.80, 12: 0.75, 16: 0.83, 32: 0.96); 8 MB a thread 0.88-1.01;
// 2 MB and less, which stays in the caches from call to call, 1.02-1.22, so it is not
// blocked.
constexpr std::int64_t kStreamedBytes = std::int64_t{8} << 20;
constexpr std::int64_t kStreamedDepth = 8;

// Columns [0, 16·V) of the product, the last vector masked by `last` unless `Whole`
// (then every lane is in the product), added to the values c holds when `accumulate` (a
// later block of rows of a streamed matrix). Narrow chunks accumulate even and odd steps
// of k apart, so each accumulator's next multiply-add never waits for its previous one.
template <int V, bool Whole>
void chunk(std::int64_t k, const float* a, std::int64_t inc_a, const float* b, std::int64_t ldb, float* c,
           __mmask16 last, GemvEpilogue epilogue, bool accumulate) {
  constexpr bool two_sets = V < kOneSetVectors;
  __m512 even[V], odd[V];
  // The loops over v are unrolled so the accumulators stay in registers (-O2 keeps
  // loops rolled, and an array indexed in a loop lives in memory).
#pragma GCC unroll 16
  for (int v = 0; v < V; ++v) even[v] = odd[v] = _mm512_setzero_ps();
  if (accumulate) {
#pragma GCC unroll 16
    for (int v = 0; v + 1 < V; ++v) even[v] = _mm512_loadu_ps(c + kLanes * v);
    even[V - 1] = Whole ? _mm512_loadu_ps(c + kLanes * (V - 1)) : _mm512_maskz_loadu_ps(last, c + kLanes * (V - 1));
  }
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
                float* c, __mmask16 last, GemvEpilogue epilogue, bool accumulate, std::integer_sequence<int, V...>) {
  // chunk<vectors>: one instantiation per vector count 1..16.
  (void)((vectors == V + 1 ? (chunk<V + 1, false>(k, a, inc_a, b, ldb, c, last, epilogue, accumulate), true)
                           : false) ||
         ...);
}

}  // namespace

bool gemv_available() noexcept { return true; }

void gemv_row(std::int64_t n, std::int64_t k, const float* a, std::int64_t inc_a, const float* b, std::int64_t ldb,
              float* c, GemvEpilogue epilogue) {
  constexpr std::int64_t kChunk = kLanes * kChunkVectors;
  if (k == 0) {  // an empty sum, whose a and b may be null: the epilogue of zeros
    for (std::int64_t j = 0; j < n; ++j) {
      const float sum = epilogue.bias ? epilogue.bias[j] : 0.f;
      c[j] = epilogue.relu ? std::max(sum, 0.f) : sum;
    }
    return;
  }
  // A matrix that comes from memory, several chunks wide, is read a few rows at a time
  // across the whole width: a chunk's walk down all k rows reads 1 KB of each (a page apart
  // on a 4096-wide matrix), measured slower than a few long runs.
  const bool streamed = n > kChunk && k > kStreamedDepth && n * k * std::int64_t{sizeof(float)} >= kStreamedBytes;
  const std::int64_t step = streamed ? kStreamedDepth : k;
  for (std::int64_t p = 0; p < k; p += step) {
    const std::int64_t depth = std::min(step, k - p);
    const bool accumulate = p > 0;
    const bool final = p + depth == k;
    const float* ap = a + p * inc_a;
    const float* bp = b + p * ldb;
    // The epilogue's bias from column j on.
    auto from = [&](std::int64_t j) {
      return final ? GemvEpilogue{epilogue.bias ? epilogue.bias + j : nullptr, epilogue.relu} : GemvEpilogue{};
    };
    std::int64_t j = 0;
    for (; j + kChunk <= n; j += kChunk)
      chunk<kChunkVectors, true>(depth, ap, inc_a, bp + j, ldb, c + j, 0xFFFF, from(j), accumulate);
    const std::int64_t rest = n - j;
    if (rest == 0) continue;
    const int vectors = static_cast<int>((rest + kLanes - 1) / kLanes);
    const int tail = static_cast<int>(rest - (vectors - 1) * kLanes);
    const __mmask16 last = static_cast<__mmask16>((1u << tail) - 1u);
    tail_chunk(vectors, depth, ap, inc_a, bp + j, ldb, c + j, last, from(j), accumulate,
               std::make_integer_sequence<int, kChunkVectors>{});
  }
}

#else  // no AVX-512: cpu::gemm uses Eigen's matrix-vector kernel

bool gemv_available() noexcept { return false; }

void gemv_row(std::int64_t, std::int64_t, const float*, std::int64_t, const float*, std::int64_t, float*, GemvEpilogue) {
  std::abort();  // callers check gemv_available() first
}

#endif

}  // namespace strata::cpu
