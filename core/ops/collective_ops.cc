#include "core/ops/collective_ops.h"

#include <string>

#include "core/collective.h"
#include "core/error.h"
#include "core/op_registry.h"
#include "core/ops/register.h"

namespace strata::ops {

Collective& collective_of(const KernelContext& ctx) {
  if (!ctx.collective) {
    throw Error(ctx.node.op + " '" + ctx.node.name +
                "': this Program was run without a communicator (data-parallel train steps run through Model::fit "
                "under a distribution::DataParallel)");
  }
  return *ctx.collective;
}

Output all_reduce_start(Output batch, const std::vector<Output>& values) {
  if (values.empty()) throw ValueError("all_reduce_start: no values to reduce");
  std::vector<Output> inputs{batch};
  inputs.insert(inputs.end(), values.begin(), values.end());
  return batch.graph->add("all_reduce_start", inputs, {}, "all_reduce");
}

std::vector<Output> all_reduce_wait(Output started, const std::vector<Output>& like) {
  std::vector<std::int64_t> ranks, dims;
  for (const auto& v : like) {
    const Shape& s = v.shape();
    if (!s.is_fully_defined()) {
      throw ShapeError("all_reduce_wait: every value's shape must be known, got " + s.to_string());
    }
    ranks.push_back(s.rank());
    dims.insert(dims.end(), s.dims().begin(), s.dims().end());
  }
  Attrs attrs;
  attrs.set("ranks", ranks);
  attrs.set("dims", dims);
  return started.graph->add_node("all_reduce_wait", {started}, std::move(attrs), "all_reduce_wait");
}

void register_collective_ops(OpRegistry& r) {
  r.add({.name = "all_reduce_start",
         .infer = [](const InferContext& ctx) {
           if (ctx.inputs.size() < 2) throw ValueError("all_reduce_start: expects a batch and at least one value");
           if (ctx.inputs[0].shape.rank() < 1) {
             throw ShapeError("all_reduce_start: the batch reference must have a batch dimension, got " +
                              ctx.inputs[0].shape.to_string());
           }
           std::int64_t total = 1;  // the trailing sample count
           for (std::size_t i = 1; i < ctx.inputs.size(); ++i) {
             const TensorSpec& v = ctx.inputs[i];
             if (v.dtype != DType::float32 || !v.shape.is_fully_defined()) {
               throw ValueError("all_reduce_start: value " + std::to_string(i - 1) +
                                " must be float32 of known shape, got " + to_string(v.dtype) + " " + v.shape.to_string());
             }
             total += v.shape.num_elements();
           }
           return std::vector<TensorSpec>{{Shape{total}, DType::float32}};
         },
         .differentiable = false,
         .schedule = OpDef::Schedule::early});
  r.add({.name = "all_reduce_wait",
         .infer = [](const InferContext& ctx) {
           if (ctx.inputs.size() != 1) throw ValueError("all_reduce_wait: expects one started all-reduce");
           const auto& ranks = ctx.attrs.get<std::vector<std::int64_t>>("ranks");
           const auto& dims = ctx.attrs.get<std::vector<std::int64_t>>("dims");
           std::vector<TensorSpec> out;
           std::size_t at = 0;
           std::int64_t total = 1;
           for (std::int64_t rank : ranks) {
             if (rank < 0 || at + static_cast<std::size_t>(rank) > dims.size()) {
               throw ValueError("all_reduce_wait: its ranks and dims attributes disagree");
             }
             Shape s(std::vector<std::int64_t>(dims.begin() + static_cast<std::ptrdiff_t>(at),
                                               dims.begin() + static_cast<std::ptrdiff_t>(at + rank)));
             at += static_cast<std::size_t>(rank);
             total += s.num_elements();
             out.push_back({s, DType::float32});
           }
           if (ctx.inputs[0].shape != Shape{total}) {
             throw ShapeError("all_reduce_wait: expects a started buffer of " + std::to_string(total) +
                              " floats, got " + ctx.inputs[0].shape.to_string());
           }
           return out;
         },
         .differentiable = false,
         .schedule = OpDef::Schedule::late});
}

}  // namespace strata::ops
