// The op table's case types, and the extension point through which op families other
// than the core ones add their cases from their own test files:
//
//   namespace { const RegisterOpCases conv_cases({{"conv2d", OpCase{...}}, ...}); }
//
// op_gradients_test.cc merges them into its table; an op with no case anywhere fails.
#pragma once

#include <functional>
#include <map>
#include <string>
#include <vector>

#include "core/check_gradients.h"
#include "core_test_util.h"
#include "reference_ops.h"

namespace strata::testing {

struct GradCase {
  std::string label;
  GraphBuilder build;
  std::vector<Tensor> inputs;
  Reference reference;              // expected forward output, when given
  GradientCheckOptions options{};
};

struct OpCase {
  std::vector<GradCase> gradient_checks;
  std::function<void()> forward_check;   // hand-computed values (ops without a gradient)
  std::string no_gradient_check;         // why a differentiable op is only forward-checked
};

// Cases registered by other test files (static initialization, same test binary).
inline std::map<std::string, OpCase>& extra_op_cases() {
  static std::map<std::string, OpCase> cases;
  return cases;
}

struct RegisterOpCases {
  explicit RegisterOpCases(std::map<std::string, OpCase> cases) {
    for (auto& [name, c] : cases) extra_op_cases().emplace(name, std::move(c));
  }
};

}  // namespace strata::testing
