// The suite's statistics (see stats.h).
#include "bench/stats.h"

#include <algorithm>
#include <cmath>
#include <limits>
#include <utility>

namespace strata::bench {

double median(std::vector<double> v) { return quantile(std::move(v), 0.5); }

double quantile(std::vector<double> v, double q) {
  if (v.empty()) return 0;
  std::sort(v.begin(), v.end());
  const double position = std::clamp(q, 0.0, 1.0) * static_cast<double>(v.size() - 1);
  const std::size_t below = static_cast<std::size_t>(std::floor(position));
  const std::size_t above = std::min(below + 1, v.size() - 1);
  const double fraction = position - static_cast<double>(below);
  return v[below] + fraction * (v[above] - v[below]);
}

bool overlap(Interval a, Interval b) { return a.low <= b.high && b.low <= a.high; }

double Summary::relative_spread() const {
  if (n < 2 || median == 0) return 0;
  return (max - min) / std::abs(median);
}

Interval Summary::likely_range() const { return n >= 4 ? Interval{q1, q3} : Interval{min, max}; }

Summary summarize(const std::vector<double>& values) {
  if (values.empty()) return {};
  const auto [lo, hi] = std::minmax_element(values.begin(), values.end());
  return {.n = static_cast<int>(values.size()),
          .median = median(values),
          .min = *lo,
          .max = *hi,
          .q1 = quantile(values, 0.25),
          .q3 = quantile(values, 0.75)};
}

double last_median_shift(const std::vector<double>& values) {
  constexpr double kUnknown = std::numeric_limits<double>::infinity();
  if (values.size() < 2) return kUnknown;
  const double before = median({values.begin(), values.end() - 1});
  const double after = median(values);
  if (before == 0) return after == 0 ? 0 : kUnknown;
  return std::abs(after - before) / std::abs(before);
}

bool median_settled(const std::vector<double>& values, double tolerance) {
  return last_median_shift(values) <= tolerance;
}

bool ratio_uncertain(const Summary& a, const Summary& b, double factor) {
  const Interval b_range = b.likely_range();
  return overlap(a.likely_range(), {factor * b_range.low, factor * b_range.high});
}

}  // namespace strata::bench
