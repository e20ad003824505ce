// Counter-based RNG: Philox-4x32-10 draws are pure functions of (seed, stream, counter).
#include <gtest/gtest.h>

#include <cmath>
#include <cstdint>

#include "core/rng.h"

using namespace strata;

namespace rng_test {

namespace {
using Words = std::array<std::uint32_t, 4>;
constexpr std::uint64_t join(std::uint32_t lo, std::uint32_t hi) { return (std::uint64_t{hi} << 32) | lo; }
}  // namespace

TEST(Philox, MatchesRandom123KnownAnswers) {
  // Random123's kat_vectors for philox4x32-10: counter words c0..c3 are (counter low,
  // counter high, stream low, stream high), key words (seed low, seed high).
  EXPECT_EQ(Philox(0, 0).bits(0), (Words{0x6627e8d5, 0xe169c58d, 0xbc57ac4c, 0x9b00dbd8}));
  EXPECT_EQ(Philox(~0ull, ~0ull).bits(~0ull), (Words{0x408f276d, 0x41c83b0e, 0xa20bc7c6, 0x6d5451fd}));
  Philox pi(join(0xa4093822, 0x299f31d0), join(0x13198a2e, 0x03707344));
  EXPECT_EQ(pi.bits(join(0x243f6a88, 0x85a308d3)), (Words{0xd16cfe09, 0x94fdcceb, 0x5001e420, 0x24126ea1}));
}

// bits16 is bits() sixteen counters at a time, including across the carry into the
// counter's high word.
TEST(Philox, Bits16MatchesBitsForSixteenCounters) {
  for (std::uint64_t first : {std::uint64_t{0}, std::uint64_t{12345}, (std::uint64_t{1} << 32) - 7,
                              std::uint64_t{0xFFFFFFFFFFFFFFF0ull}}) {
    const Philox rng(0x0123456789ABCDEFull, 0xFEDCBA9876543210ull);
    Philox::Words16 words;
    rng.bits16(first, words);
    for (int j = 0; j < 16; ++j) {
      const auto want = rng.bits(first + static_cast<std::uint64_t>(j));
      for (int w = 0; w < 4; ++w) EXPECT_EQ(words[w][j], want[w]) << "counter " << first << "+" << j << " word " << w;
    }
  }
}

TEST(Philox, IsDeterministic) {
  Philox a(42, 7), b(42, 7);
  for (std::uint64_t i = 0; i < 100; ++i) {
    EXPECT_EQ(a.bits(i), b.bits(i));
    EXPECT_EQ(a.uniform(i), b.uniform(i));
    EXPECT_EQ(a.normal(i), b.normal(i));
  }
}

TEST(Philox, DifferentStreamsSeedsAndCountersDiffer) {
  Philox base(42, 7), other_stream(42, 8), other_seed(43, 7);
  int same_stream = 0, same_seed = 0;
  for (std::uint64_t i = 0; i < 1000; ++i) {
    same_stream += base.uniform(i) == other_stream.uniform(i);
    same_seed += base.uniform(i) == other_seed.uniform(i);
  }
  // 24-bit uniforms: a chance collision among 1000 pairs is about 1000 / 2^24.
  EXPECT_LE(same_stream, 1);
  EXPECT_LE(same_seed, 1);
  EXPECT_NE(base.bits(0), base.bits(1));
  EXPECT_NE(base.bits(0), base.bits(std::uint64_t{1} << 32)) << "the counter's high word counts";
}

TEST(Philox, UniformIsInTheUnitIntervalAndFlat) {
  Philox rng(1, 2);
  const int n = 100000;
  double sum = 0;
  int buckets[10] = {};
  for (int i = 0; i < n; ++i) {
    float u = rng.uniform(static_cast<std::uint64_t>(i));
    ASSERT_GE(u, 0.f);
    ASSERT_LT(u, 1.f);
    sum += u;
    ++buckets[static_cast<int>(u * 10)];
  }
  EXPECT_NEAR(sum / n, 0.5, 0.005);  // standard error 0.0009
  for (int b : buckets) EXPECT_NEAR(b, n / 10, 600);  // standard deviation about 95
}

TEST(Philox, NormalIsStandardNormal) {
  Philox rng(3, 4);
  const int n = 100000;
  double sum = 0, sum_sq = 0, sum_cube = 0;
  int beyond_two = 0;
  for (int i = 0; i < n; ++i) {
    double z = rng.normal(static_cast<std::uint64_t>(i));
    ASSERT_TRUE(std::isfinite(z));
    sum += z;
    sum_sq += z * z;
    sum_cube += z * z * z;
    beyond_two += std::fabs(z) > 2.0;
  }
  double mean = sum / n;
  double std = std::sqrt(sum_sq / n - mean * mean);
  EXPECT_NEAR(mean, 0.0, 0.015);                      // standard error 0.0032
  EXPECT_NEAR(std, 1.0, 0.015);                       // standard error 0.0022
  EXPECT_NEAR(sum_cube / n, 0.0, 0.05);               // symmetric
  EXPECT_NEAR(static_cast<double>(beyond_two) / n, 0.0455, 0.004);  // P(|z| > 2)
}

TEST(Rng, StableHashIsFnv1a) {
  EXPECT_EQ(stable_hash(""), 0xcbf29ce484222325ull);
  EXPECT_EQ(stable_hash("a"), 0xaf63dc4c8601ec8cull);
  EXPECT_NE(stable_hash("dense/kernel"), stable_hash("dense/bias"));
}

TEST(Rng, GlobalSeedGivesReproducibleSeeds) {
  const std::uint64_t saved = global_seed();
  set_random_seed(5);
  std::uint64_t a0 = next_seed(), a1 = next_seed();
  set_random_seed(5);
  EXPECT_EQ(next_seed(), a0);
  EXPECT_EQ(next_seed(), a1);
  EXPECT_NE(a0, a1);
  set_random_seed(6);
  EXPECT_NE(next_seed(), a0);
  EXPECT_EQ(global_seed(), 6u);
  EXPECT_NE(mix_seed(1, 2), mix_seed(1, 3));
  EXPECT_NE(mix_seed(1, 2), mix_seed(2, 1));
  set_random_seed(saved);
}

}  // namespace rng_test
