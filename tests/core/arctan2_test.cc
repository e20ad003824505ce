// ops::arctan2 (core/ops/arctan2.h): tf.math.atan2's values in every quadrant, on the axes and
// at the origin (0), and finite gradients matching finite differences everywhere but the
// origin, on the y axis (x = 0) too, where atan(y / x) alone has none.
#include <gtest/gtest.h>

#include <cmath>
#include <vector>

#include "core/check_gradients.h"
#include "core/ops/arctan2.h"
#include "core_test_util.h"

namespace strata::testing::arctan2_test {
namespace {

TEST(Arctan2, ValuesAreAtan2sInEveryQuadrantOnTheAxesAndAtTheOrigin) {
  const std::vector<float> ys = {1.f, 1.f, -1.f, -1.f, 0.f, 0.f, 2.f, -3.f, 0.f, 0.5f, -0.25f};
  const std::vector<float> xs = {1.f, -1.f, 1.f, -1.f, 2.f, -2.f, 0.f, 0.f, 0.f, 3.f, -4.f};
  const auto n = static_cast<std::int64_t>(ys.size());
  const Tensor y = tensor<float>({n}, ys), x = tensor<float>({n}, xs);
  const Tensor angle = evaluate(binary([](Output a, Output b) { return ops::arctan2(a, b); }), {y, x});
  for (std::int64_t i = 0; i < n; ++i)
    EXPECT_NEAR(angle.item(i), std::atan2(ys[static_cast<std::size_t>(i)], xs[static_cast<std::size_t>(i)]), 1e-6)
        << "atan2(" << ys[static_cast<std::size_t>(i)] << ", " << xs[static_cast<std::size_t>(i)] << ")";
}

TEST(Arctan2, GradientsAreFiniteAndRightOffTheOriginTheYAxisIncluded) {
  // Points on the y axis (x = 0), near the x axis on both sides, and in each quadrant; none
  // within a step of the negative x axis, where the angle jumps by 2π.
  const Tensor y = tensor<float>({6}, {1.5f, -2.f, 0.3f, -0.7f, 2.f, 1.f});
  const Tensor x = tensor<float>({6}, {0.f, 0.f, 2.f, 1.5f, -0.5f, 0.2f});
  const GradientCheckResult r =
      check_gradients(binary([](Output a, Output b) { return ops::arctan2(a, b); }), {y, x});
  EXPECT_TRUE(r.ok) << r.report;
}

}  // namespace
}  // namespace strata::testing::arctan2_test
