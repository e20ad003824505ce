#include "layers/preprocessing/color_space.h"

#include "core/ops.h"
#include "core/ops/array_ops.h"
#include "layers/convolutional/conv_utils.h"

namespace strata::layers {

namespace {

int channel_axis(const std::string& data_format) { return is_channels_first(data_format) ? 1 : 3; }

}  // namespace

Output image_channel(Output images, const std::string& data_format, std::int64_t c) {
  const auto axis = static_cast<std::size_t>(channel_axis(data_format));
  const std::int64_t channels = images.shape().dims()[axis];
  std::vector<std::int64_t> before(4, 0), after(4, 0);
  before[axis] = c;
  after[axis] = channels - c - 1;
  return ops::crop(images, before, after);
}

Output join_channels(const std::vector<Output>& channels, const std::string& data_format) {
  return ops::concat(channels, channel_axis(data_format));
}

Output rgb_to_hsv(Output images, const std::string& data_format) {
  const Output r = image_channel(images, data_format, 0), g = image_channel(images, data_format, 1),
               b = image_channel(images, data_format, 2);
  const Output v = ops::maximum(ops::maximum(r, g), b);
  const Output range = ops::sub(v, ops::minimum(ops::minimum(r, g), b));
  const Output zero = ops::zeros_like(v);
  // The divisions read 1 where their result is not taken, so that no inf or NaN reaches a
  // gradient.
  const Output v_positive = ops::greater(v, zero), range_positive = ops::greater(range, zero);
  const Output s = ops::where(v_positive, ops::div(range, ops::where(v_positive, v, ops::ones_like(v))), zero);
  const Output norm = ops::mul(ops::div(1.0f, ops::where(range_positive, range, ops::ones_like(range))), 1.0f / 6.0f);
  Output h = ops::where(ops::equal(r, v), ops::mul(norm, ops::sub(g, b)),
                        ops::where(ops::equal(g, v), ops::add(ops::mul(norm, ops::sub(b, r)), 2.0f / 6.0f),
                                   ops::add(ops::mul(norm, ops::sub(r, g)), 4.0f / 6.0f)));
  h = ops::where(range_positive, h, zero);
  h = ops::where(ops::less(h, zero), ops::add(h, 1.0f), h);
  return join_channels({h, s, v}, data_format);
}

Output hsv_to_rgb(Output images, const std::string& data_format) {
  const Output h = image_channel(images, data_format, 0), s = image_channel(images, data_format, 1),
               v = image_channel(images, data_format, 2);
  const Output dh = ops::mul(h, 6.0f);
  const auto ramp = [&](float centre, bool rising) {  // clip(|6h - centre| - 1) or clip(2 - |6h - centre|)
    const Output distance = ops::abs(ops::sub(dh, centre));
    return ops::clip(rising ? ops::sub(distance, 1.0f) : ops::sub(2.0f, distance), 0.0f, 1.0f);
  };
  const Output one_minus_s = ops::sub(1.0f, s);
  const auto channel = [&](const Output& d) { return ops::mul(ops::add(one_minus_s, ops::mul(s, d)), v); };
  return join_channels({channel(ramp(3.0f, true)), channel(ramp(2.0f, false)), channel(ramp(4.0f, false))},
                       data_format);
}

}  // namespace strata::layers
