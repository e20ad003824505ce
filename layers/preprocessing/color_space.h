// RGB <-> HSV of a batch of images, as TensorFlow's tf.image.rgb_to_hsv and hsv_to_rgb
// compute them (the kernels keras.ops.image.rgb_to_hsv and hsv_to_rgb run on the TensorFlow
// backend), built from elementwise ops so that every device that has those runs them: hue
// in [0, 1), saturation (max - min) / max (0 where max is 0), value max; back, each channel
// (1 - s + s · clip(ramp(6h))) · v. Images are rank 4 with three channels on the
// data_format's channel axis.
#pragma once

#include <string>
#include <vector>

#include "core/graph.h"

namespace strata::layers {

// Channel c of `images` (size 1 on the channel axis).
Output image_channel(Output images, const std::string& data_format, std::int64_t c);

// The three channels joined on the data_format's channel axis.
Output join_channels(const std::vector<Output>& channels, const std::string& data_format);

Output rgb_to_hsv(Output images, const std::string& data_format);
Output hsv_to_rgb(Output images, const std::string& data_format);

}  // namespace strata::layers
