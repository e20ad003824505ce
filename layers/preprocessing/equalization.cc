#include "layers/preprocessing/equalization.h"

#include <algorithm>

#include "core/error.h"
#include "core/ops.h"
#include "core/ops/array_ops.h"
#include "core/ops/one_hot.h"
#include "core/ops/scan_ops.h"
#include "core/ops/sequence_ops.h"
#include "layers/convolutional/conv_utils.h"
#include "layers/preprocessing/augmentation.h"

namespace strata::layers {

namespace {

// Keras's _scale_values: x · scale + offset, both worked out in double from the ranges.
Output scale_values(Output x, double from_lo, double from_hi, double to_lo, double to_hi) {
  const double scale = (to_hi - to_lo) / (from_hi - from_lo);
  return ops::add(ops::mul(x, static_cast<float>(scale)), static_cast<float>(to_lo - from_lo * scale));
}

}  // namespace

EqualizationImpl::EqualizationImpl(EqualizationOptions o) : LayerImpl("Equalization", o.name), options(std::move(o)) {
  const std::string where = "Equalization '" + name + "'";
  check_and_sort_value_range(where, options.value_range);
  if (options.bins < 1) throw ValueError(where + ": 'bins' must be at least 1, got " + std::to_string(options.bins));
  is_channels_first(options.data_format);  // validates
}

Output EqualizationImpl::transform(Output images) const {
  const std::string where = "Equalization '" + name + "'";
  expect_image_batch(images, where);
  const bool first = is_channels_first(options.data_format);
  const Output x = first ? to_channels_last(images) : images;
  const std::int64_t channels = x.shape().dims()[3];
  if (channels < 1) {
    throw ShapeError(where + ": needs the images' channel count, got shape " + images.shape().to_string());
  }
  const auto bins = static_cast<float>(options.bins);
  const double lo = options.value_range.values[0], hi = options.value_range.values[1];
  const Output bytes = scale_values(x, lo, hi, 0.0, 255.0);
  // Each pixel's bin for the histogram (Keras's first formula) and for the lookup (its second).
  const auto bin_of = [&](Output scaled) { return ops::trunc(ops::clip(scaled, 0.0f, bins - 1.0f)); };
  const Output histogram_bins = bin_of(ops::div(ops::mul(bytes, bins - 1.0f), 255.0f));
  const Output lookup_bins = bin_of(ops::mul(ops::div(bytes, 255.0f), bins - 1.0f));
  // (channels, bins) counts over the batch.
  const Output per_channel =
      ops::cast(ops::reshape(ops::transpose(histogram_bins, {3, 0, 1, 2}), {channels, -1}), DType::int64);
  const Output histogram = ops::categorical_encode(per_channel, options.bins, "count");
  const Output cdf = ops::cumsum(histogram, 1);
  const Output filled_bins = ops::reduce_sum(ops::greater(histogram, ops::zeros_like(histogram)), {1}, true);
  const Output cdf_min = ops::neg(ops::reduce_max(
      ops::where(ops::greater(cdf, ops::zeros_like(cdf)), ops::neg(cdf), ops::fill_like(cdf, -3.0e38f)), {1}, true));
  const Output total = ops::crop(cdf, {0, options.bins - 1}, {0, 0});
  Output denominator = ops::sub(total, cdf_min);
  denominator = ops::where(ops::equal(denominator, ops::zeros_like(denominator)), ops::ones_like(denominator),
                           denominator);
  const Output table = ops::clip(ops::round(ops::div(ops::mul(ops::sub(cdf, cdf_min), 255.0f), denominator)), 0.0f,
                                 255.0f);
  // Row c · bins + bin of the (channels · bins, 1) table.
  const Output channel_index = ops::sub(ops::cumsum(ops::ones_like(x), 3), 1.0f);
  const Output ids = ops::cast(ops::add(ops::mul(channel_index, bins), lookup_bins), DType::int64);
  const Output equalized =
      ops::reshape_like(ops::embedding_lookup(ops::reshape(table, {-1, 1}), ids, where), x);
  const Output keep = ops::reshape(ops::less_equal(filled_bins, ops::ones_like(filled_bins)), {1, 1, 1, channels});
  const Output y = scale_values(ops::where(keep, bytes, equalized), 0.0, 255.0, lo, hi);
  return first ? to_channels_first(y) : y;
}

std::vector<Output> EqualizationImpl::call(Graph&, const std::vector<Output>& inputs) {
  const Output& x = inputs[0];
  return {ops::training_select(transform(x), x)};
}

Equalization::Equalization(EqualizationOptions options)
    : Layer(std::make_shared<EqualizationImpl>(std::move(options))) {}

namespace {
const bool equalization_registered =
    register_keras_class(describe_layer<Equalization>("Equalization", &EqualizationImpl::options));
}  // namespace

}  // namespace strata::layers
