#include "layers/preprocessing/random_elastic_transform.h"

#include <algorithm>
#include <sstream>
#include <utility>

#include "core/error.h"
#include "core/ops.h"
#include "core/ops/array_ops.h"
#include "core/ops/matmul.h"
#include "core/ops/random_ops.h"
#include "core/ops/scan_ops.h"
#include "core/ops/sequence_ops.h"
#include "core/rng.h"
#include "layers/convolutional/conv_utils.h"
#include "layers/preprocessing/augmentation.h"

namespace strata::layers {

namespace {

// The per-batch distortion and the noise field come from their own streams, apart from
// the per-image draws.
constexpr std::uint64_t kDistortionStream = std::uint64_t{1} << 32;
constexpr std::uint64_t kNoiseStream = std::uint64_t{2} << 32;

// Each element's position along `axis` (0, 1, ...), shaped like `like`.
Output positions(Output like, int axis) { return ops::sub(ops::cumsum(ops::ones_like(like), axis), 1.0f); }

// a mod b, floored (tf.math.mod), of integer-valued floats.
Output floor_mod(Output a, float b) { return ops::sub(a, ops::mul(ops::floor(ops::div(a, b)), b)); }

// The (n, n) band matrix of TensorFlow's Gaussian blur along one axis of length n, whose
// positions (0 .. n - 1) are `along`: entry (i, j) the normalized weight of offset i - j
// for |i - j| <= 3 int(sigma), else 0 (zero padding). Keras's kernel: exp(-(o / sigma)^2 / 2)
// over the 6 int(sigma) + 1 offsets, divided by their sum.
Output gaussian_band(Output along, std::int64_t n, Output sigma) {
  const Output half = ops::mul(ops::floor(sigma), 3.0f);
  const Output safe_sigma = ops::maximum(sigma, 1e-30f);
  const auto weight = [&](Output offsets) {
    const Output g = ops::exp(ops::mul(ops::square(ops::div(offsets, safe_sigma)), -0.5f));
    return ops::where(ops::less_equal(ops::abs(offsets), half), g, ops::zeros_like(g));
  };
  // The kernel's sum: offset 0 once, each of 1 .. 3 int(sigma) twice (3 int(sigma) < n).
  const Output total = ops::sub(ops::mul(ops::reduce_sum(weight(along)), 2.0f), 1.0f);
  const Output offsets = ops::sub(ops::reshape(along, {n, 1}), ops::reshape(along, {1, n}));
  return ops::div(weight(offsets), total);
}

}  // namespace

RandomElasticTransformImpl::RandomElasticTransformImpl(RandomElasticTransformOptions o)
    : LayerImpl("RandomElasticTransform", o.name), seed(o.seed ? *o.seed : next_seed()), options(std::move(o)) {
  const std::string where = "RandomElasticTransform '" + name + "'";
  const FactorRange factor = base_factor(where, options.factor, 0.0, 1.0);
  options.factor = PerChannel{factor.lower, factor.upper};
  FactorRange scale;
  try {
    scale = base_factor(where, options.scale, 0.0, 1.0);
  } catch (const ValueError& e) {  // read as Keras reads factor, and named as the key it is
    std::string what = e.what();
    what.replace(what.find("'factor'"), 8, "'scale'");
    throw ValueError(what);
  }
  options.scale = PerChannel{scale.lower, scale.upper};
  if (options.interpolation != "bilinear" && options.interpolation != "nearest") {
    throw ValueError(where + ": 'interpolation' must be 'bilinear' or 'nearest', got '" + options.interpolation + "'");
  }
  if (options.fill_mode == "mirror") {
    throw NotImplementedError(where + ": 'fill_mode' 'mirror' is refused by Keras 3.15's TensorFlow backend "
                              "(elastic_transform), which Strata follows; use 'reflect'");
  }
  if (options.fill_mode != "constant" && options.fill_mode != "nearest" && options.fill_mode != "wrap" &&
      options.fill_mode != "reflect") {
    throw ValueError(where + ": 'fill_mode' must be one of 'constant', 'nearest', 'wrap', 'reflect', got '" +
                     options.fill_mode + "'");
  }
  check_value_range(where, options.value_range);
  is_channels_first(options.data_format);  // validates
}

Output RandomElasticTransformImpl::transform(Output images, Output noise, Output distortion, Output apply) const {
  const bool first = is_channels_first(options.data_format);
  const Output x = first ? to_channels_last(images) : images;
  const auto& dims = x.shape().dims();
  const std::int64_t height = dims[1], width = dims[2], channels = dims[3];
  if (height < 0 || width < 0 || channels < 0) {
    throw ShapeError("RandomElasticTransform '" + name + "': needs the image's height, width and channels, got shape " +
                     images.shape().to_string());
  }
  const Output sigma = ops::mul(distortion, 0.05f * static_cast<float>(std::min(height, width)));
  const Output alpha = ops::mul(distortion, 0.1f * static_cast<float>(std::max(height, width)));
  const Output px = positions(noise, 2), py = positions(noise, 1), pb = positions(noise, 0);

  // The field: noise * sigma blurred along the width, then along the height.
  Output field = ops::mul(noise, sigma);
  const Output along_w = ops::reshape(ops::reduce_max(px, {0, 1}), {width});
  const Output along_h = ops::reshape(ops::reduce_max(py, {0, 2}), {height});
  field = ops::reshape(ops::matmul(ops::reshape(field, {-1, width}), gaussian_band(along_w, width, sigma)),
                       {-1, height, width});
  field = ops::transpose(field, {0, 2, 1});
  field = ops::reshape(ops::matmul(ops::reshape(field, {-1, height}), gaussian_band(along_h, height, sigma)),
                       {-1, width, height});
  field = ops::transpose(field, {0, 2, 1});
  const Output shift = ops::mul(field, alpha);
  const Output at_x = ops::add(px, shift), at_y = ops::add(py, shift);

  // Keras's map_coordinates: each axis's neighbours (index, weight), their indices moved
  // inside by fill_mode; "constant" marks the ones outside instead.
  struct Node {
    Output index, weight, valid;
  };
  const std::string& mode = options.fill_mode;
  const auto nodes = [&](Output at, std::int64_t size) {
    std::vector<std::pair<Output, Output>> raw;
    if (options.interpolation == "nearest") {
      raw.emplace_back(ops::round(at), ops::ones_like(at));
    } else {
      const Output lower = ops::floor(at);
      const Output upper_weight = ops::sub(at, lower);
      raw.emplace_back(lower, ops::sub(1.0f, upper_weight));
      raw.emplace_back(ops::add(lower, 1.0f), upper_weight);
    }
    const auto n = static_cast<float>(size);
    std::vector<Node> out;
    for (const auto& [index, weight] : raw) {
      Node node{index, weight, Output{}};
      if (mode == "constant") {
        node.valid = ops::mul(ops::greater_equal(index, ops::zeros_like(index)), ops::less(index, ops::fill_like(index, n)));
        node.index = ops::clip(index, 0.f, n - 1);
      } else if (mode == "nearest") {
        node.index = ops::clip(index, 0.f, n - 1);
      } else if (mode == "wrap") {
        node.index = floor_mod(index, n);
      } else {  // reflect: |i| mod 2n, folded back from n on, one short
        const Output m = floor_mod(ops::abs(index), 2 * n);
        node.index = ops::where(ops::less(m, ops::fill_like(m, n)), m, ops::sub(2 * n - 1, m));
      }
      out.push_back(node);
    }
    return out;
  };
  const Output table = ops::reshape(x, {-1, channels});
  // The neighbours' rows, b H W + y W + x, are computed in float32, exact below 2^24: a
  // larger batch gets ids out of range, which the gather refuses, naming the limit.
  const std::int64_t most_images = (std::int64_t{1} << 24) / std::max<std::int64_t>(height * width, 1);
  const Output too_many = ops::greater(ops::reduce_max(pb), ops::fill_like(ops::reduce_max(pb), most_images - 1.0f));
  const Output base = ops::add(ops::mul(pb, static_cast<float>(height * width)), ops::mul(too_many, 1073741824.0f));
  const std::string gather = "RandomElasticTransform '" + name + "' (at most " + std::to_string(most_images) +
                             " images of this size per batch: 2^24 pixels)";
  Output result;
  for (const Node& ny : nodes(at_y, height)) {
    for (const Node& nx : nodes(at_x, width)) {
      const Output id = ops::add(base, ops::add(ops::mul(ny.index, static_cast<float>(width)), nx.index));
      Output value = ops::embedding_lookup(table, ops::cast(id, DType::int32), gather);
      if (mode == "constant") {
        const Output valid = ops::expand_dims(ops::mul(ny.valid, nx.valid), -1);
        value = ops::where(valid, value, ops::fill_like(value, static_cast<float>(options.fill_value)));
      }
      const Output term = ops::mul(ops::expand_dims(ops::mul(ny.weight, nx.weight), -1), value);
      result = result.valid() ? ops::add(result, term) : term;
    }
  }
  Output y = ops::where(ops::reshape(apply, {-1, 1, 1, 1}), result, x);
  y = ops::clip(y, static_cast<float>(options.value_range.values[0]), static_cast<float>(options.value_range.values[1]));
  return first ? to_channels_first(y) : y;
}

std::vector<Output> RandomElasticTransformImpl::call(Graph&, const std::vector<Output>& inputs) {
  const Output& x = inputs[0];
  expect_image_batch(x, "RandomElasticTransform '" + name + "'");
  // Keras draws nothing, and changes nothing, when either range is [0, 0].
  if (options.factor.values[1] == 0.0 || options.scale.values[1] == 0.0) return {x};
  const auto call = static_cast<std::uint64_t>(current_call);
  const Output u = ops::random_uniform_rows(x, 2, true, seed, call);
  const Output p = uniform_between(draw_column(u, 0), options.factor.values[0], options.factor.values[1]);
  const Output apply = ops::less(draw_column(u, 1), p);
  const Output distortion = uniform_between(ops::random_uniform_rows(x, 1, false, seed, call + kDistortionStream),
                                            options.scale.values[0], options.scale.values[1]);
  // One value per pixel: the noise is drawn shaped like the images' first channel.
  const int channel_axis = is_channels_first(options.data_format) ? 1 : 3;
  const Output like = ops::reduce_max(x, {channel_axis});
  const Output noise = ops::random_normal_like(like, seed, call + kNoiseStream);
  return {ops::training_select(transform(x, noise, distortion, apply), x)};
}

RandomElasticTransform::RandomElasticTransform(RandomElasticTransformOptions options)
    : Layer(std::make_shared<RandomElasticTransformImpl>(std::move(options))) {}

namespace {
const bool random_elastic_transform_registered = register_keras_class(
    describe_layer<RandomElasticTransform>("RandomElasticTransform", &RandomElasticTransformImpl::options));
}  // namespace

}  // namespace strata::layers
