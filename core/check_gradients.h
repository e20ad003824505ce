// check_gradients: compares symbolic gradients with central finite differences.
// `build` maps placeholders for `inputs` to an output; the checked scalar is
// sum(output * projection) with a fixed random projection, so every output element
// contributes with a distinct weight. Integer inputs (labels) are fed, not perturbed;
// so are float inputs listed in `fixed_inputs` (float class labels, masks).
#pragma once

#include <functional>
#include <string>
#include <vector>

#include "core/graph.h"
#include "core/program.h"
#include "core/tensor.h"

namespace strata {

struct GradientCheckOptions {
  float epsilon = 1e-3f;       // finite-difference step
  float atol = 2e-3f;          // |analytic - numeric| <= atol + rtol * |numeric|
  float rtol = 2e-2f;
  bool training = false;       // run the program in training mode
  std::vector<std::size_t> fixed_inputs;  // float inputs fed as given, never perturbed
};

struct GradientCheckResult {
  bool ok = true;
  float max_abs_error = 0.f;
  std::string report;          // the worst element of each input, readable
};

using GraphBuilder = std::function<Output(Graph&, const std::vector<Output>&)>;

GradientCheckResult check_gradients(const GraphBuilder& build, const std::vector<Tensor>& inputs,
                                    const GradientCheckOptions& options = {});

}  // namespace strata
