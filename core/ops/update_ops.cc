// Variable updates. They are stateful: the Program runs them after every other node of
// a step, in creation order, so every value the step computes from a variable sees it as
// it was before the step. An update that takes a variable itself as an input reads it
// as left by the updates created before it (optimizers create the step counter's
// increment last, so every update of a step reads the same count).
#include <cstring>

#include "core/cuda/update_kernels.h"
#include "core/op_registry.h"
#include "core/ops.h"
#include "core/ops/cuda_kernel.h"
#include "core/ops/shape_util.h"

namespace strata::ops {

namespace {

std::vector<TensorSpec> infer_update(const InferContext& ctx) {
  expect_inputs(ctx, 2);
  if (ctx.inputs[0].dtype != ctx.inputs[1].dtype) {
    throw ValueError(ctx.op + ": value of dtype " + to_string(ctx.inputs[1].dtype) +
                     " does not match variable of dtype " + to_string(ctx.inputs[0].dtype));
  }
  if (ctx.inputs[0].shape != ctx.inputs[1].shape && ctx.inputs[1].shape.rank() != 0) {
    throw ShapeError(ctx.op + ": value of shape " + ctx.inputs[1].shape.to_string() +
                     " does not match variable of shape " + ctx.inputs[0].shape.to_string());
  }
  return {};
}

Output add_update(const char* op, Output variable, Output value) {
  const Node& target = variable.graph->node(variable.node);
  if (target.op != "variable") {
    throw ValueError(std::string(op) + " must write a variable, got '" + target.name + "' (" + target.op + ")");
  }
  variable.graph->add_node(op, {variable, value}, {}, std::string(op) + "_" + target.name);
  // The handle names the update node; it has no outputs, only a place in the step.
  return {variable.graph, variable.graph->num_nodes() - 1, 0};
}

template <typename T, typename F>
void update(Tensor& var, const Tensor& value, F f) {
  T* pv = var.data<T>();
  const T* px = value.data<T>();
  const bool scalar = value.size() == 1;
  for (std::int64_t i = 0; i < var.size(); ++i) pv[i] = f(pv[i], px[scalar ? 0 : i]);
}

template <typename F>
void update_any(Tensor& var, const Tensor& value, F f) {
  if (var.dtype() != value.dtype()) throw ValueError("variable update: dtype mismatch");
  switch (var.dtype()) {
    case DType::float32: update<float>(var, value, f); break;
    case DType::int32: update<std::int32_t>(var, value, f); break;
    case DType::int64: update<std::int64_t>(var, value, f); break;
    case DType::string: throw ValueError("variable update: string variables are not updated by ops");
  }
}

}  // namespace

void register_update_ops(OpRegistry& r) {
  r.add({.name = "assign", .infer = infer_update,
         .cpu_kernel = [](KernelContext& ctx) {
           update_any(const_cast<Tensor&>(ctx.input(0)), ctx.input(1), [](auto, auto x) { return x; });
         },
         .differentiable = false, .stateful = true, .cuda_kernel = STRATA_CUDA_KERNEL(cuda::assign)});
  r.add({.name = "assign_add", .infer = infer_update,
         .cpu_kernel = [](KernelContext& ctx) {
           update_any(const_cast<Tensor&>(ctx.input(0)), ctx.input(1), [](auto v, auto x) { return v + x; });
         },
         .differentiable = false, .stateful = true, .cuda_kernel = STRATA_CUDA_KERNEL(cuda::assign_add)});
}

Output assign(Output variable, Output value) { return add_update("assign", variable, value); }
Output assign_add(Output variable, Output delta) { return add_update("assign_add", variable, delta); }

}  // namespace strata::ops
