// The packed SGEMM kernel, written once for any instruction set's registers (`Ops`:
// core/cpu/avx512/ops.h, core/cpu/avx2/ops.h) and compiled once per instruction set
// (core/cpu/avx512/packed_gemm.cc, core/cpu/avx2/packed_gemm.cc). packed_gemm.h says
// what it computes; this file says how.
//
// Operands packed into cache-sized panels, a register tile of C updated by fused
// multiply-adds: 12 rows × 2 registers with AVX-512's 32 registers (12×32 floats),
// 6 rows × 2 registers with AVX2's 16 (6×16 floats, the tile of BLIS's and OpenBLAS's
// Haswell kernels); one register wide for products of at most one register of columns.
// Products of few columns with A transposed (and k ≥ 16) keep C^T in registers instead,
// so that all lanes work.
//
// Only the files of core/cpu/avx2/ and core/cpu/avx512/ include it, each inside its own
// namespace: nothing here may be used by code compiled for another instruction set.
#pragma once

#include <unistd.h>

#include <algorithm>
#include <array>
#include <cstdint>
#include <cstring>
#include <utility>

#include "core/cpu/epilogue.h"
#include "core/cpu/isa_kernels.h"
#include "core/cpu/packed_gemm.h"

namespace strata::cpu {

template <class Ops>
struct PackedGemm {
  using V = typename Ops::V;
  static constexpr std::int64_t kLanes = Ops::kLanes;
  // The register tile: kRows rows of C, each two registers wide (one for products of at
  // most one register of columns). With 32 registers: 24 accumulators, two of B and the
  // broadcast A value; with 16: 12, two and one. Per step of k, 2·kRows fused
  // multiply-adds for 2 vector loads and kRows broadcasts, so the loads never limit it.
  static constexpr std::int64_t kRows = Ops::kRegisters >= 32 ? 12 : 6;  // MR; NR is 1 or 2 registers
  // Blocking (BLIS's order for a kernel that broadcasts A): one packed sliver of A
  // (kRows × KC) stays in L1 while the kernel sweeps a packed block of B (KC × NC) from
  // L2; the packed rows of A for the block of k (all of them, or kBlockRows at a time for
  // a very tall A) sit in L2/L3. KC and NC come from this machine's cache sizes
  // (max_depth, block_columns below).
  static constexpr std::int64_t kBlockRows = 240;  // MC, a multiple of kRows (12 and 6)
  // A product that packs A packs all its rows for a block of k at once when they take at
  // most this many floats (16 MB), so that each element of A is packed once, not once per
  // block of columns (docs/performance.md).
  static constexpr std::int64_t kPackAllRowsFloats = std::int64_t{1} << 22;
  // Steps of k ahead that the kernel prefetches packed B.
  static constexpr std::int64_t kPrefetchSteps = 8;
  // Steps of k ahead that the kernel prefetches a packed A. A large product's packed rows
  // of A sit in L3 (2048 rows × 683 steps is 5.6 MB), where the hardware prefetcher does
  // not keep a sliver ahead of its first tile: asking made the kernel's loops over them
  // 4% faster on an AMD EPYC (Zen 5; docs/performance.md).
  static constexpr std::int64_t kPrefetchASteps = 32;
  // Steps of k before the end of a tile at which the kernel asks for C's lines, one a
  // step: a large C is in L3 or memory when the tile reads (or writes) it back.
  static constexpr std::int64_t kPrefetchCSteps = 192;
  // Products with more columns than this pack A (see blocked_product); a transposed A
  // (stored k × m, whose steps of k are rows of A) with AVX2 from 128 columns on: read in
  // place, 256x256x128 A^T ran at 85% of OpenBLAS's (Haswell kernels) on Zen 5, packed
  // at 100%; with AVX-512, packing it made that product 6% slower (docs/performance.md).
  static constexpr std::int64_t kPackAColumns = 256;
  static constexpr std::int64_t kPackTransposedAColumns = Ops::kRegisters >= 32 ? kPackAColumns : 128;
  // Floats ahead in each row that packing asks for while it transposes a block of rows ×
  // steps: a sliver's rows are a stride apart in memory (8 KB on 2048³), and the hardware
  // prefetcher left packing waiting on them. Four lines ahead made 2048³ 1–2% faster on
  // two threads (up to 2% on one), with B transposed too (Zen 5; docs/performance.md).
  static constexpr std::int64_t kPackPrefetchFloats = 64;
  // Where sysconf does not know a cache's size: the blocking tuned on an Intel Xeon
  // (Cascade Lake) before it was derived from the caches.
  static constexpr std::int64_t kFallbackDepth = 384;
  static constexpr std::int64_t kFallbackBlockCols = 512;
  // Products of at most this many columns with A transposed (a 10-class layer's kernel
  // gradient, h^T·dy) and at least kNarrowDepth steps of k are computed transposed
  // (narrow_product): at most 12, and no more than a register holds. Over fewer steps
  // the transposes back cost more than the idle lanes of the one-register tile: measured
  // with AVX-512 at m = 256, 8 steps ran 10-20% slower for 8 to 12 columns, 16 steps as
  // fast or faster for every column count.
  static constexpr std::int64_t kNarrowColumns = std::min<std::int64_t>(12, kLanes);
  static constexpr std::int64_t kNarrowDepth = 16;

