// TextVectorization's op: strings in, each row standardized, split and made into ngrams
// (core/text.h), its tokens looked up in the layer's vocabulary (an IndexLookupTable,
// core/ops/lookup_ops.h), then given as Keras's output_mode gives them. One op, since the
// number of tokens in a row depends on the data and a graph's shapes do not: "int" pads
// or truncates each row to `sequence_length`, the other modes count into `depth` slots.
//
// Like the other preprocessing ops it runs on the CPU only (docs/gpu.md): it reads
// strings and a host table. It is not differentiable.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "core/graph.h"
#include "core/ops/lookup_ops.h"

namespace strata::ops {

struct TextVectorizeOptions {
  std::string standardize = "lower_and_strip_punctuation";  // "" is None
  std::string split = "whitespace";                         // "" is None
  std::vector<std::int64_t> ngrams;                         // widths; empty: none
  std::string output_mode = "int";                          // int, multi_hot, count, tf_idf
  // "int": the tokens per row, padded with 0 or truncated. With split None and no ngrams,
  // -1 keeps the input's shape.
  std::int64_t sequence_length = -1;
  // "int" with sequence_length -1: each row cut to this many tokens first (-1: none), the
  // output then padded to its longest row: TextVectorization's ragged rows, with
  // output_sequence_length, made dense as tf.RaggedTensor.to_tensor() makes them.
  std::int64_t most_tokens = -1;
  std::int64_t depth = 0;  // the other modes: the encoding's width
};

// Rows: with a split, each string (the input is (..., 1) or rank 1) is a row; with split
// None, the last axis is a row of tokens (a rank-1 input's strings are one-token rows,
// except in "int" mode, where the shape is kept). Output: int64 (rows..., sequence_length)
// or float32 (rows..., depth).
Output text_vectorize(Output strings, const TableHandle& table, const TextVectorizeOptions& options);

}  // namespace strata::ops
