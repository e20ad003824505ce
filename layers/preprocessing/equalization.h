// Equalization: in training, each channel's histogram equalized, as Keras 3.15 computes it:
// the images mapped from value_range to [0, 255]; one histogram of `bins` bins per channel
// over the whole batch (bin ⌊x (bins - 1) / 255⌋, clipped); a channel whose pixels fill at
// most one bin kept; else each pixel replaced by round((cdf - cdf_min) · 255 / (n - cdf_min))
// of its bin (⌊x / 255 · (bins - 1)⌋, Keras's second formula), cdf_min the count of the
// first filled bin; mapped back to value_range. Identity in inference, as Keras. Built from
// existing ops (categorical_encode's counts, cumsum, embedding_lookup's gather). No gradient
// flows through the lookup to the images.
#pragma once

#include <cstdint>
#include <string>

#include "layers/keras_class.h"
#include "layers/layer.h"
#include "layers/per_channel.h"

namespace strata::layers {

struct EqualizationOptions {  // Keras signature order
  PerChannel value_range = {0.0, 255.0};  // Keras keeps it sorted
  std::int64_t bins = 256;
  std::string data_format;  // "" = "channels_last"
  std::string name;
  DTypePolicyName dtype;  // Keras's dtype=: this layer's dtype policy ("" the global one)

  static constexpr auto keras_fields() {
    return std::tuple{keras_field("value_range", &EqualizationOptions::value_range),
                      keras_field("bins", &EqualizationOptions::bins),
                      keras_field("data_format", &EqualizationOptions::data_format, Spelling::data_format)};
  }
};

class EqualizationImpl : public LayerImpl {
 public:
  explicit EqualizationImpl(EqualizationOptions options);
  std::vector<Output> call(Graph& graph, const std::vector<Output>& inputs) override;
  // The training transform (nothing is drawn).
  Output transform(Output images) const;

  EqualizationOptions options;
};

class Equalization : public Layer {
 public:
  explicit Equalization(EqualizationOptions options = {});
};

}  // namespace strata::layers
