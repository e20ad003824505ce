// The CPU GEMM against a naive triple loop: every transpose combination, the matrix-
// vector paths (one row, one column), small single-block products and the threaded
// split over rows or columns. Each test runs once per path of the kernels that this CPU
// can run (cpu_isa.h: AVX-512, AVX2, and Eigen's portable kernels for cpu::gemm), each
// forced in turn; a path the CPU lacks is skipped, saying so.
#include <gtest/gtest.h>

#include <algorithm>
#include <limits>
#include <memory>
#include <cmath>
#include <tuple>
#include <utility>
#include <vector>

#include "core/cpu/cpu_isa.h"
#include "core/cpu/gemm.h"
#include "core/cpu/gemv.h"
#include "core/cpu/packed_gemm.h"
#include "core/rng.h"
#include "on_every_cpu_path.h"
#include "thread_count.h"

using namespace strata;
using strata::testing::cpu_path_name;
using strata::testing::OnEveryCpuPath;

namespace gemm_test {

namespace {

std::vector<float> random_values(std::int64_t n, std::uint64_t seed) {
  Philox rng(seed, 3);
  std::vector<float> v(static_cast<std::size_t>(n));
  for (std::int64_t i = 0; i < n; ++i) v[i] = rng.uniform(static_cast<std::uint64_t>(i)) - 0.5f;
  return v;
}

// Element (i, j) of op(A)·op(B), summed in double: the reference every kernel is held to.
double naive_element(bool ta, bool tb, int k, const std::vector<float>& a, int lda, const std::vector<float>& b,
                     int ldb, int i, int j) {
  double sum = 0;
  for (int p = 0; p < k; ++p) {
    const float av = ta ? a[p * lda + i] : a[i * lda + p];
    const float bv = tb ? b[j * ldb + p] : b[p * ldb + j];
    sum += static_cast<double>(av) * bv;
  }
  return sum;
}

// Whether `got` is the activation of `sum` (a product plus its bias and residual, in
// double): relu makes NaN 0, relu6 and silu keep it; otherwise within 1e-4 relative.
::testing::AssertionResult is_epilogue_of(float got, double sum, cpu::Activation activation) {
  if (std::isnan(sum)) {
    const bool kept = activation == cpu::Activation::kRelu ? got == 0.f : std::isnan(got);
    if (kept) return ::testing::AssertionSuccess();
    return ::testing::AssertionFailure() << "NaN before the activation gave " << got;
  }
  const double want = activation == cpu::Activation::kNone    ? sum
                      : activation == cpu::Activation::kRelu  ? std::max(sum, 0.0)
                      : activation == cpu::Activation::kRelu6 ? std::min(std::max(sum, 0.0), 6.0)
                                                              : sum / (1.0 + std::exp(-sum));
  if (std::fabs(got - want) <= 1e-4 * (1 + std::fabs(want))) return ::testing::AssertionSuccess();
  return ::testing::AssertionFailure() << got << " where " << want << " was wanted";
}

// cpu::gemm on every path; Strata's own kernels on the paths that have them.
class Gemm : public OnEveryCpuPath {};
class PackedGemm : public OnEveryCpuPath {};
class Gemv : public OnEveryCpuPath {};

}  // namespace

INSTANTIATE_TEST_SUITE_P(CpuPaths, Gemm, ::testing::Values(cpu::Isa::kPortable, cpu::Isa::kAvx2, cpu::Isa::kAvx512),
                         cpu_path_name);
INSTANTIATE_TEST_SUITE_P(CpuPaths, PackedGemm, ::testing::Values(cpu::Isa::kAvx2, cpu::Isa::kAvx512), cpu_path_name);
INSTANTIATE_TEST_SUITE_P(CpuPaths, Gemv, ::testing::Values(cpu::Isa::kAvx2, cpu::Isa::kAvx512), cpu_path_name);

TEST_P(Gemm, MatchesNaiveProductForEveryShapeAndTranspose) {
  const std::vector<std::tuple<int, int, int>> shapes = {{1, 7, 5},   {6, 1, 9},    {1, 1, 4},     {3, 4, 1},
                                                         {17, 13, 11}, {128, 96, 64}, {40, 300, 33}, {300, 24, 70}};
  for (const auto& [m, n, k] : shapes) {
    for (int t = 0; t < 4; ++t) {
      const bool ta = t & 1, tb = t & 2;
      SCOPED_TRACE(::testing::Message() << m << "x" << n << "x" << k << " ta=" << ta << " tb=" << tb);
      auto a = random_values(m * k, 1 + t), b = random_values(k * n, 11 + t);
      const int lda = ta ? m : k, ldb = tb ? k : n;
      std::vector<float> c(static_cast<std::size_t>(m * n), 123.f);
      cpu::gemm(ta, tb, m, n, k, a.data(), lda, b.data(), ldb, c.data(), n);
      for (int i = 0; i < m; ++i) {
        for (int j = 0; j < n; ++j) {
          const double expected = naive_element(ta, tb, k, a, lda, b, ldb, i, j);
          ASSERT_NEAR(c[i * n + j], expected, 1e-4 * (1 + std::fabs(expected))) << "at " << i << "," << j;
        }
      }
    }
  }
}

// One-row products large enough to be split over threads: up to 256 columns by runs of
// k (partial rows added up), wider ones by columns; every transpose of A, odd sizes.
TEST_P(Gemm, OneRowProductsSplitOverThreadsMatchNaiveProduct) {
  const std::vector<std::tuple<int, int>> shapes = {{256, 784}, {10, 4099}, {200, 301}, {17, 2500}, {600, 129}};
  for (const auto& [n, k] : shapes) {
    for (int t = 0; t < 4; ++t) {
      const bool ta = t & 1, tb = t & 2;
      SCOPED_TRACE(::testing::Message() << "1x" << n << "x" << k << " ta=" << ta << " tb=" << tb);
      const int lda = ta ? 3 : k;  // a transposed A: one column of a k×3 matrix
      auto a = random_values(ta ? k * 3 : k, 101 + t), b = random_values(k * n, 111 + t);
      const int ldb = tb ? k : n;
      std::vector<float> c(static_cast<std::size_t>(n), 123.f);
      cpu::gemm(ta, tb, 1, n, k, a.data(), lda, b.data(), ldb, c.data(), n);
      for (int j = 0; j < n; ++j) {
        const double expected = naive_element(ta, tb, k, a, lda, b, ldb, 0, j);
        ASSERT_NEAR(c[j], expected, 1e-4 * (1 + std::fabs(expected))) << "at " << j;
      }
    }
  }
}

// Few outputs over many steps of k (a small layer's kernel gradient over a large batch)
// are split over the threads by depth, the partial products added: every transpose, 2
// and 3 threads (a share of k that is not whole blocks), a C with a row stride wider
// than its rows (the padding untouched), and the epilogue applied once, after the sum.
TEST_P(Gemm, FewOutputsOverManyStepsSplitByDepthMatchNaiveProduct) {
  const std::vector<std::tuple<int, int, int>> shapes = {{64, 64, 2048}, {37, 10, 6001}, {128, 128, 1031}};
  for (const int threads : {2, 3}) {
    strata::testing::ThreadCount count(threads);
    for (const auto& [m, n, k] : shapes) {
      for (int t = 0; t < 4; ++t) {
        const bool ta = t & 1, tb = t & 2;
        SCOPED_TRACE(::testing::Message()
                     << m << "x" << n << "x" << k << " ta=" << ta << " tb=" << tb << " threads=" << threads);
        auto a = random_values(m * k, 21 + t), b = random_values(k * n, 31 + t), bias = random_values(n, 41 + t);
        const int lda = ta ? m : k, ldb = tb ? k : n, ldc = n + 5;
        std::vector<float> c(static_cast<std::size_t>(m * ldc), 123.f);
        cpu::gemm(ta, tb, m, n, k, a.data(), lda, b.data(), ldb, c.data(), ldc,
                  {.bias = bias.data(), .activation = cpu::Activation::kRelu});
        for (int i = 0; i < m; ++i) {
          for (int j = 0; j < n; ++j) {
            const double expected = std::max(0.0, naive_element(ta, tb, k, a, lda, b, ldb, i, j) + bias[j]);
            ASSERT_NEAR(c[i * ldc + j], expected, 1e-4 * (1 + std::fabs(expected))) << "at " << i << "," << j;
          }
          for (int j = n; j < ldc; ++j) ASSERT_EQ(c[i * ldc + j], 123.f) << "padding at " << i << "," << j;
        }
      }
    }
  }
}

// Strata's packed kernel on its own, on the paths cpu::gemm's shapes above do not all
// reach: several blocks of k (k > packed_gemm_max_depth()) and of columns (n > 512, the
// widest block on any machine), A packed (n > 256) and read in place, few columns (with A
// transposed, computed transposed), rows that do not fill the last tile (12 rows with
// AVX-512, 6 with AVX2), and accumulation into C.
TEST_P(PackedGemm, MatchesNaiveProductOnEveryPath) {
  // Past 256 columns A is packed, all its rows for a block of k at once: {26, 530, deep}
  // has three blocks of k and two of columns there, and a last sliver of 2 rows; {13, 70,
  // deep} reads A in place over three blocks of k.
  const int deep = static_cast<int>(2 * cpu::packed_gemm_max_depth() + 22);
  std::vector<std::tuple<int, int, int>> shapes = {{25, 10, 33}, {50, 300, 20}, {13, 70, deep}, {30, 530, 17},
                                                   {26, 530, deep}, {12, 32, 5},  {7, 3, 2}};
  // Every column count of the transposed path (1..12 with AVX-512, 1..8 with AVX2, at
  // least 16 steps of k), of the one-register tile and past it, with odd rows (full blocks
  // of rows, then a partial one) and odd depths.
  for (int n = 1; n <= 17; ++n) shapes.push_back({29 + 10 * n, n, 17 + 2 * n});
  for (const auto& [m, n, k] : shapes) {
    for (int t = 0; t < 8; ++t) {
      const bool ta = t & 1, tb = t & 2, accumulate = t & 4;
      SCOPED_TRACE(::testing::Message() << m << "x" << n << "x" << k << " ta=" << ta << " tb=" << tb
                                      << " accumulate=" << accumulate);
      auto a = random_values(m * k, 21 + t), b = random_values(k * n, 31 + t);
      const int lda = ta ? m : k, ldb = tb ? k : n, ldc = n + 3;  // C wider than the product
      std::vector<float> c(static_cast<std::size_t>(m * ldc), 0.5f);
      cpu::packed_gemm(ta, tb, m, n, k, a.data(), lda, b.data(), ldb, c.data(), ldc, accumulate);
      for (int i = 0; i < m; ++i) {
        for (int j = 0; j < ldc; ++j) {
          if (j >= n) {
            ASSERT_EQ(c[i * ldc + j], 0.5f) << "wrote past the product at " << i << "," << j;
            continue;
          }
          const double expected = (accumulate ? 0.5 : 0.0) + naive_element(ta, tb, k, a, lda, b, ldb, i, j);
          ASSERT_NEAR(c[i * ldc + j], expected, 1e-4 * (1 + std::fabs(expected))) << "at " << i << "," << j;
        }
      }
    }
  }
}

// B packed once (a layer's weights, cpu::PackedB) gives exactly the product of packing it
// on every call: the same blocks in the same order, so the same sums. Over several blocks
// of k and of columns, the one-register tile, a B stored transposed, accumulation, and more rows
// than one block of A (240); then split over the threads against the naive product.
TEST_P(PackedGemm, APrepackedBGivesTheProductOfPackingItOnEveryCall) {
  const int deep = static_cast<int>(cpu::packed_gemm_max_depth() + 22);
  for (const auto& [m, n, k] : std::vector<std::tuple<int, int, int>>{
           {25, 10, 33}, {50, 300, 20}, {13, 70, deep}, {30, 530, 17}, {26, 530, deep}, {300, 40, 27}, {7, 3, 2}}) {
    for (int t = 0; t < 4; ++t) {
      const bool tb = t & 1, accumulate = t & 2;
      SCOPED_TRACE(::testing::Message() << m << "x" << n << "x" << k << " tb=" << tb << " accumulate=" << accumulate);
      auto a = random_values(m * k, 41 + t), b = random_values(k * n, 51 + t);
      const int ldb = tb ? k : n, ldc = n + 3;
      std::vector<float> want(static_cast<std::size_t>(m * ldc), 0.5f), got = want;
      cpu::packed_gemm(false, tb, m, n, k, a.data(), k, b.data(), ldb, want.data(), ldc, accumulate);
      cpu::PackedB packed;
      packed.pack(tb, k, n, b.data(), ldb);
      cpu::packed_gemm_prepacked(m, a.data(), k, packed, got.data(), ldc, accumulate);
      ASSERT_EQ(got, want);
    }
  }
  const int m = 200, n = 530, k = deep;
  auto a = random_values(m * k, 61), b = random_values(k * n, 71);
  cpu::PackedB packed;
  packed.pack(false, k, n, b.data(), n);
  std::vector<float> c(static_cast<std::size_t>(m * n));
  cpu::gemm_prepacked(m, a.data(), k, packed, c.data(), n);
  for (int i = 0; i < m; ++i) {
    for (int j = 0; j < n; ++j) {
      const double expected = naive_element(false, false, k, a, k, b, n, i, j);
      ASSERT_NEAR(c[i * n + j], expected, 1e-4 * (1 + std::fabs(expected))) << "at " << i << "," << j;
    }
  }
}

// A row of C sums the same products in the same order whatever tile computes it: the last
// rows of a product go in a tile of their own height, or, when they would fill less than
// half a tile, share the last two tiles evenly (16 rows as 8 + 8 with AVX-512). Every row
// count up to three tiles, with A packed (300 columns) and read in place (70), and the
// prepacked path, gives the bits of the same rows in a product of 40.
TEST_P(PackedGemm, ARowOfCIsTheSameWhicheverTileComputesIt) {
  const int k = 45, all_rows = 40;
  for (const int n : {70, 300}) {
    auto a = random_values(all_rows * k, 101), b = random_values(k * n, 103);
    std::vector<float> all(static_cast<std::size_t>(all_rows * n));
    cpu::packed_gemm(false, false, all_rows, n, k, a.data(), k, b.data(), n, all.data(), n, false);
    cpu::PackedB packed;
    packed.pack(false, k, n, b.data(), n);
    for (int m = 1; m <= 37; ++m) {
      SCOPED_TRACE(::testing::Message() << m << " rows of " << n << " columns");
      std::vector<float> c(static_cast<std::size_t>(m * n)), prepacked(c.size());
      cpu::packed_gemm(false, false, m, n, k, a.data(), k, b.data(), n, c.data(), n, false);
      cpu::packed_gemm_prepacked(m, a.data(), k, packed, prepacked.data(), n, false);
      ASSERT_TRUE(std::equal(c.begin(), c.end(), all.begin()));
      ASSERT_EQ(prepacked, c);
    }
  }
}

// A share of a prepacked product's columns (a thread's, when a product with few rows and
// large weights is split by columns) gives exactly those columns of the whole product,
// epilogue included, and writes no other: shares starting inside a packed block of
// columns and crossing into the next, over two blocks of k. Then cpu::gemm_prepacked on
// two threads splits such a product by columns, against the naive product.
TEST_P(PackedGemm, APrepackedProductsColumnsComeOutAsInTheWholeProduct) {
  const int m = 13, n = 1100, k = std::max(500, static_cast<int>(cpu::packed_gemm_max_depth() + 30));
  auto a = random_values(m * k, 111), b = random_values(k * n, 113), bias = random_values(n, 115);
  auto residual = random_values(m * n, 117);
  cpu::PackedB packed;
  packed.pack(false, k, n, b.data(), n);
  const std::int64_t w = packed.sliver_width();
  const cpu::Epilogue epilogue{.bias = bias.data(), .activation = cpu::Activation::kRelu,
                               .residual = residual.data(), .residual_ld = n};
  std::vector<float> whole(static_cast<std::size_t>(m * n));
  cpu::packed_gemm_prepacked(m, a.data(), k, packed, whole.data(), n, false, epilogue);
  const std::int64_t cuts[] = {0, 3 * w, 17 * w, n};
  for (int share = 0; share < 3; ++share) {
    const std::int64_t begin = cuts[share], end = cuts[share + 1];
    SCOPED_TRACE(::testing::Message() << "columns " << begin << ".." << end);
    std::vector<float> c(whole.size(), -7.f);
    cpu::packed_gemm_prepacked_columns(m, a.data(), k, packed, begin, end, c.data(), n, false, epilogue);
    for (int i = 0; i < m; ++i) {
      for (int j = 0; j < n; ++j) {
        const float want = j >= begin && j < end ? whole[i * n + j] : -7.f;
        ASSERT_EQ(c[i * n + j], want) << "at " << i << "," << j;
      }
    }
  }
  // 13 rows, 1100 columns, at least 500 deep: weights over 2 MB, split by columns.
  strata::testing::ThreadCount two(2);
  std::vector<float> c(whole.size());
  cpu::gemm_prepacked(m, a.data(), k, packed, c.data(), n);
  for (int i = 0; i < m; ++i) {
    for (int j = 0; j < n; ++j) {
      const double want = naive_element(false, false, k, a, k, b, n, i, j);
      ASSERT_NEAR(c[i * n + j], want, 1e-4 * (1 + std::fabs(want))) << "at " << i << "," << j;
    }
  }
}

// B stored k × n whose rows are a page (1024 floats) or more apart is packed row by row
// rather than sliver by sliver: with a B as wide as that (1030 columns, two blocks of
// columns, a partial last sliver) and with narrow products read out of a wide B (ldb
// 1100: 10 columns, 530 columns), over two blocks of k.
TEST_P(PackedGemm, PacksBWhoseRowsAreAPageApartRowByRow) {
  for (const auto& [m, n, ldb] : std::vector<std::tuple<int, int, int>>{{30, 1030, 1030}, {29, 10, 1100}, {26, 530, 1100}}) {
    const int k = static_cast<int>(cpu::packed_gemm_max_depth() + 16);
    SCOPED_TRACE(::testing::Message() << m << "x" << n << "x" << k << " ldb=" << ldb);
    auto a = random_values(m * k, 81), b = random_values(k * ldb, 91);
    std::vector<float> c(static_cast<std::size_t>(m * n), 0.5f);
    cpu::packed_gemm(false, false, m, n, k, a.data(), k, b.data(), ldb, c.data(), n, /*accumulate=*/false);
    for (int i = 0; i < m; ++i) {
      for (int j = 0; j < n; ++j) {
        const double expected = naive_element(false, false, k, a, k, b, ldb, i, j);
        ASSERT_NEAR(c[i * n + j], expected, 1e-4 * (1 + std::fabs(expected))) << "at " << i << "," << j;
      }
    }
  }
}

// A product whose packed rows of A would take more than 16 MB for a block of k packs them
// a block of rows at a time instead (blocks of 240 rows, per block of columns). Its C is
// checked on every 37th row and on the last ones (the full check costs a billion
// multiply-adds per case).
TEST_P(PackedGemm, PacksABlockOfRowsAtATimeWhenARowsBlockOfKIsLarge) {
  // One whole block of k, with more padded rows than 2^22 floats hold at that depth and a
  // last sliver of 2, 9 or 3 rows (768, 512 or 384 steps).
  const int k = static_cast<int>(cpu::packed_gemm_max_depth());
  const int m = (1 << 22) / k + 13, n = 260;
  for (const bool ta : {false, true}) {
    SCOPED_TRACE(::testing::Message() << "ta=" << ta);
    auto a = random_values(static_cast<std::int64_t>(m) * k, 61 + ta), b = random_values(k * n, 71);
    const int lda = ta ? m : k;
    std::vector<float> c(static_cast<std::size_t>(m) * n, 0.5f);
    cpu::packed_gemm(ta, false, m, n, k, a.data(), lda, b.data(), n, c.data(), n, /*accumulate=*/false);
    std::vector<int> rows;
    for (int i = 0; i < m - 14; i += 37) rows.push_back(i);
    for (int i = m - 14; i < m; ++i) rows.push_back(i);  // the last slivers, the partial one too
    for (const int i : rows) {
      for (int j = 0; j < n; ++j) {
        const double expected = naive_element(ta, false, k, a, lda, b, n, i, j);
        ASSERT_NEAR(c[static_cast<std::size_t>(i) * n + j], expected, 1e-4 * (1 + std::fabs(expected)))
            << "at " << i << "," << j;
      }
    }
  }
}

// Strata's matrix-vector kernel on its own: every width of the last, masked vector
// (n = 1..17), whole chunks (256 columns with AVX-512, 96 with AVX2) and a chunk after
// them, odd and even k (its two accumulator sets) and an empty sum, a strided vector (a
// transposed A's row) and a matrix wider than the product. Nothing past the n columns may be written.
TEST_P(Gemv, MatchesNaiveProductForEveryWidthAndStride) {
  std::vector<int> widths;
  for (int n = 1; n <= 17; ++n) widths.push_back(n);
  for (int n : {31, 95, 96, 97, 128, 129, 192, 193, 255, 256, 257, 300, 512, 530}) widths.push_back(n);
  for (int n : widths) {
    for (int k : {0, 1, 2, 7, 64, 131}) {
      for (int inc : {1, 3}) {
        SCOPED_TRACE(::testing::Message() << "n=" << n << " k=" << k << " inc=" << inc);
        const int ldb = n + 5;
        auto a = random_values(k * inc, 41 + n), b = random_values(k * ldb, 51 + k);
        std::vector<float> c(static_cast<std::size_t>(n + 16), 0.5f);
        cpu::gemv_row(n, k, a.data(), inc, b.data(), ldb, c.data());
        for (int j = 0; j < n + 16; ++j) {
          if (j >= n) {
            ASSERT_EQ(c[j], 0.5f) << "wrote past the product at " << j;
            continue;
          }
          // The strided vector is row 0 of a transposed A with row stride inc.
          const double expected = naive_element(true, false, k, a, inc, b, ldb, 0, j);
          ASSERT_NEAR(c[j], expected, 1e-4 * (1 + std::fabs(expected))) << "at " << j;
        }
      }
    }
  }
}

// A matrix of 8 MB or more (a batch-1 Dense layer whose weights come from memory) is read
// a few rows at a time, each chunk's sums carried in c from one block of rows to the next:
// a depth that is no multiple of the block, three kinds of last chunk, a strided vector,
// and the bias and relu applied once, after the last block.
TEST_P(Gemv, ReadsALargeMatrixInBlocksOfRowsWithTheSameProduct) {
  // Widths: a 17-column last chunk (two accumulator sets), a 200-column one (one set),
  // whole chunks only. Each matrix is 9 MB or more (the rule's threshold is 8 MB).
  for (const int n : {2048 + 17, 2048 + 200, 2304}) {
    const int k = (9 << 20) / (4 * n) / 8 * 8 + 5;  // no multiple of the block of 8 rows
    const int ldb = n + 5;
    auto b = random_values(static_cast<std::int64_t>(k) * ldb, 91 + n), bias = random_values(n, 93 + n);
    for (int inc : {1, 3}) {
      for (bool relu : {false, true}) {
        SCOPED_TRACE(::testing::Message() << "n=" << n << " k=" << k << " inc=" << inc << " relu=" << relu);
        auto a = random_values(k * inc, 95 + inc);
        // Exactly n floats, so that an unmasked read past the product fails under ASan.
        std::vector<float> c(static_cast<std::size_t>(n), 0.5f);
        cpu::gemv_row(n, k, a.data(), inc, b.data(), ldb, c.data(), {.bias = bias.data(), .relu = relu});
        for (int j = 0; j < n; ++j) {
          const double sum = naive_element(true, false, k, a, inc, b, ldb, 0, j) + bias[j];
          const double expected = relu ? std::max(sum, 0.0) : sum;
          ASSERT_NEAR(c[j], expected, 1e-4 * (1 + std::fabs(expected))) << "at " << j;
        }
      }
    }
  }
}

// The epilogue of a batch-1 Dense layer on the kernel's registers: the bias added, then
// relu, for every width and for an empty sum (a layer with no inputs), and nothing stored
// past the product.
TEST_P(Gemv, AddsTheBiasAndAppliesReluBeforeStoring) {
  for (int n : {1, 5, 16, 17, 100, 256, 257, 300}) {
    for (auto [relu, k] : {std::pair{false, 37}, std::pair{true, 37}, std::pair{true, 0}}) {
      SCOPED_TRACE(::testing::Message() << "n=" << n << " relu=" << relu << " k=" << k);
      auto a = random_values(k, 61 + n), b = random_values(k * n, 71 + n), bias = random_values(n, 81 + n);
      std::vector<float> plain(static_cast<std::size_t>(n)), fused(static_cast<std::size_t>(n + 16), 0.5f);
      cpu::gemv_row(n, k, a.data(), 1, b.data(), n, plain.data());
      cpu::gemv_row(n, k, a.data(), 1, b.data(), n, fused.data(), {.bias = bias.data(), .relu = relu});
      for (int j = 0; j < n; ++j) {
        const float expected = relu ? std::max(plain[j] + bias[j], 0.f) : plain[j] + bias[j];
        ASSERT_EQ(fused[j], expected) << "at " << j;
      }
      for (int j = n; j < n + 16; ++j) ASSERT_EQ(fused[j], 0.5f) << "wrote past the product at " << j;
    }
  }
}

// The epilogue (a bias per column, then relu, relu6 or silu) applied as C is written, on
// every path: against the naive product with the bias added and the activation applied,
// for products of one and several blocks of k, the threaded split by rows and by
// columns, the transposed path for few columns, one-row products and an empty sum. relu
// makes NaN 0, relu6 and silu keep it (as their ops do): a NaN in A reaches its row of C.
TEST_P(Gemm, AppliesTheEpilogueAsItWritesC) {
  const int deep = static_cast<int>(std::max<std::int64_t>(cpu::packed_gemm_max_depth(), 64) + 21);
  const std::vector<std::tuple<int, int, int>> shapes = {{37, 70, 19}, {300, 530, 33}, {40, 600, 20},
                                                          {29, 5, 40}, {1, 300, 77},   {13, 70, deep}, {9, 11, 0}};
  for (const auto& [m, n, k] : shapes) {
    for (const cpu::Activation activation :
         {cpu::Activation::kNone, cpu::Activation::kRelu, cpu::Activation::kRelu6, cpu::Activation::kSilu}) {
      for (const bool ta : {false, true}) {
        // Every other case adds a residual too (for each activation, with A transposed or
        // not), its rows wider than C's (a ResNet block's sum).
        const bool with_residual = (static_cast<int>(activation) + ta) % 2 == 1;
        SCOPED_TRACE(::testing::Message() << m << "x" << n << "x" << k << " ta=" << ta
                                          << " activation=" << int(activation) << " residual=" << with_residual);
        auto a = random_values(m * k, 5 + m), b = random_values(k * n, 7 + n), bias = random_values(n, 9 + k);
        const int residual_ld = n + 3;
        const auto residual = random_values(m * residual_ld, 13 + m);
        for (float& v : a) v *= 8.f;  // sums past 6 and below 0
        if (k > 0) a[0] = std::numeric_limits<float>::quiet_NaN();  // row 0 of C is NaN before the activation
        const int lda = ta ? m : k;
        std::vector<float> c(static_cast<std::size_t>(m * n), 123.f);
        cpu::gemm(ta, false, m, n, k, a.data(), lda, b.data(), n, c.data(), n,
                  {.bias = bias.data(),
                   .activation = activation,
                   .residual = with_residual ? residual.data() : nullptr,
                   .residual_ld = residual_ld});
        for (int i = 0; i < m; ++i) {
          for (int j = 0; j < n; ++j) {
            const double sum = naive_element(ta, false, k, a, lda, b, n, i, j) + bias[j] +
                               (with_residual ? residual[i * residual_ld + j] : 0.f);
            ASSERT_TRUE(is_epilogue_of(c[i * n + j], sum, activation)) << "at " << i << "," << j;
          }
        }
      }
    }
  }
}

// The same on a B packed once (a layer's weights at inference), split over the threads.
TEST_P(PackedGemm, APrepackedProductAppliesTheEpilogue) {
  const int m = 150, n = 70, k = 45;
  auto a = random_values(m * k, 15), b = random_values(k * n, 17), bias = random_values(n, 19);
  auto residual = random_values(m * n, 21);
  for (float& v : a) v *= 8.f;
  a[0] = std::numeric_limits<float>::quiet_NaN();  // row 0 of C is NaN before the activation
  cpu::PackedB packed;
  packed.pack(false, k, n, b.data(), n);
  for (const cpu::Activation activation :
       {cpu::Activation::kNone, cpu::Activation::kRelu, cpu::Activation::kRelu6, cpu::Activation::kSilu}) {
    SCOPED_TRACE(::testing::Message() << "activation=" << int(activation));
    std::vector<float> c(static_cast<std::size_t>(m * n));
    cpu::gemm_prepacked(m, a.data(), k, packed, c.data(), n,
                        {.bias = bias.data(), .activation = activation, .residual = residual.data(), .residual_ld = n});
    for (int i = 0; i < m; ++i) {
      for (int j = 0; j < n; ++j) {
        const double sum = naive_element(false, false, k, a, k, b, n, i, j) + bias[j] + residual[i * n + j];
        ASSERT_TRUE(is_epilogue_of(c[i * n + j], sum, activation)) << "at " << i << "," << j;
      }
    }
  }
}

}  // namespace gemm_test
