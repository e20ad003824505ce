// The incremental side of Keras's adapt(): a preprocessing layer that learns state from
// data (a vocabulary, bin boundaries) takes it in steps, as Keras's reset_state /
// update_state / finalize_state. adapt(tensor) on the layer is the three on one tensor;
// adapting from a Dataset (data/adapt.h) feeds its batches through here.
#pragma once

#include "core/tensor.h"

namespace strata::layers {

class AdaptableLayer {
 public:
  virtual ~AdaptableLayer() = default;
  // Forgets what earlier batches taught (the learned state stays until finalize).
  virtual void reset_state() = 0;
  // Takes one batch of data (samples along axis 0).
  virtual void update_state(const Tensor& batch) = 0;
  // Turns what the batches taught into the layer's state.
  virtual void finalize_state() = 0;
};

}  // namespace strata::layers
