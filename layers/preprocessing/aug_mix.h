// AugMix (Keras 3.15): in training, num_chains chains of up to chain_depth operations, each
// slot of a chain an operation chosen uniformly among Keras's (seven, or eleven with
// all_ops: layers/preprocessing/augment_choices.h) or none, as Keras's
// random.choice(layers + [None]); the chains' outputs mixed with Dirichlet(alpha) weights,
// then blended with the images as w · x + (1 − w) · mix, w from Beta(alpha, alpha), and
// clipped to value_range. The choices and weights are drawn once per batch, each slot's
// operation parameters per image and slot, as Keras. Seeded and resumable as Dropout;
// identity in inference.
#pragma once

#include <cstdint>
#include <memory>
#include <optional>
#include <string>

#include "layers/keras_class.h"
#include "layers/layer.h"
#include "layers/per_channel.h"
#include "layers/preprocessing/augment_choices.h"

namespace strata::layers {

struct AugMixOptions {  // Keras signature order
  PerChannel value_range = {0.0, 255.0};  // increasing; written as given
  std::int64_t num_chains = 3;            // at least 1
  std::int64_t chain_depth = 3;           // at least 0
  PerChannel factor = 0.3;                // in [0, 1]; Keras keeps and writes the [lower, upper] pair
  double alpha = 1.0;                     // > 0
  bool all_ops = true;
  std::string interpolation = "bilinear";  // "bilinear" or "nearest"
  std::optional<std::uint64_t> seed;       // default: drawn from the global seed generator
  std::string data_format;                 // "" = "channels_last"
  std::string name;
  DTypePolicyName dtype;  // Keras's dtype=: this layer's dtype policy ("" the global one)

  static constexpr auto keras_fields() {
    return std::tuple{keras_field("value_range", &AugMixOptions::value_range),
                      keras_field("num_chains", &AugMixOptions::num_chains),
                      keras_field("chain_depth", &AugMixOptions::chain_depth),
                      keras_field("factor", &AugMixOptions::factor), keras_field("alpha", &AugMixOptions::alpha),
                      keras_field("all_ops", &AugMixOptions::all_ops),
                      keras_field("interpolation", &AugMixOptions::interpolation),
                      keras_field("seed", &AugMixOptions::seed),
                      keras_field("data_format", &AugMixOptions::data_format, Spelling::data_format)};
  }
};

// One call's draws: choices (1, num_chains · chain_depth), chain c's slot d at column
// c · chain_depth + d, an operation's index or the operation count for none; chain weights
// (1, num_chains), summing to 1; the blend weight (1, 1).
struct AugMixDraws {
  Output choices, chain_weights, weight;
};

class AugMixImpl : public LayerImpl {
 public:
  explicit AugMixImpl(AugMixOptions options);
  std::vector<Output> call(Graph& graph, const std::vector<Output>& inputs) override;
  AugMixDraws draws(Output images) const;
  // The training transform given the draws; the operations' own parameters drawn for call
  // `call`, one set per slot.
  Output transform(Output images, const AugMixDraws& draws, int call) const;
  std::size_t operation_count() const { return ops_->size(); }

  std::uint64_t seed;  // options.seed, or drawn
  AugMixOptions options;

 private:
  std::unique_ptr<AugmentChoices> ops_;
};

class AugMix : public Layer {
 public:
  explicit AugMix(AugMixOptions options = {});
};

}  // namespace strata::layers
