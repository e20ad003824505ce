// The CPU kernels' vector math (core/cpu/vector_math.h), in the build's own vector width:
// clamp's x86 max/min keep the portable selects' answers bit for bit (NaN to the lower
// bound, a tie to the bound), and silu and exp stay within a few ulp of double precision.
#include <gtest/gtest.h>

#include <cmath>
#include <cstring>
#include <limits>
#include <vector>

#include "core/cpu/vector_math.h"

namespace vector_math_test {

namespace simd = strata::cpu::simd;

namespace {

// The portable form clamp had before the intrinsics: select(x > lo, x, lo), then
// select(low < hi, low, hi).
simd::Vec clamp_by_selects(simd::Vec x, float lo, float hi) {
  const simd::Vec low = simd::select(x > lo, x, simd::splat(lo));
  return simd::select(low < hi, low, simd::splat(hi));
}

std::vector<float> through(simd::Vec (*f)(simd::Vec), const std::vector<float>& x) {
  std::vector<float> y(x.size());
  for (std::size_t i = 0; i < x.size(); i += simd::kLanes) {
    float in[simd::kLanes] = {}, out[simd::kLanes];
    std::memcpy(in, x.data() + i, std::min<std::size_t>(simd::kLanes, x.size() - i) * sizeof(float));
    simd::store(out, f(simd::load(in)));
    std::memcpy(y.data() + i, out, std::min<std::size_t>(simd::kLanes, x.size() - i) * sizeof(float));
  }
  return y;
}

std::uint32_t bits(float v) {
  std::uint32_t b;
  std::memcpy(&b, &v, sizeof b);
  return b;
}

}  // namespace

TEST(VectorMath, ClampIsTheSelectsBitForBit) {
  const float inf = std::numeric_limits<float>::infinity(), nan = std::numeric_limits<float>::quiet_NaN();
  std::vector<float> x{nan, -nan, inf, -inf, 0.f, -0.f, -2.f, 3.f, -2.0000002f, 2.9999998f, 1e-40f, -1e-40f};
  for (float v = -5.f; v < 5.f; v += 0.37f) x.push_back(v);
  for (const auto& [lo, hi] : std::vector<std::pair<float, float>>{{-2.f, 3.f}, {0.f, 6.f}, {-0.f, 0.f}}) {
    for (std::size_t i = 0; i < x.size(); i += simd::kLanes) {
      float in[simd::kLanes] = {}, got[simd::kLanes], want[simd::kLanes];
      std::memcpy(in, x.data() + i, std::min<std::size_t>(simd::kLanes, x.size() - i) * sizeof(float));
      simd::store(got, simd::clamp(simd::load(in), lo, hi));
      simd::store(want, clamp_by_selects(simd::load(in), lo, hi));
      for (int k = 0; k < simd::kLanes; ++k)
        EXPECT_EQ(bits(got[k]), bits(want[k])) << "x " << in[k] << " in [" << lo << ", " << hi << "]";
    }
  }
  // NaN to the lower bound, as silu's caller needs.
  float in[simd::kLanes], out[simd::kLanes];
  for (float& v : in) v = nan;
  simd::store(out, simd::clamp(simd::load(in), -1.f, 1.f));
  EXPECT_EQ(out[0], -1.f);
}

TEST(VectorMath, SiluAndExpAreWithinAFewUlpOfDoublePrecision) {
  std::vector<float> x;
  for (float v = -100.f; v < 100.f; v += 0.0137f) x.push_back(v);
  const std::vector<float> silu = through(simd::silu, x), exp = through(simd::exp, x);
  for (std::size_t i = 0; i < x.size(); ++i) {
    const double s = x[i] / (1.0 + std::exp(-static_cast<double>(x[i])));
    // Below x = -88.38 the clamped e^-x leaves x / (1 + 2.4e38), within 1e-36 of the true value.
    EXPECT_NEAR(silu[i], s, 4 * std::numeric_limits<float>::epsilon() * std::fabs(s) + 1e-36) << "silu " << x[i];
    const double e = std::exp(static_cast<double>(x[i]));
    if (x[i] > 88.3762626f) {  // infinite a little early: 2^128 has no exponent
      EXPECT_TRUE(std::isinf(exp[i])) << x[i];
    } else if (e >= std::numeric_limits<float>::min()) {
      EXPECT_NEAR(exp[i], e, 4 * std::numeric_limits<float>::epsilon() * e) << "exp " << x[i];
    }
  }
  // NaN stays NaN.
  const std::vector<float> nan = through(simd::silu, {std::numeric_limits<float>::quiet_NaN()});
  EXPECT_TRUE(std::isnan(nan[0]));
}

}  // namespace vector_math_test
