#include "layers/preprocessing/random_gaussian_blur.h"

#include "core/error.h"
#include "core/ops.h"
#include "core/ops/array_ops.h"
#include "core/ops/random_ops.h"
#include "core/rng.h"
#include "layers/preprocessing/augmentation.h"

namespace strata::layers {

namespace {

// Keras's normalized 1-D gaussian kernel of `size` taps for `sigma` (1, 1): its taps.
std::vector<Output> gaussian_taps(Output sigma, std::int64_t size) {
  std::vector<Output> taps;
  Output sum;
  for (std::int64_t i = 0; i < size; ++i) {
    const auto x = static_cast<float>(static_cast<double>(i) - static_cast<double>(size - 1) / 2.0);
    taps.push_back(ops::exp(ops::mul(ops::square(ops::div(x, sigma)), -0.5f)));
    sum = sum.valid() ? ops::add(sum, taps.back()) : taps.back();
  }
  for (Output& t : taps) t = ops::div(t, sum);
  return taps;
}

}  // namespace

RandomGaussianBlurImpl::RandomGaussianBlurImpl(RandomGaussianBlurOptions o)
    : LayerImpl("RandomGaussianBlur", o.name), seed(o.seed ? *o.seed : next_seed()), options(std::move(o)) {
  const std::string where = "RandomGaussianBlur '" + name + "'";
  const FactorRange factor = base_factor(where, options.factor, 0.0, 1.0);
  factor_lower_ = factor.lower;
  factor_upper_ = factor.upper;
  options.factor = PerChannel{factor.lower, factor.upper};
  const FactorRange sigma = base_factor(where + " ('sigma')", options.sigma, 0.0, 1.0);
  sigma_lower_ = sigma.lower;
  sigma_upper_ = sigma.upper;
  options.sigma = PerChannel{sigma.lower, sigma.upper};
  for (std::int64_t k : {options.kernel_size.first, options.kernel_size.second}) {
    if (k < 1 || k % 2 == 0) {
      throw ValueError(where + ": 'kernel_size' must be odd, got [" + std::to_string(options.kernel_size.first) +
                       ", " + std::to_string(options.kernel_size.second) + "]");
    }
  }
  check_value_range(where, options.value_range);
  is_channels_first(options.data_format);  // validates
}

Output RandomGaussianBlurImpl::transform(Output images, Output sigma, Output apply) const {
  const std::int64_t kh = options.kernel_size.first, kw = options.kernel_size.second;
  // Keras: the outer product of the kernel along y (kw taps, sigma_y) and along x (kh taps,
  // sigma_x), (kw, kh), read as (kh, kw) row by row.
  const std::vector<Output> along_x = gaussian_taps(draw_column(sigma, 0), kh);
  const std::vector<Output> along_y = gaussian_taps(draw_column(sigma, 1), kw);
  const Output blurred = filter_images(images, options.data_format, kh, kw, [&](Output shifted, std::int64_t r,
                                                                                  std::int64_t c) {
    const std::int64_t m = r * kw + c;
    const auto y = static_cast<std::size_t>(m / kh), x = static_cast<std::size_t>(m % kh);
    const Output weight = ops::mul(along_y[y], along_x[x]);
    return ops::mul(shifted, ops::reshape(weight, {1, 1, 1, 1}));
  });
  return ops::clip(ops::where(apply, blurred, images), static_cast<float>(options.value_range.values[0]),
                   static_cast<float>(options.value_range.values[1]));
}

std::vector<Output> RandomGaussianBlurImpl::call(Graph&, const std::vector<Output>& inputs) {
  const Output& x = inputs[0];
  expect_image_batch(x, "RandomGaussianBlur '" + name + "'");
  const auto stream = static_cast<std::uint64_t>(current_call);
  // Per image: the probability and the draw compared with it. Per batch (another stream, so
  // that its row is not the first image's): sigma_x and sigma_y.
  const Output u = ops::random_uniform_rows(x, 2, true, seed, stream);
  const Output apply = ops::reshape(
      ops::less(draw_column(u, 1), uniform_between(draw_column(u, 0), factor_lower_, factor_upper_)), {-1, 1, 1, 1});
  const Output sigma = ops::add(
      uniform_between(ops::random_uniform_rows(x, 2, false, seed, stream + (std::uint64_t{1} << 32)), sigma_lower_,
                      sigma_upper_),
      1e-6f);
  return {ops::training_select(transform(x, sigma, apply), x)};
}

RandomGaussianBlur::RandomGaussianBlur(RandomGaussianBlurOptions options)
    : Layer(std::make_shared<RandomGaussianBlurImpl>(std::move(options))) {}

namespace {
const bool random_gaussian_blur_registered =
    register_keras_class(describe_layer<RandomGaussianBlur>("RandomGaussianBlur", &RandomGaussianBlurImpl::options));
}  // namespace

}  // namespace strata::layers
