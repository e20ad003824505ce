// The FMA peak kernel (bench/fma_peak.h) runs and reports a rate per trial; what the rate
// is depends on the machine, so only its sanity is checked here.
#include "bench/fma_peak.h"

#include <gtest/gtest.h>

#include <cmath>
#include <stdexcept>

namespace strata::bench::fma_peak_test {
namespace {

TEST(FmaPeak, ReportsOnePositiveRatePerTrialOnEveryThreadCount) {
  for (int threads : {1, 2}) {
    const std::vector<double> gflops =
        measure_fma_peak_gflops({.threads = threads, .trials = 3, .seconds_per_trial = 0.005});
    ASSERT_EQ(gflops.size(), 3u);
    for (double g : gflops) {
      EXPECT_TRUE(std::isfinite(g)) << threads << " threads";
      EXPECT_GT(g, 0.1) << threads << " threads";
    }
  }
}

TEST(FmaPeak, RejectsOptionsThatMeasureNothing) {
  EXPECT_THROW(measure_fma_peak_gflops({.threads = 0}), std::invalid_argument);
  EXPECT_THROW(measure_fma_peak_gflops({.trials = 0}), std::invalid_argument);
}

}  // namespace
}  // namespace strata::bench::fma_peak_test
