// MixUp: in training, each image blended with another image of the batch, w x + (1 - w)
// x[order], the order a random shuffle of the batch and each image's weight w drawn from
// Beta(alpha, alpha), as Keras's MixUp does to its "images". Keras mixes labels too when
// it is given a {"images", "labels"} dict in a data pipeline; a Strata layer sees only
// the images, so labels are not mixed (mix them in the data pipeline if wanted). Identity
// in inference. Seeded and resumable as Dropout (ops::random_uniform_rows); on a
// data-parallel shard the images mix within the shard, as Keras's per-replica batches.
// Gradients flow to both images of each blend.
#pragma once

#include <cstdint>
#include <optional>
#include <string>

#include "layers/keras_class.h"
#include "layers/layer.h"

namespace strata::layers {

struct MixUpOptions {  // Keras signature order
  double alpha = 0.2;  // > 0 (Keras's Beta(alpha, alpha) is undefined otherwise)
  std::string data_format;  // "" = "channels_last" (unused, as in Keras)
  std::optional<std::uint64_t> seed;  // default: drawn from the global seed generator
  std::string name;
  DTypePolicyName dtype;  // Keras's dtype=: this layer's dtype policy ("" the global one)

  static constexpr auto keras_fields() {
    return std::tuple{keras_field("alpha", &MixUpOptions::alpha),
                      keras_field("data_format", &MixUpOptions::data_format, Spelling::data_format),
                      keras_field("seed", &MixUpOptions::seed)};
  }
};

class MixUpImpl : public LayerImpl {
 public:
  explicit MixUpImpl(MixUpOptions options);
  std::vector<Output> call(Graph& graph, const std::vector<Output>& inputs) override;
  // The training transform with Keras's parameters given: `weights` (batch, 1), each
  // image's mix_weight, and `order` (int32, (batch,)), Keras's permutation_order.
  Output transform(Output images, Output weights, Output order) const;

  std::uint64_t seed;  // options.seed, or drawn
  MixUpOptions options;
};

class MixUp : public Layer {
 public:
  explicit MixUp(MixUpOptions options = {});
};

}  // namespace strata::layers
