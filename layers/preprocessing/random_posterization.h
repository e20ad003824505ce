// RandomPosterization: in training, each image's pixels kept to their top b bits: the image
// mapped from value_range to [0, 255], cut to a whole number (as Keras's cast to uint8;
// values outside [0, 255] clip to it, where TensorFlow's cast would wrap them), its low
// 8 - b bits cleared, and mapped back. b is drawn per image, a whole number in
// [lower, upper) of Keras's factor (bounds [1, 8]: a number f is [1, f]; a pair of equal
// values is that value), as Keras's randint; the factor is whole numbers, as Keras writes
// it. Identity in inference.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "layers/keras_class.h"
#include "layers/layer.h"
#include "layers/per_channel.h"

namespace strata::layers {

// Keras's factor of bits: a whole number b (the range [1, b]) or a pair, written as whole
// numbers (Keras 3.15 draws them with randint, which refuses floats).
struct PosterizationBits {
  PosterizationBits(std::int64_t bits) : values{bits} {}  // NOLINT: implicit, like Keras's ints
  PosterizationBits(std::int64_t lower, std::int64_t upper) : values{lower, upper} {}
  explicit PosterizationBits(std::vector<std::int64_t> v) : values(std::move(v)) {}
  std::vector<std::int64_t> values;
  friend bool operator==(const PosterizationBits&, const PosterizationBits&) = default;
};

template <>
struct ConfigTraits<PosterizationBits> {
  static constexpr ValueKind kind = ValueKind::int_list;
  static ConfigValue to(const PosterizationBits& v) { return v.values; }
  static PosterizationBits from(const ConfigValue& v) {
    return PosterizationBits(std::get<std::vector<std::int64_t>>(v));
  }
};

struct RandomPosterizationOptions {  // Keras signature order (after factor)
  PerChannel value_range = {0.0, 255.0};  // Keras keeps it sorted
  std::string data_format;                // "" = "channels_last" (a base layer argument; unused)
  std::optional<std::uint64_t> seed;      // default: drawn from the global seed generator
  std::string name;
  DTypePolicyName dtype;  // Keras's dtype=: this layer's dtype policy ("" the global one)

  static constexpr auto keras_fields() {
    return std::tuple{keras_field("value_range", &RandomPosterizationOptions::value_range),
                      keras_field("data_format", &RandomPosterizationOptions::data_format, Spelling::data_format),
                      keras_field("seed", &RandomPosterizationOptions::seed)};
  }
};

class RandomPosterizationImpl : public LayerImpl {
 public:
  RandomPosterizationImpl(PosterizationBits factor, RandomPosterizationOptions options);
  std::vector<Output> call(Graph& graph, const std::vector<Output>& inputs) override;
  // The training transform with Keras's parameter given: `shift` (batch, 1, 1, 1), the
  // number of low bits cleared, 8 - b (Keras's transformation["shift_factor"]).
  Output transform(Output images, Output shift) const;

  PosterizationBits factor;  // Keras keeps and writes the [lower, upper] pair
  std::uint64_t seed;  // options.seed, or drawn
  RandomPosterizationOptions options;

 private:
  double lower_ = 0.0, upper_ = 0.0;
};

class RandomPosterization : public Layer {
 public:
  explicit RandomPosterization(PosterizationBits factor, RandomPosterizationOptions options = {});
};

}  // namespace strata::layers
