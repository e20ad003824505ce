// Helpers shared by the core suites: deterministic test tensors, one-shot evaluation of
// a graph builder, and tensor comparisons that report the first differing element.
#pragma once

#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <functional>
#include <numeric>
#include <string>
#include <vector>

#include "core/check_gradients.h"
#include "core/device.h"
#include "core/graph.h"
#include "core/program.h"
#include "core/rng.h"
#include "core/tensor.h"

namespace strata::testing {

// While one is alive, uniform() and away_from_zero() give zeros of their shape without
// drawing: for listing cases by name (gtest registers a suite's tests in each of its
// processes, one per test under CTest), their values drawn when a case runs.
class NamesOnly {
 public:
  NamesOnly() { active() = true; }
  ~NamesOnly() { active() = false; }
  NamesOnly(const NamesOnly&) = delete;
  NamesOnly& operator=(const NamesOnly&) = delete;
  static bool& active() {
    static bool on = false;
    return on;
  }
};

// Uniform values in [lo, hi), a pure function of `seed`.
inline Tensor uniform(Shape shape, float lo, float hi, std::uint64_t seed) {
  Tensor t(std::move(shape));
  if (NamesOnly::active()) return t;
  Philox rng(seed, 99);
  for (std::int64_t i = 0; i < t.size(); ++i) {
    t.data<float>()[i] = lo + (hi - lo) * rng.uniform(static_cast<std::uint64_t>(i));
  }
  return t;
}

// Magnitudes in [lo, hi) with random signs: keeps every element away from zero.
inline Tensor away_from_zero(Shape shape, float lo, float hi, std::uint64_t seed) {
  Tensor t = uniform(std::move(shape), lo, hi, seed);
  if (NamesOnly::active()) return t;
  Philox signs(seed, 7);
  for (std::int64_t i = 0; i < t.size(); ++i) {
    if (signs.uniform(static_cast<std::uint64_t>(i)) < 0.5f) t.data<float>()[i] = -t.data<float>()[i];
  }
  return t;
}

// Odd multiples of 0.1 in [-0.9, 0.9] and even multiples of 0.1 in [-1, 1]: an element of
// one never lies within 0.1 of an element of the other, so maximum/minimum have no ties.
inline Tensor odd_tenths(Shape shape, std::uint64_t seed) {
  Tensor t(std::move(shape));
  Philox rng(seed, 3);
  for (std::int64_t i = 0; i < t.size(); ++i) {
    int k = static_cast<int>(rng.uniform(static_cast<std::uint64_t>(i)) * 10.f);  // 0..9
    t.data<float>()[i] = 0.1f * static_cast<float>(2 * k - 9);
  }
  return t;
}
inline Tensor even_tenths(Shape shape, std::uint64_t seed) {
  Tensor t(std::move(shape));
  Philox rng(seed, 5);
  for (std::int64_t i = 0; i < t.size(); ++i) {
    int k = static_cast<int>(rng.uniform(static_cast<std::uint64_t>(i)) * 11.f);  // 0..10
    t.data<float>()[i] = 0.2f * static_cast<float>(k - 5);
  }
  return t;
}

// Distinct values 0.1 apart in a shuffled order: no ties anywhere (for max reductions).
inline Tensor distinct(Shape shape, std::uint64_t seed) {
  Tensor t(std::move(shape));
  std::vector<std::int64_t> order(static_cast<std::size_t>(t.size()));
  std::iota(order.begin(), order.end(), 0);
  Philox rng(seed, 13);
  for (std::size_t i = order.size(); i > 1; --i) {
    auto j = static_cast<std::size_t>(rng.uniform(i) * static_cast<float>(i));
    std::swap(order[i - 1], order[std::min(j, i - 1)]);
  }
  for (std::int64_t i = 0; i < t.size(); ++i) {
    t.data<float>()[i] = 0.1f * static_cast<float>(order[static_cast<std::size_t>(i)]) - 1.f;
  }
  return t;
}

template <typename T>
Tensor tensor(Shape shape, std::vector<T> values) {
  return Tensor::from_vector<T>(std::move(shape), values);
}

// Graph builders from one- and two-input op builders.
using Builder1 = std::function<Output(Output)>;
using Builder2 = std::function<Output(Output, Output)>;
inline GraphBuilder unary(Builder1 f) {
  return [f](Graph&, const std::vector<Output>& x) { return f(x[0]); };
}
inline GraphBuilder binary(Builder2 f) {
  return [f](Graph&, const std::vector<Output>& x) { return f(x[0], x[1]); };
}

// Builds `build` over placeholders shaped like `inputs`, runs it once and returns the output.
inline Tensor evaluate(const GraphBuilder& build, const std::vector<Tensor>& inputs, RunOptions options = {}) {
  Graph graph;
  std::vector<Output> xs;
  for (std::size_t i = 0; i < inputs.size(); ++i) {
    xs.push_back(graph.placeholder({inputs[i].shape(), inputs[i].dtype()}, "x" + std::to_string(i)));
  }
  Output y = build(graph, xs);
  Program program(graph, xs, {y});
  return program.run(inputs, options)[0];
}

// Asserts equal shapes and |actual - expected| <= tol elementwise (values read as float).
inline ::testing::AssertionResult tensors_near(const Tensor& actual, const Tensor& expected, float tol = 1e-5f) {
  if (actual.shape() != expected.shape()) {
    return ::testing::AssertionFailure() << "shape " << actual.shape().to_string() << ", expected "
                                         << expected.shape().to_string();
  }
  if (actual.dtype() != expected.dtype()) {
    return ::testing::AssertionFailure() << "dtype " << to_string(actual.dtype()) << ", expected "
                                         << to_string(expected.dtype());
  }
  for (std::int64_t i = 0; i < actual.size(); ++i) {
    float a = actual.item(i), e = expected.item(i);
    if (!(std::fabs(a - e) <= tol * (1.f + std::fabs(e)))) {
      return ::testing::AssertionFailure() << "element " << i << " is " << a << ", expected " << e << " in "
                                           << actual.to_string(12);
    }
  }
  return ::testing::AssertionSuccess();
}

// What `f` throws, or "no exception".
inline std::string message_of(const std::function<void()>& f) {
  try {
    f();
  } catch (const std::exception& e) {
    return e.what();
  }
  return "no exception";
}

}  // namespace strata::testing
