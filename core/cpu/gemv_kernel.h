// The matrix-vector kernel (gemv.h says what it computes), written once for any
// instruction set's registers (`Ops`: core/cpu/avx512/ops.h, core/cpu/avx2/ops.h) and
// compiled once per instruction set (core/cpu/avx512/gemv.cc, core/cpu/avx2/gemv.cc).
//
// The product reads every weight once and does one multiply-add with it, so its speed is
// the speed at which a core streams B from its cache. Eigen's matrix-vector kernel
// streamed the MLP's weights at about 100 GB/s a core where plain loads reach 173
// (docs/performance.md, "What bounds the MLP's batch-1 latency"); this one keeps one
// accumulator in a register per register of columns, as many as the registers allow
// (16 of AVX-512's 32: a whole 1 KB row of 256 columns per step of k; 12 of AVX2's 16),
// so the loads never wait.
//
// Only the files of core/cpu/avx2/ and core/cpu/avx512/ include it.
#pragma once

#include <algorithm>
#include <cstdint>
#include <utility>

#include "core/cpu/gemv.h"

namespace strata::cpu {

template <class Ops>
struct Gemv {
  using V = typename Ops::V;
  using Mask = typename Ops::Mask;
  static constexpr int kLanes = Ops::kLanes;
  // Registers of columns per chunk. 256 columns with AVX-512: a batch-1 Dense layer's
  // whole row of 1 KB is one contiguous read per step of k. Over half rows (128 columns
  // of a 256-wide matrix) the same kernel streamed its cache at 144-158 GB/s, over whole
  // rows at 156-175 in the same runs (docs/performance.md). With 16 registers, 12
  // accumulators leave the broadcast and a load their own.
  static constexpr int kChunkVectors = Ops::kRegisters >= 32 ? kGemvWholeRowColumns / kLanes : 12;
  // With this many vectors or more, one accumulator per vector already keeps both FMA
  // units busy (8 independent chains cover the 4-cycle latency); fewer get two sets.
  static constexpr int kOneSetVectors = 8;
  // A matrix of at least this many bytes is read kStreamedDepth rows at a time, each
  // chunk's accumulators carried in c from one block of rows to the next. Batch-1
  // products on two threads on an AMD EPYC (Zen 5, 32 MB L3), each thread's part of B in
  // one call (docs/performance.md): 1x4096x4096 (32 MB a thread, from memory) took 0.71
  // of the time in blocks of 8 rows (4: 0.80, 12: 0.75, 16: 0.83, 32: 0.96); 8 MB a
  // thread 0.88-1.01; 2 MB and less, which stays in the caches from call to call,
  // 1.02-1.22, so it is not blocked.
  static constexpr std::int64_t kStreamedBytes = std::int64_t{8} << 20;
  static constexpr std::int64_t kStreamedDepth = 8;

