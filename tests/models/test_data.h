// Small synthetic datasets for model tests: deterministic, learnable, fast.
#pragma once

#include <cmath>

#include "core/rng.h"
#include "core/tensor.h"

namespace strata::test_data {

// Three Gaussian-ish blobs in `features` dims; labels 0..2 (int64).
inline std::pair<Tensor, Tensor> blobs(std::int64_t n, std::int64_t features = 4, std::uint64_t seed = 3) {
  Tensor x(Shape{n, features});
  Tensor y(Shape{n}, DType::int64);
  Philox rng(seed, 1);
  for (std::int64_t i = 0; i < n; ++i) {
    std::int64_t label = i % 3;
    y.data<std::int64_t>()[i] = label;
    for (std::int64_t f = 0; f < features; ++f) {
      float center = (f % 3 == label) ? 2.0f : -1.0f;
      x.data<float>()[i * features + f] = center + 0.5f * rng.normal(static_cast<std::uint64_t>(i * features + f));
    }
  }
  return {x, y};
}

}  // namespace strata::test_data
