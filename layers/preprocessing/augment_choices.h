// The operations Keras 3.15's AugMix and RandAugment choose among, built as those layers
// build them: RandomShear (x and y factor), RandomTranslation (height and width factor),
// RandomRotation, RandomBrightness, RandomColorDegeneration, RandomContrast and
// RandomSharpness with the [lower, upper] factor; Solarization with it as addition and
// threshold factor; RandomPosterization with max(1, int(8 · upper)) bits; AutoContrast and
// Equalization; all with the layer's value_range, interpolation and data_format. Each is
// the existing layer, applied as in its training call: its parameters drawn per image from
// (its seed, a stream the caller names, the step), its seed derived from the caller's and
// the operation's name, so two operations never share draws.
#pragma once

#include <cstdint>
#include <memory>
#include <string>
#include <vector>

#include "core/graph.h"
#include "layers/layer.h"
#include "layers/per_channel.h"
#include "layers/preprocessing/augmentation.h"

namespace strata::layers {

struct AugmentChoicesSettings {
  FactorRange factor;  // within [0, 1]
  PerChannel value_range = {0.0, 255.0};
  std::string interpolation = "bilinear";
  std::string data_format;
  std::uint64_t seed = 0;
  std::string name;  // the owning layer's, for the operations' names
};

class AugmentChoices {
 public:
  // `names`: Keras's attribute names ("random_shear", ..., "equalization"), in the owning
  // layer's order. Throws ValueError (naming the operation) for settings one refuses.
  AugmentChoices(const AugmentChoicesSettings& settings, const std::vector<std::string>& names);

  std::size_t size() const { return ops_.size(); }
  const std::string& name(std::size_t k) const { return names_[k]; }
  // Operation k on `images` in training, its draws from `stream` (the same stream gives the
  // same draws at one step).
  Output apply(std::size_t k, Output images, int stream) const;

 private:
  std::vector<std::string> names_;
  std::vector<std::shared_ptr<LayerImpl>> ops_;
};

// Chosen operation per slot: `choice` ((1, 1) float, an operation's index, or size() for
// none) selects operation k's output where it equals k; elsewhere the images pass.
Output apply_choice(const AugmentChoices& choices, Output images, Output choice,
                    const std::function<int(std::size_t k)>& stream_of);

// Column `column` of (1, columns) uniform draws as a whole index in [0, count).
Output index_draw(Output draws, std::int64_t column, std::int64_t count);

}  // namespace strata::layers
