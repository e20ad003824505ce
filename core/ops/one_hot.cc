#include "core/ops/one_hot.h"

#include <algorithm>
#include <cmath>

#include "core/error.h"
#include "core/op_registry.h"
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
           }
         },
         .differentiable = false});
}

Output one_hot(Output indices, std::int64_t num_classes) {
  return indices.graph->add("one_hot", {indices}, Attrs{{"num_classes", num_classes}});
}

}  // namespace strata::ops
