#include "core/cpu/packed_gemm.h"

#include <algorithm>
#include <cstdlib>
#include <cstring>

#include <unistd.h>

#include "core/cpu/aligned_buffer.h"
#include "core/cpu/avx512.h"

namespace strata::cpu {

#if defined(__AVX512F__)

namespace {

// The register tile: 12 rows of C, each two 16-float vectors wide (one for products of
// at most 16 columns); 24 accumulators, two vectors of B and the broadcast A value in the
// remaining registers. Per step of k it does 24 fused multiply-adds for 2 vector loads
// and 12 broadcasts, so the loads never limit it.
constexpr std::int64_t kRows = 12;  // MR; NR is 16 or 32
// Blocking (BLIS's order for a kernel that broadcasts A): one packed sliver of A
// (kRows × KC) stays in L1 while the kernel sweeps a packed block of B (KC × NC) from
// L2; the packed rows of A for the block of k (all of them, or kBlockRows at a time for a
// very tall A) sit in L2/L3. KC and NC come from this machine's cache sizes
// (max_depth, block_columns below).
constexpr std::int64_t kBlockRows = 240;  // MC, a multiple of kRows
// A product that packs A packs all its rows for a block of k at once when they take at
// most this many floats (16 MB), so that each element of A is packed once, not once per
// block of columns (docs/performance.md).
constexpr std::int64_t kPackAllRowsFloats = std::int64_t{1} << 22;
// Steps of k ahead that the kernel prefetches packed B.
constexpr std::int64_t kPrefetchSteps = 8;
// Steps of k ahead that the kernel prefetches a packed A. A large product's packed rows
// of A sit in L3 (2048 rows × 683 steps is 5.6 MB), where the hardware prefetcher does
// not keep a sliver ahead of its first tile: asking made the kernel's loops over them
// 4% faster on an AMD EPYC (Zen 5; docs/performance.md).
constexpr std::int64_t kPrefetchASteps = 32;
// Steps of k before the end of a tile at which the kernel asks for C's lines, one a
// step: a large C is in L3 or memory when the tile reads (or writes) it back.
constexpr std::int64_t kPrefetchCSteps = 192;
// Products with more columns than this pack A (see packed_gemm).
constexpr std::int64_t kPackAColumns = 256;
// Floats ahead in each row that packing asks for while it transposes 16 rows × 16 steps:
// a sliver's rows are a stride apart in memory (8 KB on 2048³), and the hardware
// prefetcher left packing waiting on them. Four lines ahead made 2048³ 1–2% faster on
// two threads (up to 2% on one), with B transposed too (Zen 5; docs/performance.md).
constexpr std::int64_t kPackPrefetchFloats = 64;

// Where sysconf does not know a cache's size: the blocking tuned on an Intel Xeon
// (Cascade Lake) before it was derived from the caches.
constexpr std::int64_t kFallbackDepth = 384;
constexpr std::int64_t kFallbackBlockCols = 512;

// Most steps of k in one block (KC): a sliver of packed A (kRows × KC floats) in three
// quarters of L1d, so 768 steps on 48 KB (AMD Zen 5) and 512 on 32 KB. Each block of k
// is one more pass over C, which a large product reads back from L3 or memory: on
// Zen 5, 683-step blocks instead of 342 made 2048³ 1–2% faster on two threads and
// 512x4096x4096 and 128x256x784 1–2% on one (docs/performance.md).
std::int64_t max_depth() {
  static const std::int64_t depth = [] {
    const long l1d = sysconf(_SC_LEVEL1_DCACHE_SIZE);
    if (l1d <= 0) return kFallbackDepth;
    return std::clamp<std::int64_t>(l1d * 3 / 4 / (kRows * std::int64_t{sizeof(float)}), 256, 1024);
  }();
  return depth;
}

// Columns of B per block (NC) for blocks of `depth` steps: the packed block (depth × NC
// floats) in three quarters of L2, in whole 32-column slivers, at most 512 (the width
// tuned on the Xeon, where 384 steps × 512 columns is exactly that share of its 1 MB).
std::int64_t block_columns(std::int64_t depth) {
  static const std::int64_t l2 = sysconf(_SC_LEVEL2_CACHE_SIZE);
  if (l2 <= 0) return kFallbackBlockCols;
  const std::int64_t cols = l2 * 3 / 4 / (depth * std::int64_t{sizeof(float)}) / 32 * 32;
  return std::clamp<std::int64_t>(cols, 64, kFallbackBlockCols);
}

// Transposes 16×16 floats in registers: r[i] holds row i before, column i after.
// Pairs of rows interleave (unpack of floats, then of float pairs) so that each 128-bit
// lane of r[4g+q] holds rows 4g..4g+3 at column 4·lane+q; two rounds of 128-bit lane
// shuffles then gather the four lanes of each column.
inline void transpose16x16(__m512 r[16]) {
  __m512 t[16];
  for (int i = 0; i < 8; ++i) {
    t[2 * i] = _mm512_unpacklo_ps(r[2 * i], r[2 * i + 1]);
    t[2 * i + 1] = _mm512_unpackhi_ps(r[2 * i], r[2 * i + 1]);
  }
  auto pd = [](__m512 v) { return _mm512_castps_pd(v); };
  for (int g = 0; g < 4; ++g) {
    r[4 * g + 0] = _mm512_castpd_ps(_mm512_unpacklo_pd(pd(t[4 * g]), pd(t[4 * g + 2])));
    r[4 * g + 1] = _mm512_castpd_ps(_mm512_unpackhi_pd(pd(t[4 * g]), pd(t[4 * g + 2])));
    r[4 * g + 2] = _mm512_castpd_ps(_mm512_unpacklo_pd(pd(t[4 * g + 1]), pd(t[4 * g + 3])));
    r[4 * g + 3] = _mm512_castpd_ps(_mm512_unpackhi_pd(pd(t[4 * g + 1]), pd(t[4 * g + 3])));
  }
  for (int q = 0; q < 4; ++q) {
    t[q] = _mm512_shuffle_f32x4(r[q], r[4 + q], 0x88);       // lanes 0, 2 of each
    t[4 + q] = _mm512_shuffle_f32x4(r[q], r[4 + q], 0xdd);   // lanes 1, 3
    t[8 + q] = _mm512_shuffle_f32x4(r[8 + q], r[12 + q], 0x88);
    t[12 + q] = _mm512_shuffle_f32x4(r[8 + q], r[12 + q], 0xdd);
  }
  for (int q = 0; q < 4; ++q) {
    r[q] = _mm512_shuffle_f32x4(t[q], t[8 + q], 0x88);
    r[8 + q] = _mm512_shuffle_f32x4(t[q], t[8 + q], 0xdd);
    r[4 + q] = _mm512_shuffle_f32x4(t[4 + q], t[12 + q], 0x88);
    r[12 + q] = _mm512_shuffle_f32x4(t[4 + q], t[12 + q], 0xdd);
  }
}

// The first `count` of 16 lanes (none when count ≤ 0, all when ≥ 16).
inline __mmask16 lanes(std::int64_t count) {
  return count >= 16 ? __mmask16(0xFFFF) : count <= 0 ? __mmask16(0) : __mmask16((1u << count) - 1);
}

// One sliver of A stored m × k (`rows` ≤ kRows of them, `a` at the first): element (i, p)
// to out[p·kRows + i], rows past `rows` zero. Blocks of 16 steps of k are transposed in
// registers: copied one float at a time, packing A cost about an eighth of the product's
// time on the large shapes (each block of A is packed once per block of columns).
void pack_a_rows(const float* a, std::int64_t lda, std::int64_t rows, std::int64_t depth, float* out) {
  constexpr __mmask16 kSliver = (1u << kRows) - 1;
  std::int64_t p0 = 0;
  for (; p0 + 16 <= depth; p0 += 16) {
    __m512 r[16];
    for (int i = 0; i < rows; ++i) {
      _mm_prefetch(reinterpret_cast<const char*>(a + i * lda + p0 + kPackPrefetchFloats), _MM_HINT_T0);
    }
    for (int i = 0; i < 16; ++i) r[i] = i < rows ? _mm512_loadu_ps(a + i * lda + p0) : _mm512_setzero_ps();
    transpose16x16(r);
    for (int p = 0; p < 16; ++p) _mm512_mask_storeu_ps(out + (p0 + p) * kRows, kSliver, r[p]);
  }
  for (std::int64_t p = p0; p < depth; ++p) {
    for (std::int64_t i = 0; i < kRows; ++i) out[p * kRows + i] = i < rows ? a[i * lda + p] : 0.f;
  }
}

// Packs rows [0, rows) × depth [0, depth) of op(A) (its top-left corner at `a`) into
// slivers of kRows rows: sliver s holds element (i, p) at s·depth·kRows + p·kRows + i,
// rows past the end zero.
void pack_a(bool ta, const float* a, std::int64_t lda, std::int64_t rows, std::int64_t depth, float* out) {
  for (std::int64_t r0 = 0; r0 < rows; r0 += kRows) {
    const std::int64_t len = std::min(kRows, rows - r0);
    float* dst = out + (r0 / kRows) * depth * kRows;
    if (ta) {  // A stored k × m: each step of k is a contiguous run of rows.
      for (std::int64_t p = 0; p < depth; ++p) {
        const float* src = a + p * lda + r0;
        float* d = dst + p * kRows;
        std::int64_t i = 0;
        for (; i < len; ++i) d[i] = src[i];
        for (; i < kRows; ++i) d[i] = 0.f;
      }
    } else {  // A stored m × k: each row is contiguous in k.
      pack_a_rows(a + r0 * lda, lda, len, depth, dst);
    }
  }
}

// One sliver (16·kVecs columns) of op(B) from a B stored n × k (`b` at the sliver's
// first column, `cols` of them): dst[p·width + j] = b[j·ldb + p], columns past `cols`
// zero. Blocks of 16 columns × 16 steps are transposed in registers.
template <int kVecs>
void pack_b_transposed(const float* b, std::int64_t ldb, std::int64_t depth, std::int64_t cols, float* dst) {
  constexpr std::int64_t kWidth = 16 * kVecs;
  for (std::int64_t j0 = 0; j0 < kWidth; j0 += 16) {
    const std::int64_t live = std::clamp<std::int64_t>(cols - j0, 0, 16);  // real columns in this block
    std::int64_t p0 = 0;
    for (; p0 + 16 <= depth; p0 += 16) {
      __m512 r[16];
      for (int j = 0; j < live; ++j) {
        _mm_prefetch(reinterpret_cast<const char*>(b + (j0 + j) * ldb + p0 + kPackPrefetchFloats), _MM_HINT_T0);
      }
      for (int j = 0; j < 16; ++j) r[j] = j < live ? _mm512_loadu_ps(b + (j0 + j) * ldb + p0) : _mm512_setzero_ps();
      transpose16x16(r);
      for (int p = 0; p < 16; ++p) _mm512_store_ps(dst + (p0 + p) * kWidth + j0, r[p]);
    }
    for (std::int64_t p = p0; p < depth; ++p) {
      float* d = dst + p * kWidth + j0;
      for (std::int64_t j = 0; j < 16; ++j) d[j] = j < live ? b[(j0 + j) * ldb + p] : 0.f;
    }
  }
}

// Packs depth [0, depth) × columns [0, cols) of op(B) (its top-left corner at `b`) into
// slivers of 16·kVecs columns: sliver s holds element (p, j) at s·depth·width + p·width
// + j, columns past the end zero.
template <int kVecs>
void pack_b(bool tb, const float* b, std::int64_t ldb, std::int64_t depth, std::int64_t cols, float* out) {
  constexpr std::int64_t kWidth = 16 * kVecs;
  if (tb) {  // B stored n × k: each column of op(B) is contiguous in k.
    for (std::int64_t j0 = 0; j0 < cols; j0 += kWidth) {
      pack_b_transposed<kVecs>(b + j0 * ldb, ldb, depth, std::min(kWidth, cols - j0), out + (j0 / kWidth) * depth * kWidth);
    }
    return;
  }
  // B stored k × n: each step of k is a contiguous run of columns. Sliver by sliver, each
  // row is read 16·kVecs floats at a time in a stride of ldb. Where that stride is a page
  // or more, every read is on another page, which the hardware prefetcher does not follow:
  // there the rows are read whole, one after the other, and dealt out to the slivers
  // (which stay in L2). On one core of an AMD EPYC (Zen 5) that made a 256x4096x4096
  // product 7% faster; for narrower B (rows within a page, often in cache) the sliver
  // order measured 2-4% faster (docs/performance.md).
  if (ldb * static_cast<std::int64_t>(sizeof(float)) >= 4096) {
    for (std::int64_t p = 0; p < depth; ++p) {
      const float* src = b + p * ldb;
      for (std::int64_t j0 = 0; j0 < cols; j0 += kWidth) {
        const std::int64_t len = std::min(kWidth, cols - j0);
        float* d = out + (j0 / kWidth) * depth * kWidth + p * kWidth;
        for (int v = 0; v < kVecs; ++v) {
          _mm512_store_ps(d + 16 * v, _mm512_maskz_loadu_ps(lanes(len - 16 * v), src + j0 + 16 * v));
        }
      }
    }
    return;
  }
  for (std::int64_t j0 = 0; j0 < cols; j0 += kWidth) {
    const std::int64_t len = std::min(kWidth, cols - j0);
    float* dst = out + (j0 / kWidth) * depth * kWidth;
    for (std::int64_t p = 0; p < depth; ++p) {
      const float* src = b + p * ldb + j0;
      float* d = dst + p * kWidth;
      for (int v = 0; v < kVecs; ++v) {
        _mm512_store_ps(d + 16 * v, _mm512_maskz_loadu_ps(lanes(len - 16 * v), src + 16 * v));
      }
    }
  }
}

// How the kernel reads op(A)'s kRows rows at step p of k: element (i, p) is at
// ap[p·step + i·row_stride]. A packed sliver has step kRows and row stride 1; an unpacked
// transposed A (stored k × m) step lda and row stride 1; an unpacked A (stored m × k) step
// 1 and row stride lda.
struct SliverOfA {
  const float* ap;
  std::int64_t step, row_stride;
};

// C[0..rows, 0..cols) (= or +=) the product of one A sliver and one packed B sliver of
// 16·kVecs columns over `depth`. rows ≤ kRows, cols ≤ 16·kVecs; `add` keeps C's values.
// kUnitRowStride: A's rows are adjacent floats (a packed sliver, or a transposed A read
// in place), so the twelve broadcasts use constant offsets and no registers for them.
template <bool kUnitRowStride, int kVecs>
void tile(std::int64_t depth, SliverOfA a, const float* __restrict bp, float* c, std::int64_t ldc, std::int64_t rows,
          std::int64_t cols, bool add) {
  constexpr std::int64_t kWidth = 16 * kVecs;
  // The 16-wide tile (at most 16 columns) serves small products whose C is in cache:
  // the prefetches of A and C made 128×10×256 2.5% slower (docs/performance.md).
  constexpr bool kPrefetchAAndC = kVecs > 1;
  const float* __restrict ap = a.ap;
  const std::int64_t step = a.step, rs = kUnitRowStride ? 1 : a.row_stride;
  __m512 acc[kRows][kVecs];
#pragma GCC unroll 12
  for (int i = 0; i < kRows; ++i) {
    for (int v = 0; v < kVecs; ++v) acc[i][v] = _mm512_setzero_ps();
  }
  auto one_step = [&]() __attribute__((always_inline)) {
    __m512 bv[kVecs];
    // B streams from L2: ask for the step 8 ahead. The hardware prefetcher alone left
    // the large products 5% slower (docs/performance.md); 4 and 16 ahead did as well.
    for (int v = 0; v < kVecs; ++v) {
      _mm_prefetch(reinterpret_cast<const char*>(bp + kPrefetchSteps * kWidth + 16 * v), _MM_HINT_T0);
    }
    // A's rows are adjacent here: a packed sliver, or a transposed A read in place (whose
    // steps are rows of A a stride apart, which is what the hardware does not follow).
    if constexpr (kPrefetchAAndC && kUnitRowStride) {
      _mm_prefetch(reinterpret_cast<const char*>(ap + kPrefetchASteps * step), _MM_HINT_T0);
    }
    for (int v = 0; v < kVecs; ++v) bv[v] = _mm512_load_ps(bp + 16 * v);
#pragma GCC unroll 12
    for (int i = 0; i < kRows; ++i) {
      const __m512 av = _mm512_set1_ps(ap[i * rs]);
      for (int v = 0; v < kVecs; ++v) acc[i][v] = _mm512_fmadd_ps(av, bv[v], acc[i][v]);
    }
    ap += step;
    bp += kWidth;
  };
  if constexpr (!kPrefetchAAndC) {
    for (std::int64_t p = 0; p < depth; ++p) one_step();
  } else {
    // The steps in three runs so that the middle one, which asks for one of C's lines a
    // step (kRows·kVecs of them, rows past `rows` too: a prefetch never faults), needs no
    // test in the others.
    constexpr std::int64_t kLinesOfC = kRows * kVecs;
    const std::int64_t c_first = std::max<std::int64_t>(0, depth - kPrefetchCSteps);
    const std::int64_t c_last = std::min(depth, c_first + kLinesOfC);
    std::int64_t p = 0;
    for (; p < c_first; ++p) one_step();
    for (std::int64_t line = 0; p < c_last; ++p, ++line) {
      _mm_prefetch(reinterpret_cast<const char*>(c + (line / kVecs) * ldc + 16 * (line % kVecs)), _MM_HINT_T0);
      one_step();
    }
    for (; p < depth; ++p) one_step();
  }
  if (rows == kRows && cols == kWidth) {
#pragma GCC unroll 12
    for (int i = 0; i < kRows; ++i) {
      float* ci = c + i * ldc;
      for (int v = 0; v < kVecs; ++v) {
        if (add) acc[i][v] = _mm512_add_ps(acc[i][v], _mm512_loadu_ps(ci + 16 * v));
        _mm512_storeu_ps(ci + 16 * v, acc[i][v]);
      }
    }
    return;
  }
  __mmask16 mask[kVecs];
  for (int v = 0; v < kVecs; ++v) mask[v] = lanes(cols - 16 * v);
#pragma GCC unroll 12
  for (int i = 0; i < kRows; ++i) {
    if (i < rows) {
      float* ci = c + i * ldc;
      for (int v = 0; v < kVecs; ++v) {
        if (add) acc[i][v] = _mm512_add_ps(acc[i][v], _mm512_maskz_loadu_ps(mask[v], ci + 16 * v));
        _mm512_mask_storeu_ps(ci + 16 * v, mask[v], acc[i][v]);
      }
    }
  }
}

// The blocked product with B slivers of 16·kVecs columns (see packed_gemm).
// With `packed`, B was packed by PackedB::pack (b and tb unused): its blocks are read
// where they lie instead of being packed here.
template <int kVecs>
void blocked_product(bool ta, bool tb, std::int64_t m, std::int64_t n, std::int64_t k, const float* a,
                     std::int64_t lda, const float* b, std::int64_t ldb, float* c, std::int64_t ldc, bool accumulate,
                     const PackedB* packed = nullptr) {
  constexpr std::int64_t kWidth = 16 * kVecs;
  thread_local AlignedBuffer a_buffer, b_buffer;
  // Equal blocks of k: a last block of a few steps would pay a whole pass over C.
  const std::int64_t blocks_of_k = (k + max_depth() - 1) / max_depth();
  const std::int64_t depth_step = (k + blocks_of_k - 1) / blocks_of_k;
  const std::int64_t col_step = block_columns(depth_step);
  const std::int64_t block_cols = std::min(col_step, (n + kWidth - 1) / kWidth * kWidth);
  const std::int64_t block_rows = std::min(kBlockRows, (m + kRows - 1) / kRows * kRows);
  float* bp = b_buffer.reserve(static_cast<std::size_t>(depth_step * block_cols));
  // Packing A costs one copy of each element per block of columns; with few columns
  // that is as much as the arithmetic, so the kernel reads A in place (a transposed A
  // has each step of k contiguous; a plain one has its rows in L1 for a sliver).
  const bool pack_whole_block = n > kPackAColumns;
  const std::int64_t rows_padded = (m + kRows - 1) / kRows * kRows;
  const bool pack_all_rows = pack_whole_block && rows_padded * depth_step <= kPackAllRowsFloats;
  float* ap = a_buffer.reserve(static_cast<std::size_t>(depth_step * (pack_all_rows ? rows_padded : block_rows)));
  if (pack_all_rows) {
    // Blocks of k outermost: all of A's rows for the block packed once (read back from
    // L2/L3 a sliver at a time), then each block of columns of B. Packed per block of
    // columns instead, A took about a tenth of a large product's time.
    for (std::int64_t pc = 0; pc < k; pc += depth_step) {
      const std::int64_t kc = std::min(depth_step, k - pc);
      const bool add = accumulate || pc > 0;
      pack_a(ta, ta ? a + pc * lda : a + pc, lda, m, kc, ap);
      for (std::int64_t jc = 0; jc < n; jc += col_step) {
        const std::int64_t nc = std::min(col_step, n - jc);
        const float* bb = bp;
        if (packed) {
          bb = packed->block(pc / depth_step, jc / col_step);
        } else {
          pack_b<kVecs>(tb, tb ? b + jc * ldb + pc : b + pc * ldb + jc, ldb, kc, nc, bp);
        }
        for (std::int64_t ir = 0; ir < m; ir += kRows) {
          const SliverOfA sliver{ap + (ir / kRows) * kc * kRows, kRows, 1};
          const std::int64_t rows = std::min(kRows, m - ir);
          for (std::int64_t jr = 0; jr < nc; jr += kWidth) {
            tile<true, kVecs>(kc, sliver, bb + (jr / kWidth) * kc * kWidth, c + ir * ldc + jc + jr, ldc, rows,
                              std::min(kWidth, nc - jr), add);
          }
        }
      }
    }
    return;
  }
  for (std::int64_t jc = 0; jc < n; jc += col_step) {
    const std::int64_t nc = std::min(col_step, n - jc);
    for (std::int64_t pc = 0; pc < k; pc += depth_step) {
      const std::int64_t kc = std::min(depth_step, k - pc);
      const bool add = accumulate || pc > 0;
      const float* bb = bp;
      if (packed) {
        bb = packed->block(pc / depth_step, jc / col_step);
      } else {
        pack_b<kVecs>(tb, tb ? b + jc * ldb + pc : b + pc * ldb + jc, ldb, kc, nc, bp);
      }
      for (std::int64_t ic = 0; ic < m; ic += kBlockRows) {
        const std::int64_t mc = std::min(kBlockRows, m - ic);
        const float* a_block = ta ? a + pc * lda + ic : a + ic * lda + pc;
        if (pack_whole_block) pack_a(ta, a_block, lda, mc, kc, ap);
        for (std::int64_t ir = 0; ir < mc; ir += kRows) {
          const std::int64_t rows = std::min(kRows, mc - ir);
          SliverOfA sliver{ap + (ir / kRows) * kc * kRows, kRows, 1};
          if (!pack_whole_block) {
            const float* a_rows = ta ? a_block + ir : a_block + ir * lda;
            if (rows == kRows) {
              sliver = ta ? SliverOfA{a_rows, lda, 1} : SliverOfA{a_rows, 1, lda};
            } else {  // the last rows: packed, so the kernel reads zeros past the end
              pack_a(ta, a_rows, lda, rows, kc, ap);
              sliver.ap = ap;
            }
          }
          const auto run = sliver.row_stride == 1 ? tile<true, kVecs> : tile<false, kVecs>;
          for (std::int64_t jr = 0; jr < nc; jr += kWidth) {
            run(kc, sliver, bb + (jr / kWidth) * kc * kWidth, c + (ic + ir) * ldc + jc + jr, ldc, rows,
                std::min(kWidth, nc - jr), add);
          }
        }
      }
    }
  }
}

// Products of at most this many columns with A transposed (a 10-class layer's kernel
// gradient, h^T·dy) and at least kNarrowDepth steps of k are computed transposed
// (narrow_product). Over fewer steps the transposes back cost more than the idle lanes
// of the 12×16 tile: measured at m = 256, 8 steps ran 10-20% slower for 8 to 12 columns,
// 16 steps as fast or faster for every column count.
constexpr std::int64_t kNarrowColumns = 12;
constexpr std::int64_t kNarrowDepth = 16;

// C[0..rows, 0..kCols) (= or +=) op(A)·op(B) for up to 16·kVecs rows of C, computed as
// C^T so that all 16 lanes work when C has few columns: one accumulator per column and
// 16 rows. `a` is A stored k × m at the block's first row (each step of k is a plain load
// of 16 rows), `b` op(B) stored k × kCols with row stride ldb (a broadcast per column).
// The accumulators are transposed back 16 rows at a time and stored kCols lanes wide.
// Rows past `rows` are masked off, so nothing past A's last row is read. The loops over
// vectors and columns carry unroll pragmas: left to itself, GCC keeps the accumulators
// of kVecs > 2 in memory.
template <int kCols, int kVecs>
void narrow_tile(std::int64_t depth, const float* __restrict a, std::int64_t lda, const float* __restrict b,
                 std::int64_t ldb, float* c, std::int64_t ldc, std::int64_t rows, bool add) {
  __m512 acc[kVecs][kCols];
  __mmask16 row_mask[kVecs];
#pragma GCC unroll 4
  for (int v = 0; v < kVecs; ++v) {
    row_mask[v] = lanes(rows - 16 * v);
#pragma GCC unroll 12
    for (int j = 0; j < kCols; ++j) acc[v][j] = _mm512_setzero_ps();
  }
  for (std::int64_t p = 0; p < depth; ++p) {
    __m512 av[kVecs];
#pragma GCC unroll 4
    for (int v = 0; v < kVecs; ++v) av[v] = _mm512_maskz_loadu_ps(row_mask[v], a + 16 * v);
#pragma GCC unroll 12
    for (int j = 0; j < kCols; ++j) {
      const __m512 bj = _mm512_set1_ps(b[j]);
#pragma GCC unroll 4
      for (int v = 0; v < kVecs; ++v) acc[v][j] = _mm512_fmadd_ps(av[v], bj, acc[v][j]);
    }
    a += lda;
    b += ldb;
  }
  const __mmask16 col_mask = lanes(kCols);
#pragma GCC unroll 4
  for (int v = 0; v < kVecs; ++v) {
    __m512 r[16];
#pragma GCC unroll 16
    for (int j = 0; j < 16; ++j) r[j] = j < kCols ? acc[v][j] : _mm512_setzero_ps();
    transpose16x16(r);
    const std::int64_t live = std::min<std::int64_t>(16, rows - 16 * v);
    for (std::int64_t i = 0; i < live; ++i) {
      float* ci = c + (16 * v + i) * ldc;
      if (add) r[i] = _mm512_add_ps(r[i], _mm512_maskz_loadu_ps(col_mask, ci));
      _mm512_mask_storeu_ps(ci, col_mask, r[i]);
    }
  }
}

// C (= or +=) A^T·op(B) for kCols ≤ kNarrowColumns columns, A stored k × m, op(B) stored
// k × kCols (row stride ldb), in blocks of 16·kVecs rows: at most 24 accumulators, which
// leaves registers for the kVecs vectors of A and the broadcast, and at most 4 vectors,
// so that a partial last block idles at most 3 of them.
template <int kCols>
void narrow_product(std::int64_t m, std::int64_t k, const float* a, std::int64_t lda, const float* b,
                    std::int64_t ldb, float* c, std::int64_t ldc, bool accumulate) {
  constexpr int kVecs = std::clamp(24 / kCols, 1, 4);
  constexpr std::int64_t kBlock = 16 * kVecs;
  for (std::int64_t i0 = 0; i0 < m; i0 += kBlock) {
    narrow_tile<kCols, kVecs>(k, a + i0, lda, b, ldb, c + i0 * ldc, ldc, std::min(kBlock, m - i0), accumulate);
  }
}

// narrow_product for n = 1..kNarrowColumns. A transposed B (stored n × k) is first copied
// to k × n: n·k floats against the product's m·n·k multiply-adds.
void narrow(bool tb, std::int64_t m, std::int64_t n, std::int64_t k, const float* a, std::int64_t lda, const float* b,
            std::int64_t ldb, float* c, std::int64_t ldc, bool accumulate) {
  using Fn = void (*)(std::int64_t, std::int64_t, const float*, std::int64_t, const float*, std::int64_t, float*,
                      std::int64_t, bool);
  static constexpr Fn kByColumns[kNarrowColumns] = {
      narrow_product<1>, narrow_product<2>, narrow_product<3>, narrow_product<4>,  narrow_product<5>,  narrow_product<6>,
      narrow_product<7>, narrow_product<8>, narrow_product<9>, narrow_product<10>, narrow_product<11>, narrow_product<12>};
  if (tb) {
    thread_local AlignedBuffer b_buffer;
    float* bt = b_buffer.reserve(static_cast<std::size_t>(k * n));
    for (std::int64_t j = 0; j < n; ++j) {
      for (std::int64_t p = 0; p < k; ++p) bt[p * n + j] = b[j * ldb + p];
    }
    b = bt;
    ldb = n;
  }
  kByColumns[n - 1](m, k, a, lda, b, ldb, c, ldc, accumulate);
}

}  // namespace

bool packed_gemm_available() noexcept { return true; }

std::int64_t packed_gemm_max_depth() noexcept { return max_depth(); }

void packed_gemm(bool ta, bool tb, std::int64_t m, std::int64_t n, std::int64_t k, const float* a, std::int64_t lda,
                 const float* b, std::int64_t ldb, float* c, std::int64_t ldc, bool accumulate) {
  if (m <= 0 || n <= 0) return;
  if (k <= 0) {
    if (!accumulate) {
      for (std::int64_t i = 0; i < m; ++i) std::fill_n(c + i * ldc, n, 0.f);
    }
    return;
  }
  if (ta && n <= kNarrowColumns && k >= kNarrowDepth) return narrow(tb, m, n, k, a, lda, b, ldb, c, ldc, accumulate);
  // Up to 16 columns (a 10-class layer) use a tile one vector wide: the 32-wide one would
  // leave two thirds of its lanes empty.
  if (n <= 16) return blocked_product<1>(ta, tb, m, n, k, a, lda, b, ldb, c, ldc, accumulate);
  blocked_product<2>(ta, tb, m, n, k, a, lda, b, ldb, c, ldc, accumulate);
}

// The blocking blocked_product uses for a k×n op(B): blocks of k, and of columns.
void PackedB::pack(bool tb, std::int64_t k, std::int64_t n, const float* b, std::int64_t ldb) {
  k_ = k;
  n_ = n;
  offsets_.clear();
  if (k <= 0 || n <= 0) {
    n_ = 0;
    return;
  }
  const std::int64_t blocks_of_k = (k + max_depth() - 1) / max_depth();
  const std::int64_t depth_step = (k + blocks_of_k - 1) / blocks_of_k;
  const std::int64_t col_step = block_columns(depth_step);
  const std::int64_t width = n <= 16 ? 16 : 32;
  column_blocks_ = (n + col_step - 1) / col_step;
  std::int64_t total = 0;
  for (std::int64_t pc = 0; pc < k; pc += depth_step) {
    for (std::int64_t jc = 0; jc < n; jc += col_step) {
      offsets_.push_back(total);
      const std::int64_t kc = std::min(depth_step, k - pc), nc = std::min(col_step, n - jc);
      total += (nc + width - 1) / width * width * kc;
    }
  }
  float* out = data_.reserve(static_cast<std::size_t>(total));
  std::size_t block = 0;
  for (std::int64_t pc = 0; pc < k; pc += depth_step) {
    for (std::int64_t jc = 0; jc < n; jc += col_step) {
      const std::int64_t kc = std::min(depth_step, k - pc), nc = std::min(col_step, n - jc);
      const float* src = tb ? b + jc * ldb + pc : b + pc * ldb + jc;
      float* dst = out + offsets_[block++];
      if (width == 16) {
        pack_b<1>(tb, src, ldb, kc, nc, dst);
      } else {
        pack_b<2>(tb, src, ldb, kc, nc, dst);
      }
    }
  }
}

void packed_gemm_prepacked(std::int64_t m, const float* a, std::int64_t lda, const PackedB& b, float* c,
                           std::int64_t ldc, bool accumulate) {
  const std::int64_t n = b.n(), k = b.k();
  if (m <= 0 || n <= 0) return;
  if (n <= 16) return blocked_product<1>(false, false, m, n, k, a, lda, nullptr, 0, c, ldc, accumulate, &b);
  blocked_product<2>(false, false, m, n, k, a, lda, nullptr, 0, c, ldc, accumulate, &b);
}

#else  // no AVX-512: cpu::gemm uses Eigen's kernel

bool packed_gemm_available() noexcept { return false; }

std::int64_t packed_gemm_max_depth() noexcept { return 0; }

void packed_gemm(bool, bool, std::int64_t, std::int64_t, std::int64_t, const float*, std::int64_t, const float*,
                 std::int64_t, float*, std::int64_t, bool) {
  std::abort();  // callers check packed_gemm_available() first
}

void PackedB::pack(bool, std::int64_t, std::int64_t, const float*, std::int64_t) { std::abort(); }

void packed_gemm_prepacked(std::int64_t, const float*, std::int64_t, const PackedB&, float*, std::int64_t, bool) {
  std::abort();
}

#endif

}  // namespace strata::cpu
