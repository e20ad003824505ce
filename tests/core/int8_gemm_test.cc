// The int8 product (core/cpu/int8_gemm.h) against int64 sums, exactly, on each of its
// paths this CPU runs (AVX-512 VNNI, AVX2, portable; a path the CPU lacks is skipped,
// saying so): shapes that end inside a register tile and a panel, every int8 value
// (-128 included, which VNNI's offset of A to unsigned must carry), the deepest product
// int32 holds, B packed once for several products, and the columns split over threads.
#include <gtest/gtest.h>

#include <algorithm>
#include <cstdint>
#include <string>
#include <tuple>
#include <vector>

#include "core/cpu/cpu_isa.h"
#include "core/cpu/int8_gemm.h"
#include "core/error.h"
#include "core/rng.h"
#include "thread_count.h"

using namespace strata;

namespace int8_gemm_test {

namespace {

std::vector<std::int8_t> random_int8(std::int64_t count, std::uint64_t seed) {
  Philox rng(seed, 5);
  std::vector<std::int8_t> v(static_cast<std::size_t>(count));
  for (std::int64_t i = 0; i < count; ++i) {
    v[static_cast<std::size_t>(i)] = static_cast<std::int8_t>(static_cast<int>(rng.uniform(static_cast<std::uint64_t>(i)) * 256.0f) - 128);
  }
  return v;
}

// C = A·B (row-major, strides lda, ldb, ldc) in int64.
std::vector<std::int64_t> reference(std::int64_t m, std::int64_t n, std::int64_t k, const std::vector<std::int8_t>& a,
                                    std::int64_t lda, const std::vector<std::int8_t>& b, std::int64_t ldb) {
  std::vector<std::int64_t> c(static_cast<std::size_t>(m * n), 0);
  for (std::int64_t i = 0; i < m; ++i)
    for (std::int64_t s = 0; s < k; ++s)
      for (std::int64_t j = 0; j < n; ++j) c[i * n + j] += std::int64_t{a[i * lda + s]} * b[s * ldb + j];
  return c;
}

class Int8Gemm : public ::testing::TestWithParam<cpu::Int8Path> {
 protected:
  void SetUp() override {
    const auto paths = cpu::supported_int8_paths();
    if (std::find(paths.begin(), paths.end(), GetParam()) == paths.end()) {
      GTEST_SKIP() << "this CPU cannot run the " << cpu::int8_path_name(GetParam()) << " path";
    }
  }

