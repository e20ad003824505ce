// The bfloat16 product (core/cpu/bf16_gemm.h) on each of its paths this CPU runs (AVX-512
// BF16, float; a path the CPU lacks is skipped, saying so): A·B of the operands rounded to
// bfloat16, against sums in double of the same rounded operands, within float32's
// summation error, on shapes that end inside a register tile and a panel, odd depths, no
// depth; the rounding itself (ties to even) seen exactly; B packed once for several
// products; the paths agreeing with each other.
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <string>
#include <tuple>
#include <vector>

#include "core/cpu/bf16_gemm.h"
#include "core/error.h"
#include "core/precision_rounding.h"
#include "core/rng.h"

using namespace strata;

namespace bf16_gemm_test {

namespace {

std::vector<float> random_floats(std::int64_t count, std::uint64_t seed) {
  Philox rng(seed, 9);
  std::vector<float> v(static_cast<std::size_t>(count));
  for (std::int64_t i = 0; i < count; ++i) v[static_cast<std::size_t>(i)] = 4.f * rng.uniform(static_cast<std::uint64_t>(i)) - 2.f;
  return v;
}

// Checks C against sums in double of the rounded operands: each within 1e-6 of the sum of
// |products| (float32's error over k terms, k <= 1024 here).
void expect_product(std::int64_t m, std::int64_t n, std::int64_t k, const std::vector<float>& a,
                    const std::vector<float>& b, const std::vector<float>& c, const char* path) {
  for (std::int64_t i = 0; i < m; ++i) {
    for (std::int64_t j = 0; j < n; ++j) {
      double sum = 0, magnitude = 0;
      for (std::int64_t s = 0; s < k; ++s) {
        const double p = double(round_to_bfloat16(a[i * k + s])) * double(round_to_bfloat16(b[s * n + j]));
        sum += p;
        magnitude += std::fabs(p);
      }
      ASSERT_NEAR(c[i * n + j], sum, 1e-6 * magnitude + 1e-30)
          << path << ": C[" << i << "][" << j << "] of " << m << "x" << n << "x" << k;
    }
  }
}

class Bf16Gemm : public ::testing::TestWithParam<cpu::Bf16Path> {
 protected:
  void SetUp() override {
    const auto paths = cpu::supported_bf16_paths();
    if (std::find(paths.begin(), paths.end(), GetParam()) == paths.end()) {
      GTEST_SKIP() << "this CPU cannot run the " << cpu::bf16_path_name(GetParam()) << " path";
    }
  }
};

TEST_P(Bf16Gemm, IsTheProductOfTheRoundedOperandsOnEveryShape) {
  for (const auto [m, n, k] : std::vector<std::tuple<std::int64_t, std::int64_t, std::int64_t>>{
           {1, 1, 1}, {1, 10, 784}, {3, 17, 5}, {12, 32, 4}, {13, 33, 7}, {6, 16, 2}, {25, 65, 130}, {64, 256, 1024},
           {2, 100, 1}, {37, 31, 255}}) {
    const auto a = random_floats(m * k, 1 + m), b = random_floats(k * n, 2 + n);
    std::vector<float> c(static_cast<std::size_t>(m * n), -1.f);
    cpu::gemm_bf16(m, a.data(), k, cpu::Bf16PackedB(k, n, b.data(), n, GetParam()), c.data(), n);
    expect_product(m, n, k, a, b, c, cpu::bf16_path_name(GetParam()));
  }
}

TEST_P(Bf16Gemm, RoundsTheOperandsToTheNearestBfloat16TiesToEven) {
  // 1 + 2^-8 lies halfway between 1 and 1 + 2^-7: to 1. 1 + 3·2^-8: to 1 + 2^-6.
  const std::vector<float> a{1.f + 0x1p-8f, 1.f + 3 * 0x1p-8f}, b{1.f, 1.f};
  float c = 0;
  cpu::gemm_bf16(1, a.data(), 2, cpu::Bf16PackedB(2, 1, b.data(), 1, GetParam()), &c, 1);
  EXPECT_EQ(c, 2.f + 0x1p-6f);
}

TEST_P(Bf16Gemm, NoStepsOfKGivesZerosAndAPackedBServesManyProducts) {
  std::vector<float> c(12, -1.f);
  cpu::gemm_bf16(3, nullptr, 0, cpu::Bf16PackedB(0, 4, nullptr, 4, GetParam()), c.data(), 4);
  for (float v : c) EXPECT_EQ(v, 0.f);
  const std::int64_t n = 40, k = 33;
  const auto b = random_floats(k * n, 5);
  const cpu::Bf16PackedB packed(k, n, b.data(), n, GetParam());
  for (std::int64_t m : {1, 5, 12, 40}) {
    const auto a = random_floats(m * k, 6 + m);
    std::vector<float> out(static_cast<std::size_t>(m * n));
    cpu::gemm_bf16(m, a.data(), k, packed, out.data(), n);
    expect_product(m, n, k, a, b, out, cpu::bf16_path_name(GetParam()));
  }
}

TEST_P(Bf16Gemm, ReadsTransposedOperandsAndRepacksInPlace) {
  // A training step's products (ops::matmul's transpose_a / transpose_b): Aᵀ stored k × m,
  // Bᵀ stored n × k, one Bf16PackedB packed again for each shape (its storage reused).
  cpu::Bf16PackedB packed;
  for (const auto& [m, n, k] : std::vector<std::tuple<std::int64_t, std::int64_t, std::int64_t>>{
           {784, 256, 128}, {2, 10, 256}, {17, 33, 31}, {33, 65, 1}, {128, 256, 256}, {5, 31, 64}}) {
    const auto a = random_floats(m * k, 11 + m), b = random_floats(k * n, 12 + n);
    std::vector<float> at(a.size()), bt(b.size());
    for (std::int64_t i = 0; i < m; ++i)
      for (std::int64_t s = 0; s < k; ++s) at[static_cast<std::size_t>(s * m + i)] = a[static_cast<std::size_t>(i * k + s)];
    for (std::int64_t s = 0; s < k; ++s)
      for (std::int64_t j = 0; j < n; ++j) bt[static_cast<std::size_t>(j * k + s)] = b[static_cast<std::size_t>(s * n + j)];
    for (const bool ta : {false, true}) {
      for (const bool tb : {false, true}) {
        packed.pack(k, n, tb ? bt.data() : b.data(), tb ? k : n, tb, GetParam());
        std::vector<float> c(static_cast<std::size_t>(m * n), -1.f);
        cpu::gemm_bf16(m, ta ? at.data() : a.data(), ta ? m : k, packed, c.data(), n, ta);
        SCOPED_TRACE(std::string("transpose_a ") + (ta ? "true" : "false") + ", transpose_b " + (tb ? "true" : "false"));
        expect_product(m, n, k, a, b, c, cpu::bf16_path_name(GetParam()));
      }
    }
  }
}

INSTANTIATE_TEST_SUITE_P(Paths, Bf16Gemm, ::testing::Values(cpu::Bf16Path::kFloat, cpu::Bf16Path::kAvx512Bf16),
                         [](const auto& info) { return std::string(cpu::bf16_path_name(info.param)); });

TEST(Bf16GemmPaths, APathTheCpuCannotRunIsRefused) {
  const auto paths = cpu::supported_bf16_paths();
  if (paths.size() == 2) GTEST_SKIP() << "this CPU runs every bfloat16 path: none to refuse";
  const float b = 1.f;
  EXPECT_THROW(cpu::Bf16PackedB(1, 1, &b, 1, cpu::Bf16Path::kAvx512Bf16), ValueError);
}

}  // namespace

}  // namespace bf16_gemm_test
