// Reading the goldens that tests/reference/ scripts write from real Keras: arrays as
// {"shape", "values"(, "dtype")} and the tolerance every layer golden is held to.
#pragma once

#include <gtest/gtest.h>

#include <cctype>
#include <cmath>
#include <fstream>
#include <map>
#include <stdexcept>
#include <string>
#include <vector>

#include "core/tensor.h"
#include "io/layer_config.h"

namespace strata::testing {

// Parses tests/data/<name> once per process.
inline const nlohmann::ordered_json& golden_file(const std::string& name) {
  static std::map<std::string, nlohmann::ordered_json> files;
  auto it = files.find(name);
  if (it != files.end()) return it->second;
  std::ifstream f(std::string(STRATA_TEST_DATA) + "/" + name);
  if (!f) throw std::runtime_error("cannot open tests/data/" + name);
  return files.emplace(name, nlohmann::ordered_json::parse(f)).first->second;
}

// The names of a golden file's "cases", in order (a parameterized suite's values), and
// the case of one name (a test failure naming it when there is none).
inline std::vector<std::string> golden_case_names(const std::string& file) {
  std::vector<std::string> names;
  for (const auto& c : golden_file(file).at("cases")) names.push_back(c.at("name").get<std::string>());
  return names;
}
inline const nlohmann::ordered_json& golden_case(const std::string& file, const std::string& name) {
  for (const auto& c : golden_file(file).at("cases")) {
    if (c.at("name") == name) return c;
  }
  throw std::runtime_error("tests/data/" + file + " has no case '" + name + "'");
}

// A golden array; a bool array (a mask) reads as float32 0 / 1, as Strata's masks are.
template <class Json>
Tensor golden_tensor(const Json& j) {
  const Shape shape(j.at("shape").template get<std::vector<std::int64_t>>());
  const std::string dtype = j.value("dtype", "float32");
  if (dtype == "bool") {
    std::vector<float> v;
    for (const auto& b : j.at("values")) v.push_back(b.template get<bool>() ? 1.0f : 0.0f);
    return Tensor::from_vector<float>(shape, v);
  }
  if (dtype == "int64") return Tensor::from_vector<std::int64_t>(shape, j.at("values").template get<std::vector<std::int64_t>>());
  return Tensor::from_vector<float>(shape, j.at("values").template get<std::vector<float>>());
}

// Within 1e-5 absolute + 1e-5 relative of Keras's values, element by element.
template <class Json>
::testing::AssertionResult golden_near(const Tensor& actual, const Json& expected_json, const std::string& what) {
  const Tensor expected = golden_tensor(expected_json);
  if (actual.shape() != expected.shape()) {
    return ::testing::AssertionFailure() << what << ": shape " << actual.shape().to_string() << ", Keras "
                                         << expected.shape().to_string();
  }
  for (std::int64_t i = 0; i < actual.size(); ++i) {
    const float a = actual.item(i), e = expected.item(i);
    if (!(std::fabs(a - e) <= 1e-5f + 1e-5f * std::fabs(e))) {
      return ::testing::AssertionFailure() << what << ": element " << i << " is " << a << ", Keras " << e;
    }
  }
  return ::testing::AssertionSuccess();
}

// A case name as a test name: "relu_slope0.1" -> "relu_slope0_1".
inline std::string test_name_of(std::string name) {
  for (char& ch : name) {
    if (!std::isalnum(static_cast<unsigned char>(ch))) ch = '_';
  }
  return name;
}

}  // namespace strata::testing