  // Columns [0, kLanes·V) of the product, the last vector masked by `last` unless
  // `Whole` (then every lane is in the product), added to the values c holds when
  // `accumulate` (a later block of rows of a streamed matrix). Narrow chunks accumulate
  // even and odd steps of k apart, so each accumulator's next multiply-add never waits
  // for its previous one.
  template <int Vs, bool Whole>
  static void chunk(std::int64_t k, const float* a, std::int64_t inc_a, const float* b, std::int64_t ldb, float* c,
                    Mask last, GemvEpilogue epilogue, bool accumulate) {
    constexpr bool two_sets = Vs < kOneSetVectors;
    V even[Vs], odd[Vs];
    // The loops over v are unrolled so the accumulators stay in registers (-O2 keeps
    // loops rolled, and an array indexed in a loop lives in memory).
#pragma GCC unroll 16
    for (int v = 0; v < Vs; ++v) even[v] = odd[v] = Ops::zero();
    auto load_last = [&](const float* p) { return Whole ? Ops::loadu(p) : Ops::load_masked(last, p); };
    if (accumulate) {
#pragma GCC unroll 16
      for (int v = 0; v + 1 < Vs; ++v) even[v] = Ops::loadu(c + kLanes * v);
      even[Vs - 1] = load_last(c + kLanes * (Vs - 1));
    }
    auto row = [&](V* acc, float x, const float* r) {
      const V xv = Ops::set1(x);
#pragma GCC unroll 16
      for (int v = 0; v + 1 < Vs; ++v) acc[v] = Ops::fmadd(xv, Ops::loadu(r + kLanes * v), acc[v]);
      acc[Vs - 1] = Ops::fmadd(xv, load_last(r + kLanes * (Vs - 1)), acc[Vs - 1]);
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
      for (int v = 0; v < Vs; ++v) even[v] = Ops::add(even[v], odd[v]);
    }
    // The epilogue on the registers: added to the stored row afterwards, the bias made
    // each element's load wait on the masked store before it (no store forwarding).
    if (epilogue.bias) {
#pragma GCC unroll 16
      for (int v = 0; v + 1 < Vs; ++v) even[v] = Ops::add(even[v], Ops::loadu(epilogue.bias + kLanes * v));
      even[Vs - 1] = Ops::add(even[Vs - 1], load_last(epilogue.bias + kLanes * (Vs - 1)));
    }
    if (epilogue.relu) {
#pragma GCC unroll 16
      for (int v = 0; v < Vs; ++v) even[v] = Ops::max(even[v], Ops::zero());
    }
#pragma GCC unroll 16
    for (int v = 0; v + 1 < Vs; ++v) Ops::storeu(c + kLanes * v, even[v]);
    if constexpr (Whole) {
      Ops::storeu(c + kLanes * (Vs - 1), even[Vs - 1]);
    } else {
      Ops::store_masked(c + kLanes * (Vs - 1), last, even[Vs - 1]);
    }
  }

  template <int... Vs>
  static void tail_chunk(int vectors, std::int64_t k, const float* a, std::int64_t inc_a, const float* b,
                         std::int64_t ldb, float* c, Mask last, GemvEpilogue epilogue, bool accumulate,
                         std::integer_sequence<int, Vs...>) {
    // chunk<vectors>: one instantiation per vector count 1..kChunkVectors.
    (void)((vectors == Vs + 1 ? (chunk<Vs + 1, false>(k, a, inc_a, b, ldb, c, last, epilogue, accumulate), true)
                              : false) ||
           ...);
  }

  static void row(std::int64_t n, std::int64_t k, const float* a, std::int64_t inc_a, const float* b,
                  std::int64_t ldb, float* c, GemvEpilogue epilogue) {
    constexpr std::int64_t kChunk = kLanes * kChunkVectors;
    if (k == 0) {  // an empty sum, whose a and b may be null: the epilogue of zeros
      for (std::int64_t j = 0; j < n; ++j) {
        const float sum = epilogue.bias ? epilogue.bias[j] : 0.f;
        c[j] = epilogue.relu ? std::max(sum, 0.f) : sum;
      }
      return;
    }
    // A matrix that comes from memory, several chunks wide, is read a few rows at a time
    // across the whole width: a chunk's walk down all k rows reads 1 KB of each (a page
    // apart on a 4096-wide matrix), measured slower than a few long runs.
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
      for (; j + kChunk <= n; j += kChunk) {
        chunk<kChunkVectors, true>(depth, ap, inc_a, bp + j, ldb, c + j, Ops::lanes(kLanes), from(j), accumulate);
      }
      const std::int64_t rest = n - j;
      if (rest == 0) continue;
      const int vectors = static_cast<int>((rest + kLanes - 1) / kLanes);
      const Mask last = Ops::lanes(rest - (vectors - 1) * kLanes);
      tail_chunk(vectors, depth, ap, inc_a, bp + j, ldb, c + j, last, from(j), accumulate,
                 std::make_integer_sequence<int, kChunkVectors>{});
    }
  }
};

}  // namespace strata::cpu
