// CutMix: in training, a box of each image replaced by the same box of another image of
// the batch, the order a random shuffle of the batch, as Keras's CutMix does to its
// "images": alpha drawn once per batch from factor's range (+ 1e-6), each image's w from
// Beta(alpha, alpha), the box sqrt(1 - w) of the image's width and height, placed
// uniformly within it; pixel (y, x) is taken where x0 <= x < x1 and y0 <= y < y1. Keras
// mixes labels too when it is given a {"images", "labels"} dict in a data pipeline; a
// Strata layer sees only the images, so labels are not mixed. Identity in inference.
// Seeded and resumable as Dropout (ops::random_uniform_rows); a data-parallel shard mixes
// within itself. Gradients flow to the image each pixel comes from.
#pragma once

#include <cstdint>
#include <optional>
#include <string>

#include "layers/keras_class.h"
#include "layers/layer.h"
#include "layers/per_channel.h"

namespace strata::layers {

struct CutMixOptions {  // Keras signature order
  PerChannel factor = 1.0;  // in [0, 1]; Keras keeps and writes the [lower, upper] pair
  std::optional<std::uint64_t> seed;  // default: drawn from the global seed generator
  std::string data_format;  // "" = "channels_last"
  std::string name;
  DTypePolicyName dtype;  // Keras's dtype=: this layer's dtype policy ("" the global one)

  static constexpr auto keras_fields() {
    return std::tuple{keras_field("factor", &CutMixOptions::factor), keras_field("seed", &CutMixOptions::seed),
                      keras_field("data_format", &CutMixOptions::data_format, Spelling::data_format)};
  }
};

class CutMixImpl : public LayerImpl {
 public:
  explicit CutMixImpl(CutMixOptions options);
  std::vector<Output> call(Graph& graph, const std::vector<Output>& inputs) override;
  // The training transform with Keras's parameters given: `boxes` (batch, 4), each image's
  // [x0, x1, y0, y1] in pixels, and `order` (integer, (batch,)), Keras's permutation_order.
  Output transform(Output images, Output boxes, Output order) const;

  std::uint64_t seed;  // options.seed, or drawn
  CutMixOptions options;
};

class CutMix : public Layer {
 public:
  explicit CutMix(CutMixOptions options = {});
};

}  // namespace strata::layers
