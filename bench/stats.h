// The suite's statistics over repetitions: medians, spreads, when a median has settled,
// and when two measurements cannot be told apart. Plain numbers in, plain numbers out (no
// framework, no timing), so tests/bench/ checks them on their own.
#pragma once

#include <vector>

namespace strata::bench {

// The median of v (0 when empty).
double median(std::vector<double> v);

// The q-quantile of v (0 <= q <= 1), interpolating linearly between order statistics
// (NumPy's default, R's type 7); 0 when empty.
double quantile(std::vector<double> v, double q);

// A closed interval [low, high].
struct Interval {
  double low = 0, high = 0;
};

// Whether two intervals share a point.
bool overlap(Interval a, Interval b);

// What the suite reports for one measured quantity over its repetitions.
struct Summary {
  int n = 0;
  double median = 0, min = 0, max = 0;
  double q1 = 0, q3 = 0;  // quartiles

  // (max - min) / median: the whole range as a share of the median, the figure the
  // tables print next to (min..max); 0 with fewer than two values.
  double relative_spread() const;
  // Where the quantity lies, for telling two of them apart: the interquartile range with
  // 4 or more values (one outlying repetition does not widen it), else min..max (with 2
  // or 3 values the quartiles are interpolations between the same few points).
  Interval likely_range() const;
};

Summary summarize(const std::vector<double>& values);

// How far the median of `values` moved when the last value was added, relative to where
// it was (0.02: 2%); infinity with fewer than two values, since one value says nothing
// about where the median settles.
double last_median_shift(const std::vector<double>& values);
// Whether that shift is at most `tolerance`.
bool median_settled(const std::vector<double>& values, double tolerance);

// Whether "a is `factor` times b" cannot be decided from these repetitions: a's likely
// range overlaps b's scaled by `factor`. factor = 1 asks whether a and b differ at all;
// a target "a/b >= 1.2" is uncertain when a's range overlaps 1.2 times b's.
bool ratio_uncertain(const Summary& a, const Summary& b, double factor = 1.0);

}  // namespace strata::bench
