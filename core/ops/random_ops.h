// Random ops: tensors of random numbers drawn as dropout's masks are (core/ops/nn_ops.cc),
// each element a pure function of (seed, stream, step, element): reproducible, resumable
// from a checkpoint, the same on any thread count, and the CPU's numbers on a GPU.
#pragma once

#include <cstdint>

#include "core/graph.h"

namespace strata::ops {

// Standard normal noise, float32, shaped like `like` (whose values are not read), drawn
// anew at every step, in training and inference alike (a layer that adds noise only in
// training selects it with training_select, which an inference program resolves without
// drawing). Element g of the step's global batch (a data-parallel shard's first element
// is its sample_offset times the sample's size) is Philox(mix_seed(seed, step),
// stream).normal(g) (core/rng.h: Box-Muller on words 0 and 1 of block g). No gradient
// flows to `like`.
Output random_normal_like(Output like, std::uint64_t seed, std::uint64_t stream);

// Uniform draws in [0, 1), float32, `columns` per row: (batch, columns) with one row per
// sample of `like` (whose values are not read) when `per_sample`, else (1, columns), one
// row for the whole batch. Drawn anew at every step, as random_normal_like. Element g is
// Philox(mix_seed(seed, step), stream).uniform(g): a per-sample row r of a data-parallel
// shard is row sample_offset + r of the step's global batch (g = row * columns + column);
// the batch's single row is g = column on every shard, as one process would draw it. The
// augmentation layers draw their per-image parameters with it. No gradient flows to `like`.
Output random_uniform_rows(Output like, std::int64_t columns, bool per_sample, std::uint64_t seed,
                           std::uint64_t stream);

// TensorFlow's tf.random.stateless_normal of `like`'s shape with seed [seed0, seed1]
// (core/tf_stateless_random.h), float32: the same numbers at every step (element g of the
// step's global batch numbered as random_normal_like's). Keras's image.elastic_transform
// draws its field so. No gradient flows to `like`.
Output tf_stateless_normal_like(Output like, std::int64_t seed0, std::int64_t seed1);

}  // namespace strata::ops
