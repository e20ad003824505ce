// The CPU kernels of the ops whose result's size depends on the values
// (core/ops/data_sized_ops.h): each counts first, sizes its outputs (they start empty: the
// execution state leaves their data-sized dim 0), then writes them.
#include <algorithm>
#include <cmath>
#include <cstdint>
#include <string>
#include <vector>

#include "core/cpu/kernels/register.h"
#include "core/error.h"
#include "core/op_registry.h"

namespace strata::cpu {

namespace {

// Element i of a float32, int32 or int64 tensor, as Keras's TensorFlow backend casts a
// float to int32 (truncation; values beyond int32 refused).
std::int64_t integer_at(const Tensor& t, std::int64_t i, const std::string& where) {
  switch (t.dtype()) {
    case DType::int32: return t.data<std::int32_t>()[i];
    case DType::int64: return t.data<std::int64_t>()[i];
    default: {
      const float v = t.data<float>()[i];
      if (!(std::fabs(v) < 2147483648.0f))
        throw ValueError(where + ": " + std::to_string(v) + " does not convert to an int32 count index");
      return static_cast<std::int64_t>(v);
    }
  }
}

bool is_nonzero(const Tensor& t, std::int64_t i) {
  switch (t.dtype()) {
    case DType::int32: return t.data<std::int32_t>()[i] != 0;
    case DType::int64: return t.data<std::int64_t>()[i] != 0;
    default: return t.data<float>()[i] != 0.0f;  // NaN != 0
  }
}

void nonzero_kernel(KernelContext& ctx) {
  const Tensor& x = ctx.input(0);
  const std::vector<std::int64_t>& dims = x.shape().dims();
  const int rank = static_cast<int>(dims.size());
  std::int64_t n = 0;
  for (std::int64_t i = 0; i < x.size(); ++i) n += is_nonzero(x, i) ? 1 : 0;
  std::vector<std::int32_t*> coordinates;
  for (int a = 0; a < rank; ++a) {
    ctx.output(a).reset(Shape({n}), DType::int32, ctx.output(a).device());
    coordinates.push_back(ctx.output(a).data<std::int32_t>());
  }
  std::int64_t k = 0;
  for (std::int64_t i = 0; i < x.size(); ++i) {
    if (!is_nonzero(x, i)) continue;
    std::int64_t rest = i;
    for (int a = rank - 1; a >= 0; --a) {
      coordinates[static_cast<std::size_t>(a)][k] = static_cast<std::int32_t>(rest % dims[static_cast<std::size_t>(a)]);
      rest /= dims[static_cast<std::size_t>(a)];
    }
    ++k;
  }
}

void bincount_kernel(KernelContext& ctx) {
  const Tensor& x = ctx.input(0);
  const std::string where = ctx.node.op + " '" + ctx.node.name + "'";
  const std::int64_t rows = x.rank() == 2 ? x.shape()[0] : 1;
  const std::int64_t per_row = x.rank() == 2 ? x.shape()[1] : x.size();
  std::int64_t length = ctx.node.attrs.get<std::int64_t>("minlength");
  for (std::int64_t i = 0; i < x.size(); ++i) {
    const std::int64_t v = integer_at(x, i, where);
    if (v < 0) throw ValueError(where + ": counts non-negative values, got " + std::to_string(v));
    length = std::max(length, v + 1);
  }
  if (rows * length > (std::int64_t{1} << 31))
    throw ValueError(where + ": " + std::to_string(rows) + " rows of " + std::to_string(length) +
                     " counts exceed 2^31 elements");
  Tensor& out = ctx.output(0);
  out.reset(x.rank() == 2 ? Shape({rows, length}) : Shape({length}), DType::int32, out.device());
  std::int32_t* counts = out.data<std::int32_t>();
  std::fill_n(counts, rows * length, 0);
  for (std::int64_t r = 0; r < rows; ++r) {
    for (std::int64_t j = 0; j < per_row; ++j) ++counts[r * length + integer_at(x, r * per_row + j, where)];
  }
}

}  // namespace

void register_data_sized_kernels(OpRegistry& r) {
  r.add_kernel("nonzero", DeviceType::cpu, {.run = nonzero_kernel});
  r.add_kernel("bincount", DeviceType::cpu, {.run = bincount_kernel});
}

}  // namespace strata::cpu
