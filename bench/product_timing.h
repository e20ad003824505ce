// What the product benches (strata_int8_gemm, strata_bf16_gemm) share: a call's best time
// over a few calls, and a ratio's median with its range over rounds (bench/stats.h).
#pragma once

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <functional>
#include <string>
#include <vector>

#include "bench/stats.h"

namespace strata::bench {

inline double best_seconds(const std::function<void()>& call, int calls) {
  double best = 1e30;
  for (int i = 0; i < calls; ++i) {
    const auto t0 = std::chrono::steady_clock::now();
    call();
    best = std::min(best, std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count());
  }
  return best;
}

// "median (min-max)" of ratios measured round by round; "-" when there are none.
inline std::string ratio_range(const std::vector<double>& ratios) {
  if (ratios.empty()) return "-";
  const Summary s = summarize(ratios);
  char text[64];
  std::snprintf(text, sizeof text, "%.2f (%.2f-%.2f)", s.median, s.min, s.max);
  return text;
}

}  // namespace strata::bench
