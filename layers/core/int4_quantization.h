// Keras 3.15's sub-channel int4 quantization ("int4/<block>": Int4DTypePolicy, with
// Int4QuantizationConfig's block_size; docs/precision.md), as Dense, EinsumDense and
// Embedding hold and compute it. The kernel, flattened to rows (the summed axes; an
// Embedding's ids) × columns, is int4 packed two to a byte along its columns (the even
// column in the low nibble), int8 in files and held here as float32 integers; `block`
// consecutive rows (an Embedding's: columns) form a group with, per column (row), a float32
// scale and an int8 zero point; g_idx names each row's (column's) group. On every call
// Keras computes the float kernel (q − zero[g]) · scale[g] in float32 and then the float
// layer's arithmetic on it: so does Strata, from variables alone (an inference program
// computes it once per change of the weights).
#pragma once

#include <cstdint>
#include <functional>
#include <optional>
#include <string>

#include "core/graph.h"
#include "layers/layer.h"

namespace strata::layers {

// The block of a sub-channel int4 mode ("int4/128": 128); none for other modes (the
// per-channel "int4" among them, which Strata does not compute).
std::optional<std::int64_t> int4_block_of(const std::string& mode);

// Keras's int4 variables of one layer, made by add_int4_kernel / add_int4_groups in the
// order Keras's build makes them (its bias, where it has one, between the two).
struct Int4Weights {
  Variable packed, scale, zero, g_idx;
  std::int64_t rows = 0, columns = 0;
  bool groups_of_rows = true;  // false: an Embedding's groups of columns
};
// The layer's add_weight for a weight that is not trainable (name, shape, initializer).
using AddFrozenWeight = std::function<Variable(const std::string&, const Shape&, const std::string&)>;
// The packed kernel (rows × ⌈columns / 2⌉, int8 in files).
void add_int4_kernel(const AddFrozenWeight& add, Int4Weights& w, const std::string& name, std::int64_t rows,
                     std::int64_t columns);
// The scale, zero point (int8 in files) and g_idx for `block` (Keras's initial values: 1,
// 0, row // block).
void add_int4_groups(const AddFrozenWeight& add, Int4Weights& w, const std::string& prefix, std::int64_t block);
// The float kernel (rows × columns) Keras's call computes.
Output dequantized_int4(Graph& graph, const Int4Weights& w);

}  // namespace strata::layers