  // Checks m × n × k with strides wider than the rows by `pad`, and that C's padding is
  // left as it was.
  void expect_exact(std::int64_t m, std::int64_t n, std::int64_t k, std::int64_t pad = 0, std::uint64_t seed = 1) {
    const std::int64_t lda = k + pad, ldb = n + pad, ldc = n + pad;
    const auto a = random_int8(m * lda, seed), b = random_int8(k * ldb, seed + 1);
    const auto want = reference(m, n, k, a, lda, b, ldb);
    std::vector<std::int32_t> c(static_cast<std::size_t>(m * ldc), -7);
    cpu::gemm_s8(m, a.data(), lda, cpu::Int8PackedB(k, n, b.data(), ldb, GetParam()), c.data(), ldc);
    std::int64_t wrong = 0;
    for (std::int64_t i = 0; i < m; ++i) {
      for (std::int64_t j = 0; j < ldc; ++j) {
        const std::int64_t got = c[i * ldc + j], expected = j < n ? want[i * n + j] : -7;
        if (got != expected && ++wrong <= 5) {
          ADD_FAILURE() << m << "x" << n << "x" << k << " (pad " << pad << "): C(" << i << ", " << j << ") = " << got
                        << ", expected " << expected;
        }
      }
    }
    EXPECT_EQ(wrong, 0) << m << "x" << n << "x" << k;
  }
};

TEST_P(Int8Gemm, MatchesTheInt64SumsOnEveryShape) {
  for (const auto& [m, n, k] : std::vector<std::tuple<int, int, int>>{
           {1, 1, 1}, {1, 10, 784}, {3, 17, 5}, {12, 32, 4}, {13, 33, 7}, {6, 16, 2}, {7, 15, 3}, {25, 65, 130},
           {64, 256, 1024}, {2, 100, 1}, {37, 31, 255}}) {
    expect_exact(m, n, k);
    expect_exact(m, n, k, /*pad=*/3, /*seed=*/7);
  }
}

TEST_P(Int8Gemm, NoStepsOfKGivesZeros) {
  std::vector<std::int8_t> a(1), b(1);
  std::vector<std::int32_t> c(5 * 9, -7);
  cpu::gemm_s8(5, a.data(), 0, cpu::Int8PackedB(0, 9, b.data(), 9, GetParam()), c.data(), 9);
  for (std::int32_t v : c) EXPECT_EQ(v, 0);
}

TEST_P(Int8Gemm, TheExtremesOfInt8AtTheDeepestProductInt32Holds) {
  const std::int64_t k = cpu::kInt8GemmMaxDepth, m = 3, n = 19;
  // Row 0 all -128 (against B's -128: the largest sum, 131071 · 16384 = 2^31 - 2^14),
  // row 1 all 127, row 2 alternating -128 and 127.
  std::vector<std::int8_t> a(static_cast<std::size_t>(m * k)), b(static_cast<std::size_t>(k * n));
  for (std::int64_t s = 0; s < k; ++s) {
    a[s] = -128;
    a[k + s] = 127;
    a[2 * k + s] = s % 2 ? 127 : -128;
    for (std::int64_t j = 0; j < n; ++j) b[s * n + j] = j % 3 == 0 ? -128 : j % 3 == 1 ? 127 : static_cast<std::int8_t>(s % 7 - 3);
  }
  const auto want = reference(m, n, k, a, k, b, n);
  std::vector<std::int32_t> c(static_cast<std::size_t>(m * n));
  cpu::gemm_s8(m, a.data(), k, cpu::Int8PackedB(k, n, b.data(), n, GetParam()), c.data(), n);
  EXPECT_EQ(want[0], std::int64_t{131071} * 16384);
  for (std::int64_t i = 0; i < m * n; ++i) EXPECT_EQ(c[i], want[i]) << "C(" << i / n << ", " << i % n << ")";
}

TEST_P(Int8Gemm, APackedBServesProductsOfAnyRowCount) {
  const std::int64_t n = 70, k = 300;
  const auto b = random_int8(k * n, 3);
  const cpu::Int8PackedB packed(k, n, b.data(), n, GetParam());
  EXPECT_EQ(packed.path(), GetParam());
  for (std::int64_t m : {1, 5, 12, 40}) {
    const auto a = random_int8(m * k, 10 + m);
    const auto want = reference(m, n, k, a, k, b, n);
    std::vector<std::int32_t> c(static_cast<std::size_t>(m * n));
    cpu::gemm_s8(m, a.data(), k, packed, c.data(), n);
    for (std::int64_t i = 0; i < m * n; ++i) ASSERT_EQ(c[i], want[i]) << "m = " << m << ", C(" << i / n << ", " << i % n << ")";
  }
}

TEST_P(Int8Gemm, ColumnsSplitOverThreadsGiveTheSameAnswer) {
  for (int threads : {1, 2, 3}) {
    strata::testing::ThreadCount count(threads);
    expect_exact(48, 1000, 513, 0, 11);
  }
}

INSTANTIATE_TEST_SUITE_P(Paths, Int8Gemm,
                         ::testing::Values(cpu::Int8Path::kPortable, cpu::Int8Path::kAvx2, cpu::Int8Path::kAvx512Vnni),
                         [](const auto& info) { return std::string(cpu::int8_path_name(info.param)); });

TEST(Int8GemmPaths, AProductDeeperThanInt32HoldsIsRefused) {
  std::vector<std::int8_t> b(static_cast<std::size_t>(cpu::kInt8GemmMaxDepth + 1));
  EXPECT_THROW(cpu::Int8PackedB(cpu::kInt8GemmMaxDepth + 1, 1, b.data(), 1), ValueError);
}

// Each path packs B as its own kernel reads it (not another path's layout, which the
// products above would not tell apart).
TEST_P(Int8Gemm, PacksBInItsOwnKernelsLayout) {
  const std::vector<std::int8_t> b(7 * 40, 1);
  const cpu::Int8PackedB packed(7, 40, b.data(), 40, GetParam());
  const std::int64_t width = GetParam() == cpu::Int8Path::kAvx512Vnni ? 32 : GetParam() == cpu::Int8Path::kAvx2 ? 16 : 64;
  const std::int64_t group = GetParam() == cpu::Int8Path::kAvx512Vnni ? 4 : GetParam() == cpu::Int8Path::kAvx2 ? 2 : 1;
  EXPECT_EQ(packed.panel_width(), width);
  EXPECT_EQ(packed.padded_depth(), (7 + group - 1) / group * group);
  EXPECT_EQ(packed.panels(), (40 + width - 1) / width);
}

TEST(Int8GemmPaths, ThePathFollowsTheKernelsInstructionSet) {
  for (cpu::Isa isa : cpu::supported_isas()) {
    cpu::ScopedKernelIsa scoped(isa);
    const cpu::Int8Path path = cpu::int8_path();
    switch (isa) {
      case cpu::Isa::kPortable:
        EXPECT_EQ(path, cpu::Int8Path::kPortable);
        break;
      case cpu::Isa::kAvx2:
        EXPECT_EQ(path, cpu::Int8Path::kAvx2);
        break;
      case cpu::Isa::kAvx512:  // VNNI where the CPU has it
        EXPECT_TRUE(path == cpu::Int8Path::kAvx512Vnni || path == cpu::Int8Path::kAvx2) << cpu::int8_path_name(path);
        break;
    }
    // A product packed on the path of the moment runs it.
    const std::vector<std::int8_t> a{1, 2, 3}, b{4, 5, 6};
    std::int32_t c = 0;
    cpu::gemm_s8(1, 1, 3, a.data(), 3, b.data(), 1, &c, 1);
    EXPECT_EQ(c, 32) << cpu::isa_name(isa);
  }
}

TEST(Int8GemmPaths, APathTheCpuCannotRunIsRefused) {
  const auto paths = cpu::supported_int8_paths();
  const std::vector<std::int8_t> b(4, 1);
  for (cpu::Int8Path path : {cpu::Int8Path::kAvx2, cpu::Int8Path::kAvx512Vnni}) {
    if (std::find(paths.begin(), paths.end(), path) != paths.end()) continue;
    EXPECT_THROW(cpu::Int8PackedB(2, 2, b.data(), 2, path), ValueError) << cpu::int8_path_name(path);
  }
  if (paths.size() == 3) GTEST_SKIP() << "this CPU runs every int8 path: none to refuse";
}

}  // namespace

}  // namespace int8_gemm_test
