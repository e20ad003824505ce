#include "core/ops/one_hot.h"

#include <string>
#include <vector>

#include "core/error.h"
#include "core/op_registry.h"
#include "core/ops/register.h"
#include "core/ops/shape_util.h"

namespace strata::ops {

namespace {

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
         .differentiable = false});
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
         .differentiable = false});
}

Output categorical_encode(Output indices, std::int64_t depth, const std::string& mode) {
  return indices.graph->add("categorical_encode", {indices}, Attrs{{"depth", depth}, {"mode", mode}});
}

Output one_hot(Output indices, std::int64_t num_classes) {
  return indices.graph->add("one_hot", {indices}, Attrs{{"num_classes", num_classes}});
}

}  // namespace strata::ops