  // Most steps of k in one block (KC). Each block of k is one more pass over C, which a
  // large product reads back from L3 or memory; the sliver of packed A the tile reuses
  // must stay in L1d meanwhile (B streams from L2).
  //
  // With AVX-512, the sliver of A (12 × KC floats) in three quarters of L1d: 768 steps on
  // 48 KB (AMD Zen 5) and 512 on 32 KB. On Zen 5, 683-step blocks instead of 342 made
  // 2048³ 1–2% faster on two threads and 512x4096x4096 and 128x256x784 1–2% on one.
  //
  // With AVX2, the sliver of A (6 × KC floats) in three eighths of L1d, at most 512
  // steps: 512 on 32 KB (Zen 3) and on 48 KB (Zen 5). On an AVX2-only Zen 3 (32 KB L1d,
  // 512 KB L2) the rule before (the sliver of A and one sliver of B in three quarters of
  // L1d: 279 steps) left 2048³ and 512x4096x4096 at 0.95 and 0.94 of OpenBLAS on two
  // threads (medians of interleaved rounds), where 450-512 steps reached 0.99-1.03 and
  // 0.97-1.0: the passes over C cost more there than a sliver of B in L1d saves. On Zen 5,
  // 256 to 512 steps ran as fast as 418 and 1024 1-2% slower (docs/performance.md).
  static std::int64_t max_depth() {
    static const std::int64_t depth = [] {
      const long l1d = sysconf(_SC_LEVEL1_DCACHE_SIZE);
      if (l1d <= 0) return kFallbackDepth;
      const std::int64_t sliver_of_a_bytes = kRows * std::int64_t{sizeof(float)};
      if constexpr (Ops::kRegisters >= 32) return std::clamp<std::int64_t>(l1d * 3 / 4 / sliver_of_a_bytes, 256, 1024);
      return std::clamp<std::int64_t>(l1d * 3 / 8 / sliver_of_a_bytes, 256, 512);
    }();
    return depth;
  }

  // Columns of B per block (NC) for blocks of `depth` steps: the packed block (depth × NC
  // floats) in a share of L2, in whole two-register slivers, at most 512 (the width tuned
  // on the Xeon, where 384 steps × 512 columns is three quarters of its 1 MB). With
  // AVX-512, three quarters of L2. With AVX2, the share leaves four of L2's ways to what
  // streams through it besides (slivers of A from L3, tiles of C, B's next lines), at most
  // three quarters: 3/4 of a 16-way L2 (Zen 5), 1/2 of an 8-way one (Zen 3, where with
  // 450-512 steps 1/2 ran 2-2.6% faster than 3/4 at 512x4096x4096, and at 2048³ from 1%
  // faster to 1.2% slower; docs/performance.md). Not measured with AVX-512 on an 8-way L2,
  // so that path keeps its share.
  static std::int64_t block_columns(std::int64_t depth) {
    static const std::int64_t block_bytes = [] {
      const long l2 = sysconf(_SC_LEVEL2_CACHE_SIZE), ways = sysconf(_SC_LEVEL2_CACHE_ASSOC);
      if (l2 <= 0) return std::int64_t{0};
      const std::int64_t three_quarters = l2 * 3 / 4;
      if (Ops::kRegisters >= 32) return three_quarters;
      if (ways <= 0) return three_quarters;  // not known: the share tuned before ways were read
      return ways >= 8 ? std::min<std::int64_t>(three_quarters, l2 / ways * (ways - 4)) : l2 / 2;
    }();
    if (block_bytes <= 0) return kFallbackBlockCols;
    const std::int64_t cols = block_bytes / (depth * std::int64_t{sizeof(float)}) / (2 * kLanes) * (2 * kLanes);
    return std::clamp<std::int64_t>(cols, 64, kFallbackBlockCols);
  }

  // Equal blocks of k (a last block of a few steps would pay a whole pass over C), and
  // the columns of B per block for that depth.
  static GemmBlocking blocking(std::int64_t k) {
    const std::int64_t blocks_of_k = (k + max_depth() - 1) / max_depth();
    const std::int64_t depth = (k + blocks_of_k - 1) / blocks_of_k;
    return {depth, block_columns(depth)};
  }

  static std::int64_t sliver_width(std::int64_t n) { return n <= kLanes ? kLanes : 2 * kLanes; }

  // Stores the first kRows lanes of v at out. Where a masked store is slow, the whole
  // register is stored: callers store in increasing order of address, so the lanes past
  // kRows land where a later store (or the scalar tail) writes, or in the buffer's slack.
  static void store_sliver_step(float* out, V v) {
    if constexpr (Ops::kFastMaskedStore || kRows == kLanes) {
      Ops::store_masked(out, Ops::lanes(kRows), v);
    } else {
      Ops::storeu(out, v);
    }
  }

  // One sliver of A stored m × k (`rows` ≤ kRows of them, `a` at the first): element
  // (i, p) to out[p·kRows + i], rows past `rows` zero. Blocks of kLanes steps of k are
  // transposed in registers: copied one float at a time, packing A cost about an eighth
  // of the product's time on the large shapes (each block of A is packed once per block
  // of columns).
  static void pack_a_rows(const float* a, std::int64_t lda, std::int64_t rows, std::int64_t depth, float* out) {
    std::int64_t p0 = 0;
    for (; p0 + kLanes <= depth; p0 += kLanes) {
      V r[kLanes];
      for (int i = 0; i < rows; ++i) Ops::prefetch(a + i * lda + p0 + kPackPrefetchFloats);
      for (int i = 0; i < kLanes; ++i) r[i] = i < rows ? Ops::loadu(a + i * lda + p0) : Ops::zero();
      Ops::transpose(r);
      for (int p = 0; p < kLanes; ++p) store_sliver_step(out + (p0 + p) * kRows, r[p]);
    }
    // The last steps (fewer than kLanes), transposed the same way from masked loads: one
    // float at a time they took 30% of a product of 10 steps (128x256x10).
    if (const std::int64_t rest = depth - p0; rest > 0) {
      V r[kLanes];
      const auto steps = Ops::lanes(rest);
      for (int i = 0; i < kLanes; ++i) r[i] = i < rows ? Ops::load_masked(steps, a + i * lda + p0) : Ops::zero();
      Ops::transpose(r);
      for (int p = 0; p < rest; ++p) store_sliver_step(out + (p0 + p) * kRows, r[p]);
    }
  }

