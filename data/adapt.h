// Keras's layer.adapt(dataset): a preprocessing layer learns its state (a vocabulary, bin
// boundaries, a mean and variance) from a Dataset's elements, through the layer's
// incremental interface (layers/adapt.h). The one part of data/ that knows layers.
#pragma once

#include <cstdint>
#include <optional>

#include "data/dataset.h"
#include "layers/layer.h"

namespace strata {

// The layer's reset_state, update_state on each element's first tensor (its x; a batched
// dataset gives batches), then finalize_state. `steps`: at most that many elements
// (required for an infinite dataset). ValueError for a layer that does not adapt.
void adapt(const Layer& layer, const Dataset& data, std::optional<std::int64_t> steps = std::nullopt);

}  // namespace strata
