#include "layers/preprocessing/auto_contrast.h"

#include <algorithm>

#include "core/error.h"
#include "core/ops.h"
#include "layers/convolutional/conv_utils.h"
#include "layers/preprocessing/augmentation.h"

namespace strata::layers {

AutoContrastImpl::AutoContrastImpl(AutoContrastOptions o) : LayerImpl("AutoContrast", o.name), options(std::move(o)) {
  check_and_sort_value_range("AutoContrast '" + name + "'", options.value_range);
  is_channels_first(options.data_format);  // validates
}

std::vector<Output> AutoContrastImpl::call(Graph&, const std::vector<Output>& inputs) {
  const Output& original = inputs[0];
  expect_image_batch(original, "AutoContrast '" + name + "'");
  const PerChannel full{0.0, 255.0};
  const Output x = transform_value_range(original, options.value_range, full);
  const Output low = ops::neg(ops::reduce_max(ops::neg(x), {1, 2}, true));
  const Output high = ops::reduce_max(x, {1, 2}, true);
  // Where high == low the scale is infinite and Keras's result NaN, which it replaces by
  // the input: the same here, without computing the NaN.
  const Output flat = ops::equal(high, low);
  const Output range = ops::where(flat, ops::ones_like(high), ops::sub(high, low));
  const Output scale = ops::div(255.f, range);
  const Output stretched = ops::clip(ops::add(ops::mul(x, scale), ops::mul(ops::neg(low), scale)), 0.f, 255.f);
  const Output y = transform_value_range(stretched, full, options.value_range);
  return {ops::where(ops::broadcast_like(flat, original), original, y)};
}

AutoContrast::AutoContrast(AutoContrastOptions options)
    : Layer(std::make_shared<AutoContrastImpl>(std::move(options))) {}

namespace {
const bool auto_contrast_registered =
    register_keras_class(describe_layer<AutoContrast>("AutoContrast", &AutoContrastImpl::options));
}  // namespace

}  // namespace strata::layers
