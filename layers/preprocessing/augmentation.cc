#include "layers/preprocessing/augmentation.h"

#include <algorithm>
#include <cmath>
#include <numbers>
#include <sstream>

#include "core/error.h"
#include "core/ops.h"
#include "core/ops/array_ops.h"
#include "core/ops/scan_ops.h"
#include "core/ops/sequence_ops.h"
#include "layers/convolutional/conv_utils.h"

namespace strata::layers {

namespace {

std::string spelled(const PerChannel& factor) {
  std::ostringstream out;
  if (factor.single()) {
    out << factor.values[0];
    return out.str();
  }
  out << "[";
  for (std::size_t i = 0; i < factor.values.size(); ++i) out << (i ? ", " : "") << factor.values[i];
  out << "]";
  return out.str();
}

}  // namespace

FactorRange base_factor(const std::string& layer, const PerChannel& factor, double min, double max) {
  const auto refuse = [&] {
    std::ostringstream bounds;
    bounds << "[" << min << ", " << max << "]";
    throw ValueError(layer + ": 'factor' must be a number (or a list of two numbers) in the range " + bounds.str() +
                     ", got " + spelled(factor));
  };
  if (factor.values.size() == 2) {
    if (factor.values[0] > max || factor.values[1] < min) refuse();
    return {std::min(factor.values[0], factor.values[1]), std::max(factor.values[0], factor.values[1])};
  }
  if (!factor.single()) refuse();
  const double f = factor.values[0];
  if (f < min || f > max) refuse();
  return {std::max(-std::fabs(f), min), std::fabs(f)};
}

FactorRange shift_factor(const std::string& layer, const std::string& key, const PerChannel& factor,
                         bool above_minus_one) {
  if (factor.values.size() != 1 && factor.values.size() != 2) {
    throw ValueError(layer + ": '" + key + "' must be a number or a list of two numbers, got " + spelled(factor));
  }
  for (double v : factor.values) {
    if (v > 1.0 || v < -1.0 || (above_minus_one && v == -1.0)) {
      throw ValueError(layer + ": '" + key + "' must lie in " + (above_minus_one ? "(-1, 1]" : "[-1, 1]") +
                       ", got " + spelled(factor));
    }
  }
  if (factor.single()) return {-std::fabs(factor.values[0]), std::fabs(factor.values[0])};
  return {std::min(factor.values[0], factor.values[1]), std::max(factor.values[0], factor.values[1])};
}

void check_value_range(const std::string& layer, const PerChannel& value_range) {
  if (value_range.values.size() != 2) {
    throw ValueError(layer + ": 'value_range' must be a list of two numbers, got " + spelled(value_range));
  }
}

void check_and_sort_value_range(const std::string& layer, PerChannel& value_range) {
  check_value_range(layer, value_range);
  std::sort(value_range.values.begin(), value_range.values.end());
}

void check_increasing_value_range(const std::string& layer, const PerChannel& value_range) {
  check_value_range(layer, value_range);
  if (!(value_range.values[0] < value_range.values[1])) {
    throw ValueError(layer + ": 'value_range' must be increasing, got [" + std::to_string(value_range.values[0]) +
                     ", " + std::to_string(value_range.values[1]) + "]");
  }
}

std::pair<int, int> image_axes(const std::string& data_format) {
  return is_channels_first(data_format) ? std::pair{2, 3} : std::pair{1, 2};
}

void expect_image_batch(const Output& images, const std::string& layer) {
  if (images.shape().rank() != 4) {
    throw ShapeError(layer + ": expects a batch of images (rank 4), got shape " + images.shape().to_string());
  }
}

void expect_rgb_images(const Output& images, const std::string& data_format, const std::string& layer) {
  const std::size_t axis = is_channels_first(data_format) ? 1 : 3;
  if (images.shape().rank() != 4 || images.shape().dims()[axis] != 3) {
    throw ShapeError(layer + ": expects RGB images (three channels, " +
                     (axis == 1 ? "channels_first" : "channels_last") + "), got shape " + images.shape().to_string());
  }
}

void check_fill(const std::string& layer, const std::string& fill_mode, const std::string& interpolation) {
  if (fill_mode != "reflect" && fill_mode != "wrap" && fill_mode != "constant" && fill_mode != "nearest") {
    throw ValueError(layer + ": 'fill_mode' must be one of 'reflect', 'wrap', 'constant', 'nearest', got '" +
                     fill_mode + "'");
  }
  if (interpolation != "bilinear" && interpolation != "nearest") {
    throw ValueError(layer + ": 'interpolation' must be 'bilinear' or 'nearest', got '" + interpolation + "'");
  }
}

Output affine_images(Output images, Output transforms, const std::string& data_format,
                     const std::string& interpolation, const std::string& fill_mode, double fill_value) {
  const bool first = is_channels_first(data_format);
  const Output y = ops::image_affine_transform(first ? to_channels_last(images) : images, transforms,
                                               {.interpolation = interpolation,
                                                .fill_mode = fill_mode,
                                                .fill_value = static_cast<float>(fill_value)});
  return first ? to_channels_first(y) : y;
}

Output transform_value_range(Output images, const PerChannel& from, const PerChannel& to) {
  if (from.values == to.values) return images;
  const auto from_lo = static_cast<float>(from.values[0]), from_hi = static_cast<float>(from.values[1]);
  const auto to_lo = static_cast<float>(to.values[0]), to_hi = static_cast<float>(to.values[1]);
  return ops::add(ops::mul(ops::div(ops::sub(images, from_lo), from_hi - from_lo), to_hi - to_lo), to_lo);
}

Output filter_images(Output images, const std::string& data_format, std::int64_t kh, std::int64_t kw,
                     const std::function<Output(Output shifted, std::int64_t r, std::int64_t c)>& weigh) {
  const auto [height_axis, width_axis] = image_axes(data_format);
  const auto h = static_cast<std::size_t>(height_axis), w = static_cast<std::size_t>(width_axis);
  std::vector<std::int64_t> before(4, 0), after(4, 0);
  before[h] = after[h] = (kh - 1) / 2;
  before[w] = after[w] = (kw - 1) / 2;
  const Output padded = ops::pad(images, before, after);
  Output sum;
  for (std::int64_t r = 0; r < kh; ++r) {
    for (std::int64_t c = 0; c < kw; ++c) {
      std::vector<std::int64_t> from(4, 0), to(4, 0);
      from[h] = r;
      to[h] = kh - 1 - r;
      from[w] = c;
      to[w] = kw - 1 - c;
      const Output tap = weigh(ops::crop(padded, from, to), r, c);
      sum = sum.valid() ? ops::add(sum, tap) : tap;
    }
  }
  return sum;
}

Output draw_column(Output draws, std::int64_t column) {
  const std::int64_t columns = draws.shape().dims()[1];
  return ops::crop(draws, {0, column}, {0, columns - column - 1});
}

Output uniform_between(Output u, double lower, double upper) {
  return ops::add(ops::mul(u, static_cast<float>(upper - lower)), static_cast<float>(lower));
}

Output transform_rows(const std::vector<Output>& pieces) { return ops::concat(pieces, 1); }

Output log_gamma_draws(Output u, std::int64_t first, Output alpha) {
  const auto column = [&](std::int64_t k) { return draw_column(u, first + k); };
  // Marsaglia and Tsang for shape s = alpha + 1: d = s - 1/3, c = 1 / sqrt(9 d); a normal
  // x gives v = (1 + c x)^3, d v accepted where v > 0 and log U < x^2 / 2 + d - d v + d log v.
  const Output d = ops::add(alpha, 2.0f / 3.0f);
  const Output c = ops::div(1.0f, ops::sqrt(ops::mul(d, 9.0f)));
  Output result;
  for (std::int64_t k = kGammaTries - 1; k >= 0; --k) {
    // Box-Muller: 1 - u lies in (0, 1], whose log is finite.
    const Output radius = ops::sqrt(ops::mul(ops::log(ops::sub(1.0f, column(3 * k))), -2.0f));
    const Output x = ops::mul(radius, ops::cos(ops::mul(column(3 * k + 1), static_cast<float>(2 * std::numbers::pi))));
    const Output t = ops::add(ops::mul(c, x), 1.0f);
    const Output v = ops::mul(ops::mul(t, t), t);
    const Output log_v = ops::log(ops::maximum(v, 1e-30f));
    const Output bound =
        ops::add(ops::add(ops::mul(ops::mul(x, x), 0.5f), d), ops::sub(ops::mul(d, log_v), ops::mul(d, v)));
    const Output accept =
        ops::mul(ops::greater(v, ops::zeros_like(v)), ops::less(ops::log(ops::sub(1.0f, column(3 * k + 2))), bound));
    const Output candidate = ops::add(ops::log(d), log_v);
    result = k == kGammaTries - 1 ? candidate : ops::where(accept, candidate, result);
  }
  // Gamma(alpha) = Gamma(alpha + 1) U^(1 / alpha).
  return ops::add(result, ops::div(ops::log(ops::sub(1.0f, column(3 * kGammaTries))), alpha));
}

Output beta_draws(Output uniforms, Output alpha) {
  return ops::sigmoid(ops::sub(log_gamma_draws(uniforms, 0, alpha), log_gamma_draws(uniforms, kGammaColumns, alpha)));
}

Output take_images(Output images, Output order) {
  const auto& dims = images.shape().dims();
  std::int64_t size = 1;
  for (std::size_t i = 1; i < dims.size(); ++i) {
    if (dims[i] < 0) throw ShapeError("take_images: needs the images' shape, got " + images.shape().to_string());
    size *= dims[i];
  }
  const Output rows = ops::embedding_lookup(ops::reshape(images, {-1, size}), order, "take_images");
  std::vector<std::int64_t> shape(dims.begin(), dims.end());
  shape[0] = -1;
  return ops::reshape(rows, shape);
}

Output shuffled_order(Output u) { return ops::argsort(ops::reshape(u, {-1}), 0); }

}  // namespace strata::layers
