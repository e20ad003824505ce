// What the product benches (strata_int8_gemm, strata_bf16_gemm) share: their shapes, the
// float32 product they compare with, a call's best time over a few calls, and a ratio's
// median with its range over rounds (bench/stats.h).
#pragma once

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <functional>
#include <string>
#include <vector>

#include "bench/stats.h"
#include "core/cpu/gemm.h"
#include "core/cpu/packed_gemm.h"

namespace strata::bench {

// A product's m × n × k and what it stands for.
struct ProductShape {
  std::int64_t m, n, k;
  const char* what;
};

// "m" "x" "n" "x" "k" as the benches print a shape, with `suffix` after.
inline std::string shape_label(std::int64_t m, std::int64_t n, std::int64_t k, const char* suffix = "") {
  char text[64];
  std::snprintf(text, sizeof text, "%lldx%lldx%lld%s", static_cast<long long>(m), static_cast<long long>(n),
                static_cast<long long>(k), suffix);
  return text;
}

// Strata's float32 product C (m × n) = A (m × k) · B (k × n), B packed once as a layer's
// weights are where this CPU has the packed GEMM: what the low-precision products are
// compared with.
class FloatProduct {
 public:
  FloatProduct(std::int64_t m, std::int64_t n, std::int64_t k, const float* b)
      : m_(m), n_(n), k_(k), b_(b), packed_(cpu::packed_gemm_available()) {
    if (packed_) packed_b_.pack(false, k, n, b, n);
  }
  void operator()(const float* a, float* c) const {
    if (packed_) {
      cpu::gemm_prepacked(m_, a, k_, packed_b_, c, n_);
    } else {
      cpu::gemm(false, false, m_, n_, k_, a, k_, b_, n_, c, n_);
    }
  }

 private:
  std::int64_t m_, n_, k_;
  const float* b_;
  bool packed_;
  cpu::PackedB packed_b_;
};

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
