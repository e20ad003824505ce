#include "layers/preprocessing/random_shear.h"

#include <cmath>

#include "core/error.h"
#include "core/ops.h"
#include "core/ops/array_ops.h"
#include "core/ops/random_ops.h"
#include "core/rng.h"
#include "layers/convolutional/conv_utils.h"
#include "layers/preprocessing/augmentation.h"

namespace strata::layers {

namespace {

// RandomShear's own reading of a factor: values in [0, 1]; a number f is [-f, f].
PerChannel shear_factor(const std::string& layer, const std::string& key, const PerChannel& factor) {
  const FactorRange range = shift_factor(layer, key, factor, false);
  for (double v : factor.values) {
    if (v < 0.0) throw ValueError(layer + ": '" + key + "' must lie in [0, 1], got " + std::to_string(v));
  }
  return PerChannel{range.lower, range.upper};
}

}  // namespace

RandomShearImpl::RandomShearImpl(RandomShearOptions o)
    : LayerImpl("RandomShear", o.name), seed(o.seed ? *o.seed : next_seed()), options(std::move(o)) {
  const std::string where = "RandomShear '" + name + "'";
  x_range_ = shear_factor(where, "x_factor", options.x_factor);
  y_range_ = shear_factor(where, "y_factor", options.y_factor);
  check_fill(where, options.fill_mode, options.interpolation);
  is_channels_first(options.data_format);  // validates
}

Output RandomShearImpl::transform(Output images, Output shear) const {
  // Keras's _get_shear_matrix: [1, sx, 0, sy, 1, 0, 0, 0].
  const Output sx = draw_column(shear, 0), sy = draw_column(shear, 1);
  const Output zero = ops::zeros_like(sx), one = ops::add(zero, 1.f);
  const Output rows = transform_rows({one, sx, zero, sy, one, zero, zero, zero});
  return affine_images(images, rows, options.data_format, options.interpolation, options.fill_mode,
                       options.fill_value);
}

std::vector<Output> RandomShearImpl::call(Graph&, const std::vector<Output>& inputs) {
  const Output& x = inputs[0];
  expect_image_batch(x, "RandomShear '" + name + "'");
  // Keras: invert = -1 where uniform > 0.5, else 1; [sx, sy] = [uniform(x_factor),
  // uniform(y_factor)] * invert.
  const Output u = ops::random_uniform_rows(x, 3, true, seed, static_cast<std::uint64_t>(current_call));
  const Output invert_draw = draw_column(u, 0);
  const Output sign = ops::sub(1.f, ops::mul(ops::greater(invert_draw, ops::fill_like(invert_draw, 0.5f)), 2.f));
  const auto& xf = x_range_.values;
  const auto& yf = y_range_.values;
  const Output sy = uniform_between(draw_column(u, 1), yf[0], yf[1]);
  const Output sx = uniform_between(draw_column(u, 2), xf[0], xf[1]);
  return {ops::training_select(transform(x, ops::mul(ops::concat({sx, sy}, 1), sign)), x)};
}

RandomShear::RandomShear(RandomShearOptions options) : Layer(std::make_shared<RandomShearImpl>(std::move(options))) {}

namespace {
const bool random_shear_registered =
    register_keras_class(describe_layer<RandomShear>("RandomShear", &RandomShearImpl::options));
}  // namespace

}  // namespace strata::layers
