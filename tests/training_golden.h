// Helpers for tests that compare against golden JSON written by real Keras
// (tests/reference/make_training_goldens.py). Header-only; used by the losses and
// optimizers suites.
#pragma once

#include <gtest/gtest.h>

#include <cmath>
#include <fstream>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "core/tensor.h"

namespace strata::golden {

inline nlohmann::json load_golden(const std::string& file) {
  std::string path = std::string(STRATA_TEST_DATA) + "/" + file;
  std::ifstream in(path);
  if (!in) throw std::runtime_error("cannot open golden file " + path);
  return nlohmann::json::parse(in);
}

inline Shape golden_shape(const nlohmann::json& j) { return Shape(j.at("shape").get<std::vector<std::int64_t>>()); }

// {"shape": [...], "dtype": "float32"|"int32"|"int64", "values": [...]} -> Tensor.
inline Tensor golden_tensor(const nlohmann::json& j) {
  Shape shape = golden_shape(j);
  std::string dtype = j.value("dtype", "float32");
  const auto& v = j.at("values");
  if (dtype == "int32") return Tensor::from_vector(shape, v.get<std::vector<std::int32_t>>());
  if (dtype == "int64") return Tensor::from_vector(shape, v.get<std::vector<std::int64_t>>());
  return Tensor::from_vector(shape, v.get<std::vector<float>>());
}

// float32 agreement with Keras: |a - e| <= 1e-6 + 1e-5 |e|.
inline bool close_to_keras(double actual, double expected) {
  return std::fabs(actual - expected) <= 1e-6 + 1e-5 * std::fabs(expected);
}

inline void expect_matches_golden(const Tensor& actual, const nlohmann::json& expected) {
  Shape shape = golden_shape(expected);
  ASSERT_EQ(actual.shape(), shape) << "expected shape " << shape.to_string() << ", got " << actual.shape().to_string();
  auto values = expected.at("values").get<std::vector<double>>();
  for (std::int64_t i = 0; i < actual.size(); ++i) {
    EXPECT_TRUE(close_to_keras(actual.item(i), values[static_cast<std::size_t>(i)]))
        << "element " << i << ": got " << actual.item(i) << ", Keras " << values[static_cast<std::size_t>(i)];
  }
}

}  // namespace strata::golden
