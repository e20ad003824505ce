// Philox-4x32-10, dropout's per-element rule and random_normal_like's element as functions
// that compile for the host and for CUDA devices alike: the CUDA dropout and random-normal
// kernels (core/cuda/dropout.cu, random_normal.cu) draw through these, and
// tests/core/cuda_philox_test.cc checks them on the host against the CPU's Philox
// (core/rng.h) and the CPU kernels, so a GPU draws the CPU's masks bit for bit, and its
// normals to within the rounding of CUDA's double log and cos. Plain C++ (no CUDA
// header): it compiles in every build.
#pragma once

#include <cstdint>

#include "core/philox_rounds.h"

namespace strata::cuda {

// What one dropout draw needs: the Philox key and stream of the node's step (the CPU's
// mix_seed(seed, step) and the node's stream), the rate, and 1 / (1 - rate) as the CPU
// kernel rounds it.
struct DropoutDraw {
  std::uint64_t key = 0;
  std::uint64_t stream = 0;
  float rate = 0.f;
  float keep_scale = 1.f;
};

// What a run's kernels read on the device rather than take by value, so that a CUDA graph
// captured at one step replays right at the next: the run's step and the shard's sample
// offset (RunOptions). A run context holds one on the device (RunContext::run_scalars),
// written before the run's kernels.
struct RunScalars {
  std::int64_t step = 0;
  std::int64_t sample_offset = 0;
};

// The draw of a dropout node with `seed` at `step`: the CPU's key, mix_seed(seed, step).
STRATA_HOST_DEVICE inline DropoutDraw dropout_draw(std::uint64_t seed, std::int64_t step, std::uint64_t stream,
                                                   float rate, float keep_scale) {
  return DropoutDraw{mix_seed_bits(seed, static_cast<std::uint64_t>(step)), stream, rate, keep_scale};
}

// Dropout of the elements that Philox block `block` covers. Elements are numbered in the
// step's global batch: element g (= first + i for x[i]) takes word g % 4 of block g / 4,
// and is kept, scaled by keep_scale, where that word's uniform (its top 24 bits times
// 2^-24, exact in float) is >= rate; else it is 0. Writes out[i] for the (up to four)
// i < n whose g falls in the block.
STRATA_HOST_DEVICE inline void dropout_block(const float* x, float* out, std::int64_t first, std::int64_t n,
                                             std::int64_t block, const DropoutDraw& draw) {
  const PhiloxWords words = philox4x32_10(static_cast<std::uint64_t>(block), draw.stream, draw.key);
  for (int j = 0; j < 4; ++j) {
    const std::int64_t i = block * 4 + j - first;
    if (i < 0 || i >= n) continue;
    const float uniform = philox_uniform(words.w[j]);
    out[i] = uniform >= draw.rate ? x[i] * draw.keep_scale : 0.f;
  }
}

// Element g of random_normal_like's step (numbered in the step's global batch, as
// dropout's): the CPU's Philox(key, stream).normal(g), Box-Muller on words 0 and 1 of
// block g. `key` is the step's, mix_seed_bits(seed, step).
STRATA_HOST_DEVICE inline float random_normal_element(std::uint64_t key, std::uint64_t stream, std::int64_t g) {
  const PhiloxWords words = philox4x32_10(static_cast<std::uint64_t>(g), stream, key);
  return philox_normal(words.w[0], words.w[1]);
}

}  // namespace strata::cuda
