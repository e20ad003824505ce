// What Keras's image augmentation layers (RandomFlip, RandomRotation, RandomZoom,
// RandomTranslation, RandomContrast, RandomBrightness, RandomCrop) share: their factor
// arguments read as Keras reads them, their per-image random draws, and their images'
// layout. Each layer draws its parameters with ops::random_uniform_rows keyed on (the
// layer's seed, the call, the step), as Dropout's masks: the same seed gives the same
// augmentations, and training resumed from a checkpoint draws what it would have drawn.
// In inference every one of them is the identity (RandomCrop: its centre window), chosen
// by ops::training_select, so an inference program draws nothing.
#pragma once

#include <cstdint>
#include <functional>
#include <string>
#include <utility>
#include <vector>

#include "core/graph.h"
#include "core/ops/image_ops.h"
#include "layers/per_channel.h"

namespace strata::layers {

// A factor's [lower, upper] range.
struct FactorRange {
  double lower = 0.0;
  double upper = 0.0;
};

// Keras's BaseImagePreprocessingLayer._set_factor, for a factor within [min, max]: a number
// f gives [max(-|f|, min), |f|]; a pair is sorted. ValueError, naming `layer` and the
// value, for a number outside [min, max], a pair wholly outside it, or another length.
FactorRange base_factor(const std::string& layer, const PerChannel& factor, double min, double max);

// RandomTranslation's and RandomZoom's own reading of height_factor / width_factor: a
// number f gives [-|f|, |f|], a pair is sorted; every value must lie in [-1, 1] (RandomZoom:
// in (-1, 1], a zoom of -100% being no image). ValueError naming layer, key and value.
FactorRange shift_factor(const std::string& layer, const std::string& key, const PerChannel& factor,
                         bool above_minus_one);

// Throws ValueError, naming the layer, unless value_range is two numbers.
void check_value_range(const std::string& layer, const PerChannel& value_range);
// check_value_range, then the pair in increasing order, as the layers that keep it sorted
// (as Keras does for them) write it.
void check_and_sort_value_range(const std::string& layer, PerChannel& value_range);
// check_value_range, then refuses a pair that is not increasing (AugMix, RandAugment: Keras
// scales by value_range[1] - value_range[0]).
void check_increasing_value_range(const std::string& layer, const PerChannel& value_range);

// The (height axis, width axis) of a batch of images in `data_format`.
std::pair<int, int> image_axes(const std::string& data_format);

// Throws ShapeError, naming the layer, unless `images` is a rank-4 batch.
void expect_image_batch(const Output& images, const std::string& layer);

// Throws ShapeError, naming the layer, unless `images` has three channels (RGB) on the
// data_format's channel axis.
void expect_rgb_images(const Output& images, const std::string& data_format, const std::string& layer);

// Throws ValueError, naming layer, key and value, unless fill_mode is one of Keras's
// "reflect", "wrap", "constant", "nearest" and interpolation "bilinear" or "nearest".
void check_fill(const std::string& layer, const std::string& fill_mode, const std::string& interpolation);

// ops::image_affine_transform of images in `data_format` (channels first moved last and
// back), with the layer's fill and interpolation.
Output affine_images(Output images, Output transforms, const std::string& data_format,
                     const std::string& interpolation, const std::string& fill_mode, double fill_value);

// Keras's _transform_value_range: images mapped linearly from `from` to `to` (as they are
// when the ranges are equal).
Output transform_value_range(Output images, const PerChannel& from, const PerChannel& to);

// A depthwise filter of odd size kh x kw over each image and channel with zero padding
// ("same", as Keras's depthwise_conv): the sum over the window's taps (r, c) of
// weigh(images shifted by the tap, r, c).
Output filter_images(Output images, const std::string& data_format, std::int64_t kh, std::int64_t kw,
                     const std::function<Output(Output shifted, std::int64_t r, std::int64_t c)>& weigh);

// (batch, 1) column `column` of `draws`.
Output draw_column(Output draws, std::int64_t column);

// lower + u (upper - lower), as keras.random.uniform(minval=lower, maxval=upper).
Output uniform_between(Output u, double lower, double upper);

// (batch, 1) pieces joined into (batch, 8) transform rows.
Output transform_rows(const std::vector<Output>& pieces);

// Beta(alpha, alpha) draws, as keras.random.beta(alpha, alpha), one per row of `uniforms`
// (kBetaColumns uniform draws per row) with `alpha` (> 0) broadcast against (rows, 1):
// G1 / (G1 + G2) of two Gamma(alpha) draws, computed as sigmoid(log G1 - log G2) so that
// a tiny alpha (whose gammas underflow) still gives draws in [0, 1]. Each Gamma(alpha) is
// Gamma(alpha + 1) U^(1 / alpha), Gamma(alpha + 1) by Marsaglia and Tsang's method (a
// normal and a uniform per try, accepted with probability above 0.95 for shapes >= 1,
// as TensorFlow's gamma sampler) over kGammaTries tries: where all of them are rejected
// (probability below 1e-10) the last try's candidate stands, which a graph of fixed
// shape needs.
inline constexpr std::int64_t kGammaTries = 8;
inline constexpr std::int64_t kGammaColumns = 3 * kGammaTries + 1;
inline constexpr std::int64_t kBetaColumns = 2 * kGammaColumns;
Output beta_draws(Output uniforms, Output alpha);
// The log of one such Gamma(alpha) draw per row, from kGammaColumns columns of `uniforms`
// starting at `first` (AugMix's Dirichlet weights normalize several).
Output log_gamma_draws(Output uniforms, std::int64_t first, Output alpha);

// The images of a batch in the order `order` gives (integer, (batch,)): image b of the
// result is image order[b] (keras.ops.take(images, order, axis=0)). Gradients flow back.
Output take_images(Output images, Output order);

// A uniformly random order of a batch (keras.random.shuffle of arange(batch)): the
// positions that sort the (batch, 1) uniform draws `u`.
Output shuffled_order(Output u);

}  // namespace strata::layers
