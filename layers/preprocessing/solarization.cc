#include "layers/preprocessing/solarization.h"

#include <algorithm>

#include "core/error.h"
#include "core/ops.h"
#include "core/ops/array_ops.h"
#include "core/ops/random_ops.h"
#include "core/rng.h"
#include "layers/convolutional/conv_utils.h"
#include "layers/preprocessing/augmentation.h"

namespace strata::layers {

namespace {

// Solarization's own reading of its factors: values in [0, 1]; a number f is [0, f].
PerChannel solarization_factor(const std::string& layer, const std::string& key, const PerChannel& factor) {
  const FactorRange range = shift_factor(layer, key, factor, false);
  for (double v : factor.values) {
    if (v < 0.0) throw ValueError(layer + ": '" + key + "' must lie in [0, 1], got " + std::to_string(v));
  }
  return factor.single() ? PerChannel{0.0, factor.values[0]} : PerChannel{range.lower, range.upper};
}

}  // namespace

SolarizationImpl::SolarizationImpl(SolarizationOptions o)
    : LayerImpl("Solarization", o.name), seed(o.seed ? *o.seed : next_seed()), options(std::move(o)) {
  const std::string where = "Solarization '" + name + "'";
  options.addition_factor = solarization_factor(where, "addition_factor", options.addition_factor);
  options.threshold_factor = solarization_factor(where, "threshold_factor", options.threshold_factor);
  check_and_sort_value_range(where, options.value_range);
  is_channels_first(options.data_format);  // validates
}

Output SolarizationImpl::transform(Output images, Output additions, Output thresholds) const {
  const PerChannel full{0.0, 255.0};
  const Output x = transform_value_range(images, options.value_range, full);
  const Output added = ops::clip(ops::add(x, additions), 0.f, 255.f);
  const Output solarized = ops::where(ops::less(added, thresholds), added, ops::sub(255.f, added));
  return transform_value_range(solarized, full, options.value_range);
}

std::vector<Output> SolarizationImpl::call(Graph&, const std::vector<Output>& inputs) {
  const Output& x = inputs[0];
  expect_image_batch(x, "Solarization '" + name + "'");
  const Output u = ops::random_uniform_rows(x, 2, true, seed, static_cast<std::uint64_t>(current_call));
  const auto& a = options.addition_factor.values;
  const auto& t = options.threshold_factor.values;
  const Output additions = ops::reshape(uniform_between(draw_column(u, 0), a[0], a[1] * 255.0), {-1, 1, 1, 1});
  const Output thresholds = ops::reshape(uniform_between(draw_column(u, 1), t[0], t[1] * 255.0), {-1, 1, 1, 1});
  return {ops::training_select(transform(x, additions, thresholds), x)};
}

Solarization::Solarization(SolarizationOptions options)
    : Layer(std::make_shared<SolarizationImpl>(std::move(options))) {}

namespace {
const bool solarization_registered =
    register_keras_class(describe_layer<Solarization>("Solarization", &SolarizationImpl::options));
}  // namespace

}  // namespace strata::layers
