#include "core/check_gradients.h"

#include <algorithm>
#include <cmath>
#include <sstream>

#include "core/autodiff.h"
#include "core/ops.h"
#include "core/rng.h"

namespace strata {

GradientCheckResult check_gradients(const GraphBuilder& build, const std::vector<Tensor>& inputs,
                                    const GradientCheckOptions& options) {
  Graph graph;
  std::vector<Output> placeholders;
  for (std::size_t i = 0; i < inputs.size(); ++i) {
    placeholders.push_back(graph.placeholder({inputs[i].shape(), inputs[i].dtype()}, "x" + std::to_string(i)));
  }
  Output y = build(graph, placeholders);
  if (y.dtype() != DType::float32) throw ValueError("check_gradients: the output must be float32");
  Output projection = graph.placeholder({y.shape(), DType::float32}, "projection");
  Output loss = ops::reduce_sum(ops::mul(y, projection));

  std::vector<Output> checked;
  std::vector<std::size_t> checked_index;
  for (std::size_t i = 0; i < inputs.size(); ++i) {
    bool fixed = std::find(options.fixed_inputs.begin(), options.fixed_inputs.end(), i) != options.fixed_inputs.end();
    if (inputs[i].dtype() == DType::float32 && !fixed) {
      checked.push_back(placeholders[i]);
      checked_index.push_back(i);
    }
  }
  std::vector<Output> grads = gradients(loss, checked);
  std::vector<Output> fetches{loss};
  for (std::size_t k = 0; k < grads.size(); ++k) fetches.push_back(grads[k].valid() ? grads[k] : ops::zeros_like(checked[k]));

  std::vector<Output> feeds = placeholders;
  feeds.push_back(projection);
  Program analytic(graph, feeds, fetches);
  Program value(graph, feeds, {loss});

  std::vector<Tensor> feed_values;
  for (const auto& t : inputs) feed_values.push_back(t.clone());
  // The output's runtime shape is only known after one run; infer it from a forward pass.
  Program forward(graph, placeholders, {y});
  Tensor y_value = forward.run(feed_values, {.training = options.training})[0];
  Tensor proj(y_value.shape());
  Philox rng(7, 11);
  for (std::int64_t i = 0; i < proj.size(); ++i) proj.data<float>()[i] = 0.5f + rng.uniform(static_cast<std::uint64_t>(i));
  feed_values.push_back(proj);

  RunOptions run{.training = options.training};
  std::vector<Tensor> results = analytic.run(feed_values, run);
  GradientCheckResult result;
  std::ostringstream report;
  for (std::size_t k = 0; k < checked.size(); ++k) {
    Tensor& x = feed_values[checked_index[k]];
    const Tensor& g = results[k + 1];
    float worst = 0.f;
    std::int64_t worst_at = -1;
    float worst_a = 0.f, worst_n = 0.f;
    for (std::int64_t j = 0; j < x.size(); ++j) {
      float saved = x.data<float>()[j];
      x.data<float>()[j] = saved + options.epsilon;
      double plus = value.run(feed_values, run)[0].item();
      x.data<float>()[j] = saved - options.epsilon;
      double minus = value.run(feed_values, run)[0].item();
      x.data<float>()[j] = saved;
      float numeric = static_cast<float>((plus - minus) / (2.0 * options.epsilon));
      float a = g.data<float>()[j];
      float err = std::fabs(a - numeric);
      if (!(err <= options.atol + options.rtol * std::fabs(numeric))) result.ok = false;
      if (!(err <= worst)) {
        worst = err;
        worst_at = j;
        worst_a = a;
        worst_n = numeric;
      }
    }
    result.max_abs_error = std::max(result.max_abs_error, worst);
    report << "input " << checked_index[k] << " " << x.shape().to_string() << ": worst |error| " << worst;
    if (worst_at >= 0) report << " at element " << worst_at << " (analytic " << worst_a << ", numeric " << worst_n << ")";
    report << "\n";
  }
  result.report = report.str();
  return result;
}

}  // namespace strata
