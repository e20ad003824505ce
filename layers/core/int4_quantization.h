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
#include <vector>

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

// Keras's abs_max_quantize_grouped_with_zero_point (NumPy, float32), as its quantize("int4")
// applies it to a float kernel w (rows × columns, row-major): groups of `block` rows, the
// last padded with zeros (which count in its min and max); per group and column
// scale = ((max − min) + 1e-7) / 15, zero = clip(round(−min / scale) − 8, −8, 7),
// q = clip(round(w / scale) + zero, −8, 7), round half to even. A weight that is not finite
// is a ValueError naming `where`.
struct Int4Quantized {
  std::vector<float> q;            // rows × columns, integers in [−8, 7]
  std::vector<float> scale, zero;  // groups × columns
};
Int4Quantized quantize_grouped_int4(const std::vector<float>& w, std::int64_t rows, std::int64_t columns,
                                    std::int64_t block, const std::string& where);
// Replaces a built layer's weights by Keras's int4 variables holding `q` (its kernel's
// values, scales and zero points in the layer's layout: groups of rows, or of columns for an
// Embedding), in Keras's order: the packed kernel, `between` (the bias, where the layer has
// one), the scale, zero point and g_idx.
void assign_int4(const AddFrozenWeight& add, std::vector<Variable>& weights, Int4Weights& w, const std::string& name,
                 const std::string& prefix, std::int64_t rows, std::int64_t columns, std::int64_t block,
                 const Int4Quantized& q, const std::vector<Variable>& between);
// Keras's pack_int4 along the columns: rows × ⌈columns / 2⌉ int8 values (as floats), the
// even column in the low nibble.
std::vector<float> pack_int4_columns(const std::vector<float>& q, std::int64_t rows, std::int64_t columns);

}  // namespace strata::layers
