// Standard normal noise for the regularization layers (GaussianNoise, GaussianDropout),
// drawn through the dropout op so that it is what Dropout's masks are: a pure function of
// (seed, stream, step, element), reproducible, resumable from a checkpoint and the same on
// every device and thread count. Strata has no random-normal op (its kernels would belong
// to core/cpu and core/cuda), so each element's uniform is built from 24 fair bits, each a
// dropout of rate 0.5 on its own stream, and mapped through the normal's inverse CDF.
#pragma once

#include <cstdint>

#include "core/graph.h"

namespace strata::layers {

// N(0, 1) noise shaped like x, drawn anew at every step in training; in inference the
// dropout op is the identity and the result is meaningless: callers select x there
// (ops::training_select). The uniform lies on the midpoints of a grid of 2^24 (as a
// float32 uniform does), so the noise is quantized accordingly and its tails end at
// ±5.42 (Φ⁻¹(2^-25)), beyond which a float32 normal has mass 6e-8.
Output standard_normal_like(Output x, std::uint64_t seed, std::uint64_t stream);

}  // namespace strata::layers
