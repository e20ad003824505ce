// resize_weights: the interpolation matrix of one axis of an image resize (Resizing,
// UpSampling2D's interpolating modes) or of adaptive average pooling, made when the
// program runs from the size the axis has then, for axes that are None when the model is
// defined. The matrix is (input size, output size): x's axis moved last, times it, is the
// resized axis. Its weights are core/resize_weights.h's (TensorFlow's arithmetic), the ones
// the layers' matrices for known sizes hold. The devices register their kernels (the CPU's
// in cpu/kernels/resize.cc, CUDA's in cuda/resize_kernels.cc).
#pragma once

#include <cstdint>
#include <string>

#include "core/graph.h"
#include "core/resize_weights.h"

namespace strata::ops {

// Keras's interpolation name as a ResizeKind: bilinear, nearest, bicubic, area, lanczos3,
// lanczos5; with `antialias`, the kind TF's resize then computes (nearest and area ignore
// it). Throws ValueError naming `where` and the value for any other.
ResizeKind resize_kind_of(const std::string& where, const std::string& interpolation, bool antialias = false);

// Which axis of x is resized, and to what size.
struct ResizeWeightsOptions {
  int axis = 1;
  ResizeKind kind = ResizeKind::bilinear;
  // The output size: `size` when positive, else the input's times `scale`.
  std::int64_t size = 0;
  std::int64_t scale = 0;
  // Keras's crop_to_aspect_ratio: when other_axis >= 0, only the centered window of the
  // largest (axis : other_axis) region with the ratio size : other_size is resized.
  int other_axis = -1;
  std::int64_t other_size = 0;
  // Keras's pad_to_aspect_ratio instead (with other_axis): the axis padded on both sides by
  // half of what the smallest region with that ratio adds (rounded down, as Keras), and
  // the padded window resized; the padding's weights are dropped, so the matrix applies to
  // images from which the fill value was subtracted.
  bool pad_to_aspect_ratio = false;
};

// The (x.shape[axis], output size) float32 matrix; x is read for its shape only. No
// gradient flows through it (it depends on no value of x).
Output resize_weights(Output x, const ResizeWeightsOptions& options);

// What resize_weights' kernels write, from the node and x's shape when it runs.
struct ResizeWeightsPlan {
  std::int64_t in_size = 0, out_size = 0;
  std::int64_t start = 0, size = 0;  // the window of the input resized (start < 0: padded)
  ResizeKind kind = ResizeKind::bilinear;
};
ResizeWeightsPlan resize_weights_plan_of(const Node& node, const Shape& x);

}  // namespace strata::ops