  // The rows of C a product's (or a block's) tile t covers: kRows each, except that when
  // the last tile would be less than half full, the last two share their rows evenly: 16
  // rows as 8 + 8, not 12 + 4. A short tile reads B at a higher rate per multiply-add (a
  // 4-row tile at three times the 12-row one's, from L2): an LSTM(128) at batch 32, whose
  // every step multiplies 16 rows per thread, predicted 4-6% slower with 12 + 4. Each
  // row's sums are the same in any tile, so the results are too.
  struct RowTile {
    std::int64_t first, rows;
  };
  static std::int64_t row_tiles(std::int64_t m) { return (m + kRows - 1) / kRows; }
  static RowTile row_tile(std::int64_t m, std::int64_t t) {
    const std::int64_t tiles = row_tiles(m), last = m - (tiles - 1) * kRows;
    if (tiles < 2 || 2 * last >= kRows || t < tiles - 2) return {t * kRows, std::min(kRows, m - t * kRows)};
    const std::int64_t upper = (kRows + last + 1) / 2;
    return t == tiles - 2 ? RowTile{t * kRows, upper} : RowTile{t * kRows - kRows + upper, kRows + last - upper};
  }

  // Packs rows [0, rows) × depth [0, depth) of op(A) (its top-left corner at `a`) into
  // one sliver of kRows rows per tile (row_tile): sliver t holds element (i, p) of its
  // tile at t·depth·kRows + p·kRows + i, rows past the tile's zero. `out` has kSlack
  // floats to spare past the end.
  static void pack_a(bool ta, const float* a, std::int64_t lda, std::int64_t rows, std::int64_t depth, float* out) {
    for (std::int64_t t = 0; t < row_tiles(rows); ++t) {
      const RowTile tile = row_tile(rows, t);
      const std::int64_t r0 = tile.first, len = tile.rows;
      float* dst = out + t * depth * kRows;
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
  // Floats past the end of a packed A that pack_a may write (see store_sliver_step).
  static constexpr std::int64_t kSlack = kLanes;

  // One sliver (kLanes·kVecs columns) of op(B) from a B stored n × k (`b` at the
  // sliver's first column, `cols` of them): dst[p·width + j] = b[j·ldb + p], columns past
  // `cols` zero. Blocks of kLanes columns × kLanes steps are transposed in registers.
  template <int kVecs>
  static void pack_b_transposed(const float* b, std::int64_t ldb, std::int64_t depth, std::int64_t cols, float* dst) {
    constexpr std::int64_t kWidth = kLanes * kVecs;
    for (std::int64_t j0 = 0; j0 < kWidth; j0 += kLanes) {
      const std::int64_t live = std::clamp<std::int64_t>(cols - j0, 0, kLanes);  // real columns in this block
      std::int64_t p0 = 0;
      for (; p0 + kLanes <= depth; p0 += kLanes) {
        V r[kLanes];
        for (int j = 0; j < live; ++j) Ops::prefetch(b + (j0 + j) * ldb + p0 + kPackPrefetchFloats);
        for (int j = 0; j < kLanes; ++j) r[j] = j < live ? Ops::loadu(b + (j0 + j) * ldb + p0) : Ops::zero();
        Ops::transpose(r);
        for (int p = 0; p < kLanes; ++p) Ops::store(dst + (p0 + p) * kWidth + j0, r[p]);
      }
      if (const std::int64_t rest = depth - p0; rest > 0) {  // as pack_a_rows's last steps
        V r[kLanes];
        const auto steps = Ops::lanes(rest);
        for (int j = 0; j < kLanes; ++j) {
          r[j] = j < live ? Ops::load_masked(steps, b + (j0 + j) * ldb + p0) : Ops::zero();
        }
        Ops::transpose(r);
        for (int p = 0; p < rest; ++p) Ops::store(dst + (p0 + p) * kWidth + j0, r[p]);
      }
    }
  }

  // Packs depth [0, depth) × columns [0, cols) of op(B) (its top-left corner at `b`) into
  // slivers of kLanes·kVecs columns: sliver s holds element (p, j) at s·depth·width +
  // p·width + j, columns past the end zero.
  template <int kVecs>
  static void pack_b(bool tb, const float* b, std::int64_t ldb, std::int64_t depth, std::int64_t cols, float* out) {
    constexpr std::int64_t kWidth = kLanes * kVecs;
    if (tb) {  // B stored n × k: each column of op(B) is contiguous in k.
      for (std::int64_t j0 = 0; j0 < cols; j0 += kWidth) {
        pack_b_transposed<kVecs>(b + j0 * ldb, ldb, depth, std::min(kWidth, cols - j0),
                                 out + (j0 / kWidth) * depth * kWidth);
      }
      return;
    }
    // B stored k × n: each step of k is a contiguous run of columns. Sliver by sliver,
    // each row is read a sliver at a time in a stride of ldb. Where that stride is a page
    // or more, every read is on another page, which the hardware prefetcher does not
    // follow: there the rows are read whole, one after the other, and dealt out to the
    // slivers (which stay in L2). On one core of an AMD EPYC (Zen 5) that made a
    // 256x4096x4096 product 7% faster; for narrower B (rows within a page, often in cache)
    // the sliver order measured 2-4% faster (docs/performance.md).
    if (ldb * static_cast<std::int64_t>(sizeof(float)) >= 4096) {
      for (std::int64_t p = 0; p < depth; ++p) {
        const float* src = b + p * ldb;
        for (std::int64_t j0 = 0; j0 < cols; j0 += kWidth) {
          const std::int64_t len = std::min(kWidth, cols - j0);
          float* d = out + (j0 / kWidth) * depth * kWidth + p * kWidth;
          for (int v = 0; v < kVecs; ++v) {
            Ops::store(d + kLanes * v, Ops::load_masked(Ops::lanes(len - kLanes * v), src + j0 + kLanes * v));
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
          Ops::store(d + kLanes * v, Ops::load_masked(Ops::lanes(len - kLanes * v), src + kLanes * v));
        }
      }
    }
  }

  static void pack_b_any(bool tb, const float* b, std::int64_t ldb, std::int64_t depth, std::int64_t cols,
                         std::int64_t width, float* out) {
    if (width == kLanes) return pack_b<1>(tb, b, ldb, depth, cols, out);
    pack_b<2>(tb, b, ldb, depth, cols, out);
  }

  // How the kernel reads op(A)'s kRows rows at step p of k: element (i, p) is at
  // ap[p·step + i·row_stride]. A packed sliver has step kRows and row stride 1; an
  // unpacked transposed A (stored k × m) step lda and row stride 1; an unpacked A (stored
  // m × k) step 1 and row stride lda.
  struct SliverOfA {
    const float* ap;
    std::int64_t step, row_stride;
  };

  // A tile (one_tile): C[0..rows, 0..cols) (= or +=) the product of kTileRows rows of an
  // A sliver and one packed B sliver of kLanes·kVecs columns over `depth`. rows ==
  // kTileRows ≤ kRows, cols ≤ kLanes·kVecs; `add` keeps C's values; a non-null `epilogue`
  // (bias, residual, relu or relu6; never silu) is applied to the registers before they
  // are stored, from the tile's first row and column. kUnitRowStride: A's rows are adjacent
  // floats (a packed sliver, or a transposed A read in place), so the broadcasts use constant
  // offsets and no registers. A product's last rows, fewer than kRows, get a tile of
  // their own height (tile_for): on the full tile they cost as much as kRows rows (64
  // rows on two threads with AVX2 is 5 tiles and 2 rows a thread: 6 tiles' time).
  //
  // tile() runs the tiles of one sliver of A across `cols` columns (B's slivers one after
  // the other from bp, depth·kLanes·kVecs floats apart): one call per sliver of A rather
  // than per tile, which with AVX2 made 128x256x10 B^T 5% faster (a call's prologue
  // against 10 steps of 12 multiply-adds).
  //
  // The sliver comes as three scalars, not a SliverOfA: a struct passed by value through a
  // function pointer went through the stack, written as two 8-byte stores and read back
  // as one 16-byte load, which cannot be forwarded from them (a stall per call: 3% of
  // MobileNetV2's time at batch 32).
  template <bool kUnitRowStride, int kVecs, int kTileRows = static_cast<int>(kRows)>
  static void tile(std::int64_t depth, const float* a_sliver, std::int64_t a_step, std::int64_t a_row_stride,
                   const float* __restrict bp, float* c, std::int64_t ldc, std::int64_t rows, std::int64_t cols,
                   bool add, const Epilogue* epilogue) {
    const SliverOfA a{a_sliver, a_step, a_row_stride};
    constexpr std::int64_t kWidth = kLanes * kVecs;
    for (std::int64_t jr = 0; jr < cols; jr += kWidth) {
      const float* b_sliver = bp + (jr / kWidth) * depth * kWidth;
      const Epilogue columns = epilogue ? epilogue->from_column(jr) : Epilogue{};
      one_tile<kUnitRowStride, kVecs, kTileRows>(depth, a, b_sliver, c + jr, ldc, rows, std::min(kWidth, cols - jr),
                                                 add, epilogue ? &columns : nullptr);
    }
  }

  template <bool kUnitRowStride, int kVecs, int kTileRows>
  [[gnu::always_inline]] static void one_tile(std::int64_t depth, SliverOfA a, const float* __restrict bp, float* c,
                                              std::int64_t ldc, std::int64_t rows, std::int64_t cols, bool add,
                                              const Epilogue* epilogue) {
    // The one-register tile serves small products whose C is in cache: the prefetches of
    // A and C made 128×10×256 2.5% slower with AVX-512 (docs/performance.md). Asking for
    // C's registers one a step near the end of the steps pays where the steps take longer
    // than fetching C; over fewer steps than twice C's registers it does not: with AVX2,
    // 128x256x10 B^T ran 7% faster without. The two are separate bodies, each with its own
    // accumulators: sharing them, GCC kept them in memory for both.
    if (kVecs == 1 || depth < 2 * kTileRows * kVecs) {
      return tile_body<kUnitRowStride, kVecs, kTileRows, false>(depth, a, bp, c, ldc, rows, cols, add, epilogue);
    }
    tile_body<kUnitRowStride, kVecs, kTileRows, true>(depth, a, bp, c, ldc, rows, cols, add, epilogue);
  }

  template <bool kUnitRowStride, int kVecs, int kTileRows, bool kPrefetchAAndC>
  [[gnu::always_inline]] static void tile_body(std::int64_t depth, SliverOfA a, const float* __restrict bp, float* c,
                                               std::int64_t ldc, std::int64_t rows, std::int64_t cols, bool add,
                                               const Epilogue* epilogue) {
    constexpr std::int64_t kWidth = kLanes * kVecs;
    const float* __restrict ap = a.ap;
    const std::int64_t step = a.step, rs = kUnitRowStride ? 1 : a.row_stride;
    V acc[kTileRows][kVecs];
#pragma GCC unroll 12
    for (int i = 0; i < kTileRows; ++i) {
      for (int v = 0; v < kVecs; ++v) acc[i][v] = Ops::zero();
    }
    auto one_step = [&]() __attribute__((always_inline)) {
      V bv[kVecs];
      // B streams from L2: ask for the step 8 ahead. The hardware prefetcher alone left
      // the large products 5% slower (docs/performance.md); 4 and 16 ahead did as well.
      for (int v = 0; v < kVecs; ++v) Ops::prefetch(bp + kPrefetchSteps * kWidth + kLanes * v);
      // A's rows are adjacent here: a packed sliver, or a transposed A read in place
      // (whose steps are rows of A a stride apart, which the hardware does not follow).
      if constexpr (kPrefetchAAndC && kUnitRowStride) Ops::prefetch(ap + kPrefetchASteps * step);
      for (int v = 0; v < kVecs; ++v) bv[v] = Ops::load(bp + kLanes * v);
#pragma GCC unroll 12
      for (int i = 0; i < kTileRows; ++i) {
        const V av = Ops::set1(ap[i * rs]);
        for (int v = 0; v < kVecs; ++v) acc[i][v] = Ops::fmadd(av, bv[v], acc[i][v]);
      }
      ap += step;
      bp += kWidth;
    };
    if constexpr (!kPrefetchAAndC) {
      for (std::int64_t p = 0; p < depth; ++p) one_step();
    } else {
      // The steps in three runs so that the middle one, which asks for one of C's
      // registers a step (kTileRows·kVecs of them), needs no test in the others.
      constexpr std::int64_t kPartsOfC = kTileRows * kVecs;
      const std::int64_t c_first = std::max<std::int64_t>(0, depth - kPrefetchCSteps);
      const std::int64_t c_last = std::min(depth, c_first + kPartsOfC);
      std::int64_t p = 0;
      for (; p < c_first; ++p) one_step();
      for (std::int64_t part = 0; p < c_last; ++p, ++part) {
        Ops::prefetch(c + (part / kVecs) * ldc + kLanes * (part % kVecs));
        one_step();
      }
      for (; p < depth; ++p) one_step();
    }
    // The epilogue, when given, on the registers before they are stored: the sum as
    // apply_epilogue_rows forms it (C, then bias, then residual, then the activation), so
    // the same bits, without a second pass over C.
    const Epilogue e = epilogue ? *epilogue : Epilogue{};
    const V zero = Ops::zero(), six = Ops::set1(6.f);
    auto finish = [&](V x, std::int64_t i, int v, typename Ops::Mask m) __attribute__((always_inline)) {
      if (e.bias) x = Ops::add(x, Ops::load_masked(m, e.bias + kLanes * v));
      if (e.residual) x = Ops::add(x, Ops::load_masked(m, e.residual + i * e.residual_ld + kLanes * v));
      if (e.activation == Activation::kRelu) {
        x = Ops::max(x, zero);
      } else if (e.activation == Activation::kRelu6) {
        x = Ops::min(six, Ops::max(zero, x));
      }
      return x;
    };
    if (rows == kTileRows && cols == kWidth) {
      const auto whole = Ops::lanes(kLanes);
#pragma GCC unroll 12
      for (int i = 0; i < kTileRows; ++i) {
        float* ci = c + i * ldc;
        for (int v = 0; v < kVecs; ++v) {
          if (add) acc[i][v] = Ops::add(acc[i][v], Ops::loadu(ci + kLanes * v));
          if (epilogue) acc[i][v] = finish(acc[i][v], i, v, whole);
          Ops::storeu(ci + kLanes * v, acc[i][v]);
        }
      }
      return;
    }
    typename Ops::Mask mask[kVecs];
    for (int v = 0; v < kVecs; ++v) mask[v] = Ops::lanes(cols - kLanes * v);
#pragma GCC unroll 12
    for (int i = 0; i < kTileRows; ++i) {
      if (i < rows) {
        float* ci = c + i * ldc;
        for (int v = 0; v < kVecs; ++v) {
          if (add) acc[i][v] = Ops::add(acc[i][v], Ops::load_masked(mask[v], ci + kLanes * v));
          if (epilogue) acc[i][v] = finish(acc[i][v], i, v, mask[v]);
          Ops::store_masked(ci + kLanes * v, mask[v], acc[i][v]);
        }
      }
    }
  }

  using TileFn = void (*)(std::int64_t, const float*, std::int64_t, std::int64_t, const float*, float*, std::int64_t,
                          std::int64_t, std::int64_t, bool, const Epilogue*);
  template <bool kUnitRowStride, int kVecs, int... kRowsMinusOne>
  static constexpr std::array<TileFn, kRows> tiles_by_height(std::integer_sequence<int, kRowsMinusOne...>) {
    return {&tile<kUnitRowStride, kVecs, kRowsMinusOne + 1>...};
  }
  // The tile for `rows` (1..kRows) rows of C: the full tile for kRows.
  template <bool kUnitRowStride, int kVecs>
  static TileFn tile_for(std::int64_t rows) {
    static constexpr std::array<TileFn, kRows> kByHeight =
        tiles_by_height<kUnitRowStride, kVecs>(std::make_integer_sequence<int, static_cast<int>(kRows)>{});
    return kByHeight[static_cast<std::size_t>(rows - 1)];
  }

  // The epilogue (bias, activation) on rows [0, rows) × columns [0, cols) of C, right
  // after the last block of k wrote them (a tile row of C, still in L1): for silu, and the
  // products that do not run the tiles (the narrow ones, k = 0); the tiles apply the
  // others to their registers (tile_body), in the same order. relu is
  // max(v, 0), which makes NaN 0; relu6 max(0, v) then min(6, v), which keep NaN (the
  // instructions return their second operand where either is NaN), as the relu6 op does;
  // silu the silu op's own code on the row (apply_silu), after the bias; a rounding last
  // (apply_row_passes).
  static void apply_epilogue_rows(const Epilogue& e, float* c, std::int64_t ldc, std::int64_t rows,
                                  std::int64_t cols) {
    if (e.empty()) return;
    const V zero = Ops::zero(), six = Ops::set1(6.f);
    for (std::int64_t i = 0; i < rows; ++i) {
      float* row = c + i * ldc;
      const float* res = e.residual ? e.residual + i * e.residual_ld : nullptr;
      if (e.bias || res || e.activation == Activation::kRelu || e.activation == Activation::kRelu6) {
        for (std::int64_t j = 0; j < cols; j += kLanes) {
          const auto m = Ops::lanes(cols - j);
          V v = Ops::load_masked(m, row + j);
          if (e.bias) v = Ops::add(v, Ops::load_masked(m, e.bias + j));
          if (res) v = Ops::add(v, Ops::load_masked(m, res + j));
          if (e.activation == Activation::kRelu) {
            v = Ops::max(v, zero);
          } else if (e.activation == Activation::kRelu6) {
            v = Ops::min(six, Ops::max(zero, v));
          }
          Ops::store_masked(row + j, m, v);
        }
      }
      apply_row_passes(e, row, cols);
    }
  }

  // The blocked product with B slivers of kLanes·kVecs columns (see gemm). With `packed`,
  // B was packed by PackedB::pack (b and tb unused): its blocks are read where they lie
  // instead of being packed here, and only C's columns [col_begin, col_end) may be asked
  // for (col_begin a whole number of slivers), a thread's share of a product whose B is
  // larger than its A.
  template <int kVecs>
  static void blocked_product(bool ta, bool tb, std::int64_t m, std::int64_t n, std::int64_t k, const float* a,
                              std::int64_t lda, const float* b, std::int64_t ldb, float* c, std::int64_t ldc,
                              bool accumulate, const Epilogue& epilogue, const PackedB* packed = nullptr,
                              std::int64_t col_begin = 0, std::int64_t col_end = -1) {
    constexpr std::int64_t kWidth = kLanes * kVecs;
    if (col_end < 0) col_end = n;
    const std::int64_t cols = col_end - col_begin;
    // Named variables, not a structured binding: clang 14 cannot capture a binding in
    // the lambda below.
    const GemmBlocking steps = blocking(k);
    const std::int64_t depth_step = steps.depth, col_step = steps.columns;
    const std::int64_t block_cols = std::min(col_step, (cols + kWidth - 1) / kWidth * kWidth);
    const std::int64_t block_rows = std::min(kBlockRows, (m + kRows - 1) / kRows * kRows);
    // The epilogue on the tile's registers as the last block of k stores them (bias,
    // residual, relu, relu6); silu, which works on whole rows, as a pass over each tile row
    // after it (apply_epilogue_rows). As that pass, the epilogue took 11% of a profile of
    // MobileNetV2's batch-1 prediction on an AVX2-only Zen 3; on the registers, MobileNetV2
    // ran 0.3-8% faster there (docs/performance.md).
    const bool fused = !epilogue.empty() && !epilogue.works_on_rows();
    float* bp = packing_buffer(1, static_cast<std::size_t>(depth_step * block_cols));
    // Packing A costs one copy of each element per block of columns; with few columns
    // that is as much as the arithmetic, so the kernel reads A in place (a transposed A
    // has each step of k contiguous; a plain one has its rows in L1 for a sliver).
    const bool pack_whole_block = cols > (ta ? kPackTransposedAColumns : kPackAColumns);
    const std::int64_t rows_padded = (m + kRows - 1) / kRows * kRows;
    const bool pack_all_rows = pack_whole_block && rows_padded * depth_step <= kPackAllRowsFloats;
    float* ap = pack_whole_block ? packing_buffer(0, static_cast<std::size_t>(
                                                         depth_step * (pack_all_rows ? rows_padded : block_rows) + kSlack))
                                 : nullptr;
    // B's block of k steps [pc, pc + kc) and columns [jc, jc + nc): where PackedB::pack
    // put it (from a sliver inside the packed block of columns), or packed here into bp.
    auto b_block = [&](std::int64_t pc, std::int64_t kc, std::int64_t jc, std::int64_t nc) -> const float* {
      if (packed) return packed->block(pc / depth_step, jc / col_step) + (jc % col_step) / kWidth * kc * kWidth;
      pack_b<kVecs>(tb, tb ? b + jc * ldb + pc : b + pc * ldb + jc, ldb, kc, nc, bp);
      return bp;
    };
    if (pack_all_rows) {
      // Blocks of k outermost: all of A's rows for the block packed once (read back from
      // L2/L3 a sliver at a time), then each block of columns of B. Packed per block of
      // columns instead, A took about a tenth of a large product's time.
      for (std::int64_t pc = 0; pc < k; pc += depth_step) {
        const std::int64_t kc = std::min(depth_step, k - pc);
        const bool add = accumulate || pc > 0;
        pack_a(ta, ta ? a + pc * lda : a + pc, lda, m, kc, ap);
        for (std::int64_t jb = col_begin / col_step * col_step; jb < col_end; jb += col_step) {
          const std::int64_t jc = std::max(jb, col_begin), nc = std::min(jb + col_step, col_end) - jc;
          const float* bb = b_block(pc, kc, jc, nc);
          for (std::int64_t t = 0; t < row_tiles(m); ++t) {
            const RowTile tile = row_tile(m, t);
            const std::int64_t ir = tile.first, rows = tile.rows;
            const Epilogue tile_epilogue = epilogue.from_row(ir).from_column(jc);
            tile_for<true, kVecs>(rows)(kc, ap + t * kc * kRows, kRows, 1, bb, c + ir * ldc + jc, ldc, rows, nc, add,
                                        pc + kc == k && fused ? &tile_epilogue : nullptr);
            if (pc + kc == k && !fused) apply_epilogue_rows(tile_epilogue, c + ir * ldc + jc, ldc, rows, nc);
          }
        }
      }
      return;
    }
    for (std::int64_t jb = col_begin / col_step * col_step; jb < col_end; jb += col_step) {
      const std::int64_t jc = std::max(jb, col_begin), nc = std::min(jb + col_step, col_end) - jc;
      for (std::int64_t pc = 0; pc < k; pc += depth_step) {
        const std::int64_t kc = std::min(depth_step, k - pc);
        const bool add = accumulate || pc > 0;
        const float* bb = b_block(pc, kc, jc, nc);
        for (std::int64_t ic = 0; ic < m; ic += kBlockRows) {
          const std::int64_t mc = std::min(kBlockRows, m - ic);
          const float* a_block = ta ? a + pc * lda + ic : a + ic * lda + pc;
          if (pack_whole_block) pack_a(ta, a_block, lda, mc, kc, ap);
          for (std::int64_t t = 0; t < row_tiles(mc); ++t) {
            const RowTile tile = row_tile(mc, t);
            const std::int64_t ir = tile.first, rows = tile.rows;
            // Packed, or read in place (the last rows too: their tile reads no further). The
            // packed address is formed only when there is a buffer (ap is null otherwise).
            const float* a_rows = ta ? a_block + ir : a_block + ir * lda;
            const SliverOfA sliver = pack_whole_block ? SliverOfA{ap + t * kc * kRows, kRows, 1}
                                     : ta             ? SliverOfA{a_rows, lda, 1}
                                                      : SliverOfA{a_rows, 1, lda};
            const TileFn run = sliver.row_stride == 1 ? tile_for<true, kVecs>(rows) : tile_for<false, kVecs>(rows);
            const Epilogue tile_epilogue = epilogue.from_row(ic + ir).from_column(jc);
            run(kc, sliver.ap, sliver.step, sliver.row_stride, bb, c + (ic + ir) * ldc + jc, ldc, rows, nc, add,
                pc + kc == k && fused ? &tile_epilogue : nullptr);
            if (pc + kc == k && !fused) apply_epilogue_rows(tile_epilogue, c + (ic + ir) * ldc + jc, ldc, rows, nc);
          }
        }
      }
    }
  }

  // Registers of rows for narrow_tile with kCols columns: at most 24 accumulators with 32
  // registers, 15 with 16 (leaving room for the kVecs registers of A and the broadcast),
  // and at most 4, so that a partial last block idles at most 3 of them.
  static constexpr int narrow_vectors(int cols) {
    return Ops::kRegisters >= 32 ? std::clamp(24 / cols, 1, 4) : std::clamp(15 / (cols + 1), 1, 4);
  }

  // C[0..rows, 0..kCols) (= or +=) op(A)·op(B) for up to kLanes·kVecs rows of C,
  // computed as C^T so that all lanes work when C has few columns: one accumulator per
  // column and kLanes rows. `a` is A stored k × m at the block's first row (each step of
  // k is a plain load of kLanes rows), `b` op(B) stored k × kCols with row stride ldb (a
  // broadcast per column). The accumulators are transposed back kLanes rows at a time
  // and stored kCols lanes wide. Rows past `rows` are masked off, so nothing past A's
  // last row is read. The loops over vectors and columns carry unroll pragmas: left to
  // itself, GCC keeps the accumulators of kVecs > 2 in memory.
  template <int kCols, int kVecs>
  static void narrow_tile(std::int64_t depth, const float* __restrict a, std::int64_t lda,
                          const float* __restrict b, std::int64_t ldb, float* c, std::int64_t ldc, std::int64_t rows,
                          bool add) {
    V acc[kVecs][kCols];
    typename Ops::Mask row_mask[kVecs];
#pragma GCC unroll 4
    for (int v = 0; v < kVecs; ++v) {
      row_mask[v] = Ops::lanes(rows - kLanes * v);
#pragma GCC unroll 12
      for (int j = 0; j < kCols; ++j) acc[v][j] = Ops::zero();
    }
    for (std::int64_t p = 0; p < depth; ++p) {
      V av[kVecs];
#pragma GCC unroll 4
      for (int v = 0; v < kVecs; ++v) av[v] = Ops::load_masked(row_mask[v], a + kLanes * v);
#pragma GCC unroll 12
      for (int j = 0; j < kCols; ++j) {
        const V bj = Ops::set1(b[j]);
#pragma GCC unroll 4
        for (int v = 0; v < kVecs; ++v) acc[v][j] = Ops::fmadd(av[v], bj, acc[v][j]);
      }
      a += lda;
      b += ldb;
    }
    const auto col_mask = Ops::lanes(kCols);
#pragma GCC unroll 4
    for (int v = 0; v < kVecs; ++v) {
      V r[kLanes];
#pragma GCC unroll 16
      for (int j = 0; j < kLanes; ++j) r[j] = j < kCols ? acc[v][j] : Ops::zero();
      Ops::transpose(r);
      const std::int64_t live = std::min<std::int64_t>(kLanes, rows - kLanes * v);
      for (std::int64_t i = 0; i < live; ++i) {
        float* ci = c + (kLanes * v + i) * ldc;
        if (add) r[i] = Ops::add(r[i], Ops::load_masked(col_mask, ci));
        Ops::store_masked(ci, col_mask, r[i]);
      }
    }
  }

  // C (= or +=) A^T·op(B) for kCols ≤ kNarrowColumns columns, A stored k × m, op(B)
  // stored k × kCols (row stride ldb), in blocks of kLanes·kVecs rows.
  template <int kCols>
  static void narrow_product(std::int64_t m, std::int64_t k, const float* a, std::int64_t lda, const float* b,
                             std::int64_t ldb, float* c, std::int64_t ldc, bool accumulate) {
    constexpr int kVecs = narrow_vectors(kCols);
    constexpr std::int64_t kBlock = kLanes * kVecs;
    for (std::int64_t i0 = 0; i0 < m; i0 += kBlock) {
      narrow_tile<kCols, kVecs>(k, a + i0, lda, b, ldb, c + i0 * ldc, ldc, std::min(kBlock, m - i0), accumulate);
    }
  }

  // narrow_product for n = 1..kNarrowColumns. A transposed B (stored n × k) is first
  // copied to k × n: n·k floats against the product's m·n·k multiply-adds.
  template <int... kCols>
  static void narrow(bool tb, std::int64_t m, std::int64_t n, std::int64_t k, const float* a, std::int64_t lda,
                     const float* b, std::int64_t ldb, float* c, std::int64_t ldc, bool accumulate,
                     std::integer_sequence<int, kCols...>) {
    if (tb) {
      float* bt = packing_buffer(1, static_cast<std::size_t>(k * n));
      for (std::int64_t j = 0; j < n; ++j) {
        for (std::int64_t p = 0; p < k; ++p) bt[p * n + j] = b[j * ldb + p];
      }
      b = bt;
      ldb = n;
    }
    // narrow_product<n>: one instantiation per column count.
    (void)((n == kCols + 1 ? (narrow_product<kCols + 1>(m, k, a, lda, b, ldb, c, ldc, accumulate), true) : false) ||
           ...);
  }

  static void gemm(bool ta, bool tb, std::int64_t m, std::int64_t n, std::int64_t k, const float* a,
                   std::int64_t lda, const float* b, std::int64_t ldb, float* c, std::int64_t ldc, bool accumulate,
                   const Epilogue& epilogue) {
    if (m <= 0 || n <= 0) return;
    if (k <= 0) {
      if (!accumulate) {
        for (std::int64_t i = 0; i < m; ++i) std::fill_n(c + i * ldc, n, 0.f);
      }
      return apply_epilogue_rows(epilogue, c, ldc, m, n);
    }
    if (ta && n <= kNarrowColumns && k >= kNarrowDepth) {
      narrow(tb, m, n, k, a, lda, b, ldb, c, ldc, accumulate,
             std::make_integer_sequence<int, static_cast<int>(kNarrowColumns)>{});
      return apply_epilogue_rows(epilogue, c, ldc, m, n);
    }
    // Up to one register of columns (a 10-class layer with AVX-512) use a tile one
    // register wide: the two-register one would leave most of its lanes empty.
    if (n <= kLanes) return blocked_product<1>(ta, tb, m, n, k, a, lda, b, ldb, c, ldc, accumulate, epilogue);
    blocked_product<2>(ta, tb, m, n, k, a, lda, b, ldb, c, ldc, accumulate, epilogue);
  }

  static void gemm_prepacked(std::int64_t m, const float* a, std::int64_t lda, const PackedB& b, float* c,
                             std::int64_t ldc, bool accumulate, const Epilogue& epilogue, std::int64_t col_begin,
                             std::int64_t col_end) {
    const std::int64_t n = b.n(), k = b.k();
    if (m <= 0 || col_begin >= col_end) return;
    if (n <= kLanes) {
      return blocked_product<1>(false, false, m, n, k, a, lda, nullptr, 0, c, ldc, accumulate, epilogue, &b,
                                col_begin, col_end);
    }
    blocked_product<2>(false, false, m, n, k, a, lda, nullptr, 0, c, ldc, accumulate, epilogue, &b, col_begin,
                       col_end);
  }

  static const PackedGemmKernels& kernels() {
    static constexpr PackedGemmKernels table{
        .max_depth = max_depth,
        .blocking = blocking,
        .sliver_width = sliver_width,
        .pack_b = pack_b_any,
        .gemm = gemm,
        .gemm_prepacked = gemm_prepacked,
    };
    return table;
  }
};

}  // namespace strata::cpu
