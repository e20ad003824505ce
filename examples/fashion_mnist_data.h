// Fashion-MNIST as the tutorials prepare it: pixels scaled from 0..255 to 0..1, and
// optionally only the first N samples of each split (for quick runs and smoke tests).
#pragma once

#include <strata/strata.h>

#include <cstdint>
#include <string>

namespace strata::examples {

struct TutorialData {
  Tensor x_train, y_train, x_test, y_test;
};

// `channel_axis` appends a channels dim for convnets: (N, 28, 28) -> (N, 28, 28, 1).
// A sample count of 0 keeps the whole split.
inline TutorialData load_fashion_mnist(const std::string& data_dir, std::int64_t train_samples = 0,
                                       std::int64_t test_samples = 0, bool channel_axis = false) {
  auto data = datasets::fashion_mnist::load_data(data_dir);
  auto prepare = [&](const Tensor& raw, const Tensor& labels, std::int64_t keep, Tensor& x, Tensor& y) {
    x = raw / 255.f;  // keras.ops-style eager ops (core/eager.h)
    if (channel_axis) x = ops::expand_dims(x, -1);
    y = labels;
    if (keep > 0 && keep < x.shape()[0]) {
      x = x.slice_rows(0, keep);
      y = y.slice_rows(0, keep);
    }
  };
  TutorialData out;
  prepare(data.x_train, data.y_train, train_samples, out.x_train, out.y_train);
  prepare(data.x_test, data.y_test, test_samples, out.x_test, out.y_test);
  return out;
}

}  // namespace strata::examples
