#include "layers/preprocessing/clahe.h"

#include "core/error.h"
#include "core/ops.h"
#include "core/ops/image_ops.h"
#include "layers/preprocessing/augmentation.h"

namespace strata::layers {

ContrastLimitedAdaptiveHistogramEqualizationImpl::ContrastLimitedAdaptiveHistogramEqualizationImpl(
    ContrastLimitedAdaptiveHistogramEqualizationOptions o)
    : LayerImpl("ContrastLimitedAdaptiveHistogramEqualization", o.name), options(std::move(o)) {
  const std::string where = "ContrastLimitedAdaptiveHistogramEqualization '" + name + "'";
  check_value_range(where, options.value_range);
  if (options.value_range.values[0] == options.value_range.values[1]) {
    throw ValueError(where + ": 'value_range' must have two different ends, got [" +
                     std::to_string(options.value_range.values[0]) + ", " +
                     std::to_string(options.value_range.values[1]) + "]");
  }
  const IntPair& grid = options.tile_grid_size;
  if (grid.first < 1 || grid.second < 1) {
    throw ValueError(where + ": 'tile_grid_size' must be two integers of at least 1, got [" +
                     std::to_string(grid.first) + ", " + std::to_string(grid.second) + "]");
  }
  is_channels_first(options.data_format);  // validates
}

std::vector<Output> ContrastLimitedAdaptiveHistogramEqualizationImpl::call(Graph&, const std::vector<Output>& inputs) {
  const Output& original = inputs[0];
  const std::string where = "ContrastLimitedAdaptiveHistogramEqualization '" + name + "'";
  expect_image_batch(original, where);
  const bool first = is_channels_first(options.data_format);
  const PerChannel full{0.0, 255.0};
  Output x = transform_value_range(first ? to_channels_last(original) : original, options.value_range, full);
  Output tables;
  try {
    tables = ops::clahe_tables(x, options.tile_grid_size.first, options.tile_grid_size.second, options.clip_limit);
  } catch (const ShapeError& e) {
    throw ShapeError(where + ": " + e.what());
  }
  const Output y = transform_value_range(ops::clahe_interpolate(x, tables), full, options.value_range);
  return {first ? to_channels_first(y) : y};
}

ContrastLimitedAdaptiveHistogramEqualization::ContrastLimitedAdaptiveHistogramEqualization(
    ContrastLimitedAdaptiveHistogramEqualizationOptions options)
    : Layer(std::make_shared<ContrastLimitedAdaptiveHistogramEqualizationImpl>(std::move(options))) {}

namespace {
const bool clahe_registered = register_keras_class(describe_layer<ContrastLimitedAdaptiveHistogramEqualization>(
    "ContrastLimitedAdaptiveHistogramEqualization", &ContrastLimitedAdaptiveHistogramEqualizationImpl::options));
}  // namespace

}  // namespace strata::layers
