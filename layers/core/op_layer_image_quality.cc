// keras.ops image quality measures (issue #38): psnr and image.ssim, composed of graph ops in
// Keras's own formulas (psnr: its TensorFlow backend's; ssim: keras.src.ops.image._ssim, which
// every backend runs), so each runs on every device those ops run on, with their gradients.
#include <cmath>
#include <cstdint>
#include <map>
#include <string>
#include <vector>

#include "core/error.h"
#include "core/ops.h"
#include "core/ops/array_ops.h"
#include "core/ops/conv_ops.h"
#include "layers/core/op_call.h"

namespace strata::layers::op_detail {

namespace {

using C = const OpCall&;

void same_shapes(C c, const Output& a, const Output& b) {
  if (a.shape() != b.shape())
    throw ShapeError(c.where + ": input shapes " + a.shape().to_string() + " and " + b.shape().to_string() +
                     " must match");
}

// Keras's log10 on TensorFlow: ln(x) / ln(10), both in float32.
Output log10_of(Output x) { return ops::div(ops::log(x), std::log(10.0f)); }

// 20 log10(max_val) − 10 log10(mean((x1 − x2)²)), the mean over every element of the batch:
// one number, as Keras's (a result of shape ()).
Output psnr(C c) {
  const Output x1 = c.arg(0), x2 = c.arg(1);
  same_shapes(c, x1, x2);
  std::vector<std::int64_t> every_axis;
  for (int a = 0; a < rank_of(x1); ++a) every_axis.push_back(a);
  const Output mse = ops::reduce_mean(ops::square(ops::sub(x1, x2)), every_axis, false);
  const float max_val = static_cast<float>(c.number("max_val"));
  const float peak = 20.0f * (std::log(max_val) / std::log(10.0f));
  return ops::sub(ops::fill_like(mse, peak), ops::mul(log10_of(mse), 10.0f));
}

// Keras's _create_gaussian_kernel in float32: exp(−x² / (2σ²)) over x = 0 .. size − 1 centred,
// normalized to sum 1, and its outer product with itself, as a (size, size, 1, 1) conv kernel.
Tensor gaussian_kernel(std::int64_t size, float sigma) {
  std::vector<float> g(static_cast<std::size_t>(size));
  float sum = 0.f;
  for (std::int64_t i = 0; i < size; ++i) {
    const float x = static_cast<float>(i) - static_cast<float>(size - 1) / 2.0f;
    g[static_cast<std::size_t>(i)] = std::exp(-(x * x) / (2.0f * sigma * sigma));
    sum += g[static_cast<std::size_t>(i)];
  }
  for (float& v : g) v /= sum;
  std::vector<float> k;
  for (float a : g)
    for (float b : g) k.push_back(a * b);
  return Tensor::from_vector(Shape{size, size, 1, 1}, k);
}

// keras.ops.image.ssim: each channel of each image filtered alone by a Gaussian (a valid
// convolution), SSIM's map (2 μ1μ2 + c1)(2 σ12 + c2) / ((μ1² + μ2² + c1)(σ1² + σ2² + c2))
// averaged over the image, then over the channels: one value per image.
Output ssim(C c) {
  const Output x1 = c.arg(0), x2 = c.arg(1);
  same_shapes(c, x1, x2);
  if (rank_of(x1) != 4)
    throw NotImplementedError(c.where + ": images " + x1.shape().to_string() +
                              " are not supported (a batch of images, rank 4, is; Keras reads rank 3 as one image, "
                              "whose rows would be the batch)");
  const std::string format = c.text("data_format");
  if (!format.empty() && format != "channels_last" && format != "channels_first")
    refuse(c, "data_format", "only 'channels_last' and 'channels_first' are");
  const bool first = format == "channels_first";
  const std::int64_t height = known_size(c, "image1", x1, first ? 2 : 1);
  const std::int64_t width = known_size(c, "image1", x1, first ? 3 : 2);
  const std::int64_t channels = known_size(c, "image1", x1, first ? 1 : 3);
  const double size_value = c.has("filter_size") ? c.number("filter_size") : 11.0;
  const auto size = static_cast<std::int64_t>(size_value);
  if (size < 1 || static_cast<double>(size) != size_value) refuse(c, "filter_size", "a positive integer is needed");
  if (size > height || size > width)
    throw ShapeError(c.where + ": filter_size " + std::to_string(size) + " exceeds the images " +
                     x1.shape().to_string());
  const float sigma = c.has("filter_sigma") ? static_cast<float>(c.number("filter_sigma")) : 1.5f;
  const float max_val = c.has("max_val") ? static_cast<float>(c.number("max_val")) : 1.0f;
  const float k1 = c.has("k1") ? static_cast<float>(c.number("k1")) : 0.01f;
  const float k2 = c.has("k2") ? static_cast<float>(c.number("k2")) : 0.03f;
  const float c1 = (k1 * max_val) * (k1 * max_val), c2 = (k2 * max_val) * (k2 * max_val);
  const Output kernel = c.graph.variable(Variable(c.where + "/gaussian", gaussian_kernel(size, sigma), false));
  // (B, H, W, C) -> (B, C, H, W) -> (B·C, H, W, 1): every channel an image of its own.
  auto per_channel = [&](const Output& x) {
    const Output planes = first ? x : ops::transpose(x, {0, 3, 1, 2});
    return ops::reshape(planes, {-1, height, width, 1});
  };
  auto filtered = [&](const Output& x) { return ops::conv2d(x, kernel, ops::Conv2DParams{}); };
  const Output a = per_channel(x1), b = per_channel(x2);
  const Output mu1 = filtered(a), mu2 = filtered(b);
  const Output mu1_sq = ops::mul(mu1, mu1), mu2_sq = ops::mul(mu2, mu2), mu1_mu2 = ops::mul(mu1, mu2);
  const Output sigma1_sq = ops::sub(filtered(ops::mul(a, a)), mu1_sq);
  const Output sigma2_sq = ops::sub(filtered(ops::mul(b, b)), mu2_sq);
  const Output sigma12 = ops::sub(filtered(ops::mul(a, b)), mu1_mu2);
  const Output numerator = ops::mul(ops::add(ops::mul(mu1_mu2, 2.0f), c1), ops::add(ops::mul(sigma12, 2.0f), c2));
  const Output denominator =
      ops::mul(ops::add(ops::add(mu1_sq, mu2_sq), c1), ops::add(ops::add(sigma1_sq, sigma2_sq), c2));
  const Output per_plane = ops::reduce_mean(ops::div(numerator, denominator), {1, 2, 3}, false);
  return ops::reduce_mean(ops::reshape(per_plane, {-1, channels}), {1}, false);
}

}  // namespace

const std::map<std::string, OpFn>& image_quality_ops() {
  static const std::map<std::string, OpFn> t = {
      {"PSNR", psnr},
      {"SSIM", ssim},
  };
  return t;
}

}  // namespace strata::layers::op_detail
