// RandomGaussianBlur: in training, each image blurred with probability p (p drawn per image
// from Keras's factor, bounds [0, 1]: a number f is [0, f], and compared with a second
// draw, as Keras) by Keras's gaussian kernel: one (sigma_x, sigma_y) per batch drawn from
// sigma (bounds [0, 1], as Keras), plus 1e-6; 1-D kernels exp(-x² / 2σ²), normalized, over
// kernel_size (odd); their outer product laid out as Keras lays it (for a kernel that is not
// square, Keras's reshape of the (width, height) product into (height, width)); applied per
// channel with zero padding. Every image is then clipped to value_range, as Keras. Identity
// in inference. Gradients flow as through the arithmetic.
#pragma once

#include <cstdint>
#include <optional>
#include <string>

#include "layers/convolutional/conv_utils.h"
#include "layers/keras_class.h"
#include "layers/layer.h"
#include "layers/per_channel.h"

namespace strata::layers {

struct RandomGaussianBlurOptions {  // Keras signature order
  PerChannel factor = 1.0;      // Keras keeps and writes the [lower, upper] pair
  IntPair kernel_size = 3;      // odd, (height, width)
  PerChannel sigma = 1.0;       // Keras keeps and writes the [lower, upper] pair
  PerChannel value_range = {0.0, 255.0};  // kept as given, as Keras
  std::string data_format;                // "" = "channels_last"
  std::optional<std::uint64_t> seed;      // default: drawn from the global seed generator
  std::string name;
  DTypePolicyName dtype;  // Keras's dtype=: this layer's dtype policy ("" the global one)

  static constexpr auto keras_fields() {
    return std::tuple{keras_field("factor", &RandomGaussianBlurOptions::factor),
                      keras_field("kernel_size", &RandomGaussianBlurOptions::kernel_size),
                      keras_field("sigma", &RandomGaussianBlurOptions::sigma),
                      keras_field("value_range", &RandomGaussianBlurOptions::value_range),
                      keras_field("data_format", &RandomGaussianBlurOptions::data_format, Spelling::data_format),
                      keras_field("seed", &RandomGaussianBlurOptions::seed)};
  }
};

class RandomGaussianBlurImpl : public LayerImpl {
 public:
  explicit RandomGaussianBlurImpl(RandomGaussianBlurOptions options);
  std::vector<Output> call(Graph& graph, const std::vector<Output>& inputs) override;
  // The training transform with Keras's parameters given: `sigma` (1, 2), Keras's
  // blur_factor (1e-6 included); `apply` (batch, 1, 1, 1), 1 where the image is blurred.
  Output transform(Output images, Output sigma, Output apply) const;

  std::uint64_t seed;  // options.seed, or drawn
  RandomGaussianBlurOptions options;

 private:
  double factor_lower_ = 0.0, factor_upper_ = 0.0, sigma_lower_ = 0.0, sigma_upper_ = 0.0;
};

class RandomGaussianBlur : public Layer {
 public:
  explicit RandomGaussianBlur(RandomGaussianBlurOptions options = {});
};

}  // namespace strata::layers
