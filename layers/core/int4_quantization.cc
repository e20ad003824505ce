#include "layers/core/int4_quantization.h"

#include "core/error.h"
#include "core/ops.h"
#include "core/ops/array_ops.h"
#include "core/ops/sequence_ops.h"

namespace strata::layers {

std::optional<std::int64_t> int4_block_of(const std::string& mode) {
  if (mode.rfind("int4/", 0) != 0) return std::nullopt;
  const std::string digits = mode.substr(5);
  if (digits.empty() || digits.size() > 9 || digits.find_first_not_of("0123456789") != std::string::npos) {
    return std::nullopt;
  }
  const std::int64_t block = std::stoll(digits);
  if (block < 1) return std::nullopt;
  return block;
}

void add_int4_kernel(const AddFrozenWeight& add, Int4Weights& w, const std::string& name, std::int64_t rows,
                     std::int64_t columns) {
  w.rows = rows;
  w.columns = columns;
  w.packed = add(name, Shape{rows, (columns + 1) / 2}, "zeros");
  w.packed.set_stored_as(Variable::Stored::int8);
}

void add_int4_groups(const AddFrozenWeight& add, Int4Weights& w, const std::string& prefix, std::int64_t block) {
  const std::int64_t grouped = w.groups_of_rows ? w.rows : w.columns;  // the axis g_idx maps
  const std::int64_t groups = (grouped + block - 1) / block;
  const Shape per_group = w.groups_of_rows ? Shape{groups, w.columns} : Shape{w.rows, groups};
  w.scale = add(prefix + "_scale", per_group, "ones");
  w.zero = add(prefix + "_zero", per_group, "zeros");
  w.zero.set_stored_as(Variable::Stored::int8);
  w.g_idx = add("g_idx", Shape{grouped}, "zeros");
  Tensor index(Shape{grouped});
  for (std::int64_t i = 0; i < grouped; ++i) index.data<float>()[i] = static_cast<float>(i / block);
  w.g_idx.assign(index);
}

Output dequantized_int4(Graph& graph, const Int4Weights& w) {
  // Each byte v (an int8 in [-128, 127], held as a float) as its two signed nibbles: u =
  // v mod 256, high = u div 16, low = u mod 16, each t in [8, 15] being t − 16.
  const Output v = graph.variable(w.packed);
  const Output u = ops::where(ops::less(v, ops::constant(graph, 0.f)), ops::add(v, 256.f), v);
  const Output high_bits = ops::floor(ops::div(u, 16.f));
  const Output low_bits = ops::sub(u, ops::mul(high_bits, 16.f));
  auto signed_nibble = [&](Output t) {
    return ops::where(ops::greater_equal(t, ops::constant(graph, 8.f)), ops::sub(t, 16.f), t);
  };
  // Column 2c is byte c's low nibble, 2c + 1 its high one; a padded last column dropped.
  const std::int64_t packed_columns = (w.columns + 1) / 2;
  Output q = ops::concat({ops::expand_dims(signed_nibble(low_bits), -1), ops::expand_dims(signed_nibble(high_bits), -1)},
                         -1);
  q = ops::reshape(q, {w.rows, 2 * packed_columns});
  if (2 * packed_columns != w.columns) q = ops::crop(q, {0, 0}, {0, 1});
  // Each row's (column's) group's scale and zero point, by g_idx.
  const Output groups = ops::cast(graph.variable(w.g_idx), DType::int32);
  auto per_element = [&](const Variable& table) {
    const Output t = graph.variable(table);
    if (w.groups_of_rows) return ops::embedding_lookup(t, groups, "int4 g_idx");  // (rows, columns)
    return ops::transpose(ops::embedding_lookup(ops::transpose(t, {1, 0}), groups, "int4 g_idx"), {1, 0});
  };
  return ops::mul(ops::sub(q, per_element(w.zero)), per_element(w.scale));
}

}  // namespace strata::layers
