#include "layers/preprocessing/elastic_resample.h"

#include <algorithm>
#include <cmath>
#include <string>
#include <utility>
#include <vector>

#include "core/error.h"
#include "core/ops.h"
#include "core/ops/array_ops.h"
#include "core/ops/matmul.h"
#include "core/ops/scan_ops.h"
#include "core/ops/sequence_ops.h"

namespace strata::layers {

namespace {

// Each element's position along `axis` (0, 1, ...), shaped like `like`.
Output positions(Output like, int axis) { return ops::sub(ops::cumsum(ops::ones_like(like), axis), 1.0f); }

// a mod b, floored (tf.math.mod), of integer-valued floats.
Output floor_mod(Output a, float b) { return ops::sub(a, ops::mul(ops::floor(ops::div(a, b)), b)); }

// The (n, n) band matrix of TensorFlow's Gaussian blur along one axis of length n, whose
// positions (0 .. n - 1) are `along`: entry (i, j) the normalized weight of offset i - j
// for |i - j| <= 3 int(sigma), else 0 (zero padding). Keras's kernel: exp(-(o / sigma)^2 / 2)
// over the 6 int(sigma) + 1 offsets, divided by their sum, which reaches beyond the image
// when 3 int(sigma) >= n (sigma at most `largest_sigma`).
Output gaussian_band(Output along, std::int64_t n, Output sigma, double largest_sigma) {
  const Output half = ops::mul(ops::floor(sigma), 3.0f);
  const Output safe_sigma = ops::maximum(sigma, 1e-30f);
  const auto weight = [&](Output offsets) {
    const Output g = ops::exp(ops::mul(ops::square(ops::div(offsets, safe_sigma)), -0.5f));
    return ops::where(ops::less_equal(ops::abs(offsets), half), g, ops::zeros_like(g));
  };
  // The kernel's sum: offset 0 once, each of 1 .. 3 int(sigma) twice; the offsets 0 .. n − 1
  // repeated n further on until they reach 3 int(largest_sigma).
  const auto reach = static_cast<std::int64_t>(std::floor(std::max(largest_sigma, 0.0))) * 3 + 1;
  std::vector<Output> offsets_from_zero{along};
  for (std::int64_t start = n; start < reach; start += n) {
    offsets_from_zero.push_back(ops::add(along, static_cast<float>(start)));
  }
  const Output every_offset = offsets_from_zero.size() == 1 ? along : ops::concat(offsets_from_zero, 0);
  const Output total = ops::sub(ops::mul(ops::reduce_sum(weight(every_offset)), 2.0f), 1.0f);
  const Output offsets = ops::sub(ops::reshape(along, {n, 1}), ops::reshape(along, {1, n}));
  return ops::div(weight(offsets), total);
}

}  // namespace

void check_elastic_options(const ElasticResampleOptions& options) {
  if (options.interpolation != "bilinear" && options.interpolation != "nearest") {
    throw ValueError(options.where + ": 'interpolation' must be 'bilinear' or 'nearest', got '" +
                     options.interpolation + "'");
  }
  if (options.fill_mode == "mirror") {
    throw NotImplementedError(options.where + ": 'fill_mode' 'mirror' is refused by Keras 3.15's TensorFlow backend "
                              "(elastic_transform), which Strata follows; use 'reflect'");
  }
  if (options.fill_mode != "constant" && options.fill_mode != "nearest" && options.fill_mode != "wrap" &&
      options.fill_mode != "reflect") {
    throw ValueError(options.where + ": 'fill_mode' must be one of 'constant', 'nearest', 'wrap', 'reflect', got '" +
                     options.fill_mode + "'");
  }
}

Output elastic_resample(Output x, Output noise, Output sigma, Output alpha, const ElasticResampleOptions& options) {
  const auto& dims = x.shape().dims();
  const std::int64_t height = dims[1], width = dims[2], channels = dims[3];
  const Output px = positions(noise, 2), py = positions(noise, 1), pb = positions(noise, 0);

  // The field: noise * sigma blurred along the width, then along the height.
  Output field = ops::mul(noise, sigma);
  const Output along_w = ops::reshape(ops::reduce_max(px, {0, 1}), {width});
  const Output along_h = ops::reshape(ops::reduce_max(py, {0, 2}), {height});
  const Output band_w = gaussian_band(along_w, width, sigma, options.largest_sigma);
  const Output band_h = gaussian_band(along_h, height, sigma, options.largest_sigma);
  field = ops::reshape(ops::matmul(ops::reshape(field, {-1, width}), band_w), {-1, height, width});
  field = ops::transpose(field, {0, 2, 1});
  field = ops::reshape(ops::matmul(ops::reshape(field, {-1, height}), band_h), {-1, width, height});
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
        node.valid =
            ops::mul(ops::greater_equal(index, ops::zeros_like(index)), ops::less(index, ops::fill_like(index, n)));
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
  const std::string gather =
      options.where + " (at most " + std::to_string(most_images) + " images of this size per batch: 2^24 pixels)";
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
  return result;
}

}  // namespace strata::layers
