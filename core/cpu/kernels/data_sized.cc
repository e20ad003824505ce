// The CPU kernels of the ops whose result's size depends on the values
// (core/ops/data_sized_ops.h): nonzero, bincount and unique. Each counts first, sizes its
// outputs (they start empty: the execution state leaves their data-sized dim 0), then
// writes them.
#include <algorithm>
#include <cmath>
#include <cstdint>
#include <cstring>
#include <limits>
#include <string>
#include <type_traits>
#include <unordered_map>
#include <vector>

#include "core/cpu/kernels/numeric_elements.h"
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
  constexpr std::int64_t kMostCounts = std::int64_t{1} << 31;
  for (std::int64_t i = 0; i < x.size(); ++i) {
    const std::int64_t v = integer_at(x, i, where);
    if (v < 0) throw ValueError(where + ": counts non-negative values, got " + std::to_string(v));
    if (v >= kMostCounts) throw ValueError(where + ": the value " + std::to_string(v) + " needs more than 2^31 counts");
    length = std::max(length, v + 1);
  }
  if (rows > 0 && length > kMostCounts / rows)
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

// A value's key among the distinct ones: the value for integers; for floats the bits of
// the value, 0 and -0 as one (NaN never reaches it: each is its own value).
std::int64_t unique_key(float v) {
  if (v == 0.0f) v = 0.0f;
  std::uint32_t bits;
  std::memcpy(&bits, &v, sizeof bits);
  return bits;
}
std::int64_t unique_key(std::int32_t v) { return v; }
std::int64_t unique_key(std::int64_t v) { return v; }
bool is_nan(float v) { return std::isnan(v); }
bool is_nan(std::int32_t) { return false; }
bool is_nan(std::int64_t) { return false; }

template <typename T>
void unique_kernel_of(KernelContext& ctx) {
  const Tensor& x = ctx.input(0);
  const T* in = x.data<T>();
  const std::int64_t n = x.size();
  const auto& a = ctx.node.attrs;
  if (n >= std::numeric_limits<std::int32_t>::max())
    throw ValueError(ctx.node.op + " '" + ctx.node.name + "': more than 2^31 elements");
  // The distinct values in order of first appearance, with where each first is and how many.
  std::vector<T> values;
  std::vector<std::int32_t> first, counts, inverse(static_cast<std::size_t>(n));
  std::unordered_map<std::int64_t, std::int32_t> seen;
  for (std::int64_t i = 0; i < n; ++i) {
    std::int32_t id;
    const auto fresh = static_cast<std::int32_t>(values.size());
    if (is_nan(in[i])) {
      id = fresh;
    } else {
      id = seen.try_emplace(unique_key(in[i]), fresh).first->second;
    }
    if (id == fresh) {
      values.push_back(in[i]);
      first.push_back(static_cast<std::int32_t>(i));
      counts.push_back(0);
    }
    ++counts[static_cast<std::size_t>(id)];
    inverse[static_cast<std::size_t>(i)] = id;
  }
  const auto distinct = static_cast<std::int64_t>(values.size());
  if (a.get<bool>("sorted")) {
    std::vector<std::int32_t> order(values.size());
    for (std::size_t k = 0; k < order.size(); ++k) order[k] = static_cast<std::int32_t>(k);
    std::stable_sort(order.begin(), order.end(), [&](std::int32_t p, std::int32_t q) {
      const T vp = values[static_cast<std::size_t>(p)], vq = values[static_cast<std::size_t>(q)];
      if (is_nan(vp)) return false;
      if (is_nan(vq)) return true;
      return vp < vq;
    });
    std::vector<std::int32_t> rank(values.size());
    for (std::size_t k = 0; k < order.size(); ++k) rank[static_cast<std::size_t>(order[k])] = static_cast<std::int32_t>(k);
    auto permuted = [&](auto v) {
      auto out = v;
      for (std::size_t k = 0; k < order.size(); ++k) out[k] = v[static_cast<std::size_t>(order[k])];
      return out;
    };
    values = permuted(values);
    first = permuted(first);
    counts = permuted(counts);
    for (auto& id : inverse) id = rank[static_cast<std::size_t>(id)];
  }
  const auto size = a.get<std::int64_t>("size");
  const std::int64_t m = size >= 0 ? size : distinct;
  const std::int64_t kept = std::min(m, distinct);
  int slot = 0;
  Tensor& v = ctx.output(slot++);
  v.reset(Shape({m}), x.dtype(), v.device());
  T* vy = v.data<T>();
  std::copy_n(values.begin(), kept, vy);
  const double fill = a.get<double>("fill_value");
  if constexpr (!std::is_floating_point_v<T>) {
    if (!(fill >= static_cast<double>(std::numeric_limits<T>::min()) &&
          fill <= static_cast<double>(std::numeric_limits<T>::max())))
      throw ValueError(ctx.node.op + " '" + ctx.node.name + "': fill_value " + std::to_string(fill) + " is not a " +
                       to_string(x.dtype()) + " value");
  }
  std::fill(vy + kept, vy + m, static_cast<T>(fill));
  auto write = [&](const std::vector<std::int32_t>& src, std::int32_t pad) {
    Tensor& t = ctx.output(slot++);
    t.reset(Shape({m}), DType::int32, t.device());
    std::int32_t* y = t.data<std::int32_t>();
    std::copy_n(src.begin(), kept, y);
    std::fill(y + kept, y + m, pad);
  };
  if (a.get<bool>("return_index")) write(first, 1);  // Keras pads the index with 1
  if (a.get<bool>("return_inverse")) {
    std::copy(inverse.begin(), inverse.end(), ctx.output(slot++).data<std::int32_t>());
  }
  if (a.get<bool>("return_counts")) write(counts, 0);
}

void unique_kernel(KernelContext& ctx) {
  with_numeric_type(ctx.input(0).dtype(), [&](auto t) { unique_kernel_of<decltype(t)>(ctx); });
}

}  // namespace

void register_data_sized_kernels(OpRegistry& r) {
  r.add_kernel("nonzero", DeviceType::cpu, {.run = nonzero_kernel});
  r.add_kernel("bincount", DeviceType::cpu, {.run = bincount_kernel});
  r.add_kernel("unique", DeviceType::cpu, {.run = unique_kernel});
}

}  // namespace strata::cpu
