// The CPU GEMM against a naive triple loop: every transpose combination, the matrix-
// vector paths (one row, one column), small single-block products and the threaded
// split over rows or columns.
#include <gtest/gtest.h>

#include <cmath>
#include <tuple>
#include <vector>

#include "core/cpu/gemm.h"
#include "core/rng.h"

using namespace strata;

namespace {

std::vector<float> random_values(std::int64_t n, std::uint64_t seed) {
  Philox rng(seed, 3);
  std::vector<float> v(static_cast<std::size_t>(n));
  for (std::int64_t i = 0; i < n; ++i) v[i] = rng.uniform(static_cast<std::uint64_t>(i)) - 0.5f;
  return v;
}

}  // namespace

TEST(Gemm, MatchesNaiveProductForEveryShapeAndTranspose) {
  const std::vector<std::tuple<int, int, int>> shapes = {{1, 7, 5},   {6, 1, 9},    {1, 1, 4},     {3, 4, 1},
                                                         {17, 13, 11}, {128, 96, 64}, {40, 300, 33}, {300, 24, 70}};
  for (const auto& [m, n, k] : shapes) {
    for (int t = 0; t < 4; ++t) {
      const bool ta = t & 1, tb = t & 2;
      SCOPED_TRACE(testing::Message() << m << "x" << n << "x" << k << " ta=" << ta << " tb=" << tb);
      auto a = random_values(m * k, 1 + t), b = random_values(k * n, 11 + t);
      const int lda = ta ? m : k, ldb = tb ? k : n;
      std::vector<float> c(static_cast<std::size_t>(m * n), 123.f);
      cpu::gemm(ta, tb, m, n, k, a.data(), lda, b.data(), ldb, c.data(), n);
      for (int i = 0; i < m; ++i) {
        for (int j = 0; j < n; ++j) {
          double expected = 0;
          for (int p = 0; p < k; ++p) {
            float av = ta ? a[p * lda + i] : a[i * lda + p];
            float bv = tb ? b[j * ldb + p] : b[p * ldb + j];
            expected += static_cast<double>(av) * bv;
          }
          ASSERT_NEAR(c[i * n + j], expected, 1e-4 * (1 + std::fabs(expected))) << "at " << i << "," << j;
        }
      }
    }
  }
}
