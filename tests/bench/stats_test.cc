// The benchmark suite's statistics (bench/stats.h): quantiles, spread, when a median has
// settled, and when two measurements overlap so that their ratio is uncertain.
#include "bench/stats.h"

#include <gtest/gtest.h>

#include <cmath>

namespace strata::bench::stats_test {
namespace {

TEST(Quantile, InterpolatesBetweenOrderStatisticsLikeNumPy) {
  // numpy.quantile([4, 1, 3, 2], [0, .25, .5, .75, 1]) = [1, 1.75, 2.5, 3.25, 4]
  const std::vector<double> v{4, 1, 3, 2};
  EXPECT_DOUBLE_EQ(quantile(v, 0), 1);
  EXPECT_DOUBLE_EQ(quantile(v, 0.25), 1.75);
  EXPECT_DOUBLE_EQ(quantile(v, 0.5), 2.5);
  EXPECT_DOUBLE_EQ(quantile(v, 0.75), 3.25);
  EXPECT_DOUBLE_EQ(quantile(v, 1), 4);
}

TEST(Median, IsTheMiddleValueOrTheMeanOfTheMiddleTwo) {
  EXPECT_DOUBLE_EQ(median({5, 1, 3}), 3);
  EXPECT_DOUBLE_EQ(median({5, 1, 3, 2}), 2.5);
  EXPECT_DOUBLE_EQ(median({7}), 7);
  EXPECT_DOUBLE_EQ(median({}), 0);
}

TEST(Summary, CarriesRangeQuartilesAndRelativeSpread) {
  const Summary s = summarize({10, 12, 8, 11, 9});
  EXPECT_EQ(s.n, 5);
  EXPECT_DOUBLE_EQ(s.median, 10);
  EXPECT_DOUBLE_EQ(s.min, 8);
  EXPECT_DOUBLE_EQ(s.max, 12);
  EXPECT_DOUBLE_EQ(s.q1, 9);
  EXPECT_DOUBLE_EQ(s.q3, 11);
  EXPECT_DOUBLE_EQ(s.relative_spread(), 0.4);  // (12 - 8) / 10
}

TEST(Summary, OneValueHasNoSpreadAndNoValuesAreEmpty) {
  EXPECT_DOUBLE_EQ(summarize({3}).relative_spread(), 0);
  EXPECT_EQ(summarize({}).n, 0);
}

TEST(Summary, LikelyRangeIsInterquartileFromFourValuesElseMinToMax) {
  const Summary three = summarize({1, 2, 10});
  EXPECT_DOUBLE_EQ(three.likely_range().low, 1);
  EXPECT_DOUBLE_EQ(three.likely_range().high, 10);
  // One outlier widens min..max but not the interquartile range.
  const Summary five = summarize({10, 11, 12, 13, 100});
  EXPECT_DOUBLE_EQ(five.likely_range().low, 11);
  EXPECT_DOUBLE_EQ(five.likely_range().high, 13);
}

TEST(Overlap, SharedPointsCountAsOverlap) {
  EXPECT_TRUE(overlap({1, 3}, {2, 4}));
  EXPECT_TRUE(overlap({1, 3}, {3, 4}));
  EXPECT_TRUE(overlap({1, 5}, {2, 3}));
  EXPECT_FALSE(overlap({1, 2}, {2.5, 4}));
  EXPECT_FALSE(overlap({2.5, 4}, {1, 2}));
}

TEST(MedianSettled, ComparesTheMedianWithAndWithoutTheLastValue) {
  EXPECT_NEAR(last_median_shift({100, 102, 101}), 0.0, 1e-12);  // {100, 102}: 101; then 101
  EXPECT_NEAR(last_median_shift({100, 104}), 0.02, 1e-12);       // {100}: 100; then 102
  EXPECT_TRUE(median_settled({100, 102, 101}, 0.02));
  EXPECT_FALSE(median_settled({100, 104}, 0.01));
  EXPECT_TRUE(median_settled({100, 104}, 0.02));
}

TEST(MedianSettled, OneValueCannotHaveSettled) {
  EXPECT_TRUE(std::isinf(last_median_shift({5})));
  EXPECT_FALSE(median_settled({5}, 1.0));
  EXPECT_FALSE(median_settled({}, 1.0));
}

TEST(RatioUncertain, WhenTheRangesOverlap) {
  const Summary fast = summarize({110, 112, 115});
  const Summary slow = summarize({90, 95, 100});
  const Summary close = summarize({98, 105, 111});
  EXPECT_FALSE(ratio_uncertain(fast, slow));
  EXPECT_TRUE(ratio_uncertain(fast, close));
  EXPECT_TRUE(ratio_uncertain(close, slow));
}

TEST(RatioUncertain, AgainstATargetScalesTheOtherRange) {
  // fast/slow is about 1.18: clearly above 1, but whether it is >= 1.2 is open.
  const Summary fast = summarize({110, 112, 115});
  const Summary slow = summarize({90, 95, 100});
  EXPECT_TRUE(ratio_uncertain(fast, slow, 1.2));  // 1.2 * slow = 108..120
  EXPECT_FALSE(ratio_uncertain(fast, slow, 1.5));  // 135..150: clearly missed
}

}  // namespace
}  // namespace strata::bench::stats_test
