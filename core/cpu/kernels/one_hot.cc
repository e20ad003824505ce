// The CPU kernels of one_hot and categorical_encode (core/ops/one_hot.h): float32 rows
// with a 1 (or a count) at each index.
#include <algorithm>
#include <cmath>
#include <string>

#include "core/cpu/kernels/register.h"
#include "core/op_registry.h"

namespace strata::cpu {

namespace {

template <typename T>
void fill_rows(const Tensor& indices, Tensor& out, std::int64_t classes) {
  const T* in = indices.data<T>();
  float* y = out.data<float>();
  std::fill_n(y, out.size(), 0.f);
  for (std::int64_t i = 0; i < indices.size(); ++i) {
    const double v = static_cast<double>(in[i]);
    if (v >= 0 && v < static_cast<double>(classes) && v == std::floor(v)) y[i * classes + static_cast<std::int64_t>(v)] = 1.f;
  }
}

template <typename T>
void encode_rows(const Tensor& indices, Tensor& out, std::int64_t depth, bool counts) {
  const T* in = indices.data<T>();
  float* y = out.data<float>();
  std::fill_n(y, out.size(), 0.f);
  const std::int64_t rows = out.size() / depth;
  const std::int64_t per_row = rows == 0 ? 0 : indices.size() / rows;
  for (std::int64_t r = 0; r < rows; ++r) {
    for (std::int64_t j = 0; j < per_row; ++j) {
      const auto v = static_cast<std::int64_t>(in[r * per_row + j]);
      if (v < 0 || v >= depth) continue;
      float& slot = y[r * depth + v];
      slot = counts ? slot + 1.f : 1.f;
    }
  }
}

void one_hot_kernel(KernelContext& ctx) {
  const Tensor& indices = ctx.input(0);
  const auto classes = ctx.node.attrs.get<std::int64_t>("num_classes");
  switch (indices.dtype()) {
    case DType::float32: fill_rows<float>(indices, ctx.output(0), classes); break;
    case DType::int32: fill_rows<std::int32_t>(indices, ctx.output(0), classes); break;
    case DType::int64: fill_rows<std::int64_t>(indices, ctx.output(0), classes); break;
    case DType::string: break;  // refused when the graph is defined
  }
}

void categorical_encode_kernel(KernelContext& ctx) {
  const Tensor& indices = ctx.input(0);
  const auto depth = ctx.node.attrs.get<std::int64_t>("depth");
  const bool counts = ctx.node.attrs.get<std::string>("mode") == "count";
  if (indices.dtype() == DType::int32) {
    encode_rows<std::int32_t>(indices, ctx.output(0), depth, counts);
  } else {
    encode_rows<std::int64_t>(indices, ctx.output(0), depth, counts);
  }
}

}  // namespace

void register_one_hot_kernels(OpRegistry& r) {
  r.add_kernel("one_hot", DeviceType::cpu, {.run = one_hot_kernel});
  r.add_kernel("categorical_encode", DeviceType::cpu, {.run = categorical_encode_kernel});
}

}  // namespace strata::cpu
