#include "core/ops/one_hot.h"

#include <algorithm>
#include <cmath>

#include "core/cuda/indicator_kernels.h"
#include "core/error.h"
#include "core/op_registry.h"
#include "core/ops/cuda_kernel.h"
#include "core/ops/register.h"
#include "core/ops/shape_util.h"

namespace strata::ops {

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

// The output dims of categorical_encode for an input of `dims`.
std::vector<std::int64_t> encoded_dims(std::vector<std::int64_t> dims, std::int64_t depth, const std::string& mode) {
  if (mode == "one_hot") {
    if (dims.size() > 1 && dims.back() == 1) dims.pop_back();
  } else if (!dims.empty()) {
    dims.pop_back();
  }
  dims.push_back(depth);
  return dims;
}

}  // namespace

void register_one_hot_ops(OpRegistry& r) {
  r.add({.name = "one_hot",
         .infer = [](const InferContext& ctx) {
           expect_inputs(ctx, 1);
           const auto classes = ctx.attrs.get<std::int64_t>("num_classes");
           if (classes < 1) throw ValueError("one_hot: num_classes must be positive, got " + std::to_string(classes));
           std::vector<std::int64_t> dims = ctx.inputs[0].shape.dims();
           dims.push_back(classes);
           return std::vector<TensorSpec>{{Shape(dims), DType::float32}};
         },
         .cpu_kernel = [](KernelContext& ctx) {
           const Tensor& indices = ctx.input(0);
           const auto classes = ctx.node.attrs.get<std::int64_t>("num_classes");
           switch (indices.dtype()) {
             case DType::float32: fill_rows<float>(indices, ctx.output(0), classes); break;
             case DType::int32: fill_rows<std::int32_t>(indices, ctx.output(0), classes); break;
             case DType::int64: fill_rows<std::int64_t>(indices, ctx.output(0), classes); break;
             case DType::string: break;  // refused when the graph is defined
           }
         },
         .differentiable = false,
         .cuda_kernel = STRATA_CUDA_KERNEL(cuda::one_hot)});
  r.add({.name = "categorical_encode",
         .infer = [](const InferContext& ctx) {
           expect_inputs(ctx, 1);
           const auto depth = ctx.attrs.get<std::int64_t>("depth");
           const auto& mode = ctx.attrs.get<std::string>("mode");
           if (depth < 1) throw ValueError("categorical_encode: depth must be positive, got " + std::to_string(depth));
           if (mode != "one_hot" && mode != "multi_hot" && mode != "count") {
             throw ValueError("categorical_encode: mode must be one_hot, multi_hot or count, got '" + mode + "'");
           }
           const DType d = ctx.inputs[0].dtype;
           if (d != DType::int32 && d != DType::int64) {
             throw ValueError("categorical_encode: expects integer indices, got " + to_string(d));
           }
           return std::vector<TensorSpec>{{Shape(encoded_dims(ctx.inputs[0].shape.dims(), depth, mode)), DType::float32}};
         },
         .cpu_kernel = [](KernelContext& ctx) {
           const Tensor& indices = ctx.input(0);
           const auto depth = ctx.node.attrs.get<std::int64_t>("depth");
           const bool counts = ctx.node.attrs.get<std::string>("mode") == "count";
           if (indices.dtype() == DType::int32) {
             encode_rows<std::int32_t>(indices, ctx.output(0), depth, counts);
           } else {
             encode_rows<std::int64_t>(indices, ctx.output(0), depth, counts);
           }
         },
         .differentiable = false});
}

Output categorical_encode(Output indices, std::int64_t depth, const std::string& mode) {
  return indices.graph->add("categorical_encode", {indices}, Attrs{{"depth", depth}, {"mode", mode}});
}

Output one_hot(Output indices, std::int64_t num_classes) {
  return indices.graph->add("one_hot", {indices}, Attrs{{"num_classes", num_classes}});
}

}  // namespace strata::ops
