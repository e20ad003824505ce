#include "layers/core/int4_quantization.h"

#include <algorithm>
#include <cmath>

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

Int4Quantized quantize_grouped_int4(const std::vector<float>& w, std::int64_t rows, std::int64_t columns,
                                    std::int64_t block, const std::string& where) {
  for (float v : w) {
    if (!std::isfinite(v)) throw ValueError(where + ": cannot quantize a weight that is not finite (" + std::to_string(v) + ")");
  }
  const std::int64_t groups = (rows + block - 1) / block;
  Int4Quantized out;
  out.q.assign(static_cast<std::size_t>(rows * columns), 0.f);
  out.scale.assign(static_cast<std::size_t>(groups * columns), 0.f);
  out.zero.assign(out.scale.size(), 0.f);
  for (std::int64_t g = 0; g < groups; ++g) {
    const std::int64_t first = g * block, last = std::min(rows, first + block);
    const bool padded = last - first < block;  // zero rows after the last: in the min and max
    for (std::int64_t c = 0; c < columns; ++c) {
      float low = padded ? 0.f : w[static_cast<std::size_t>(first * columns + c)], high = low;
      for (std::int64_t r = first; r < last; ++r) {
        const float v = w[static_cast<std::size_t>(r * columns + c)];
        low = std::min(low, v);
        high = std::max(high, v);
      }
      // Each step one float32 operation, as NumPy's: volatile keeps GCC from fusing or
      // reordering them.
      volatile float spread = high - low;
      volatile float widened = spread + 1e-7f;
      const float scale = widened / 15.f;
      volatile float shifted = -low / scale;
      const float zero = std::clamp(std::nearbyint(shifted) + -8.f, -8.f, 7.f);
      out.scale[static_cast<std::size_t>(g * columns + c)] = scale;
      out.zero[static_cast<std::size_t>(g * columns + c)] = zero;
      for (std::int64_t r = first; r < last; ++r) {
        volatile float ratio = w[static_cast<std::size_t>(r * columns + c)] / scale;
        out.q[static_cast<std::size_t>(r * columns + c)] = std::clamp(std::nearbyint(ratio) + zero, -8.f, 7.f);
      }
    }
  }
  return out;
}

void assign_int4(const AddFrozenWeight& add, std::vector<Variable>& weights, Int4Weights& w, const std::string& name,
                 const std::string& prefix, std::int64_t rows, std::int64_t columns, std::int64_t block,
                 const Int4Quantized& q, const std::vector<Variable>& between) {
  weights.clear();
  add_int4_kernel(add, w, name, rows, columns);
  w.packed.assign(Tensor::from_vector<float>({rows, (columns + 1) / 2}, pack_int4_columns(q.q, rows, columns)));
  for (const Variable& v : between) weights.push_back(v);
  add_int4_groups(add, w, prefix, block);
  w.scale.assign(Tensor::from_vector<float>(w.scale.shape(), q.scale));
  w.zero.assign(Tensor::from_vector<float>(w.zero.shape(), q.zero));
}

std::vector<float> pack_int4_columns(const std::vector<float>& q, std::int64_t rows, std::int64_t columns) {
  const std::int64_t packed = (columns + 1) / 2;
  std::vector<float> out(static_cast<std::size_t>(rows * packed));
  for (std::int64_t r = 0; r < rows; ++r) {
    for (std::int64_t p = 0; p < packed; ++p) {
      const int low = static_cast<int>(q[static_cast<std::size_t>(r * columns + 2 * p)]);
      const int high = 2 * p + 1 < columns ? static_cast<int>(q[static_cast<std::size_t>(r * columns + 2 * p + 1)]) : 0;
      const auto byte = static_cast<std::int8_t>(static_cast<std::uint8_t>((low & 0x0f) | ((high & 0x0f) << 4)));
      out[static_cast<std::size_t>(r * packed + p)] = static_cast<float>(byte);
    }
  }
  return out;
}

}  // namespace strata::layers
