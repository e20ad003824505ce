// Ops the sequence layers need: concat_last / split_last (Bidirectional's concat merge),
// embedding_lookup / embedding_lookup_grad (Embedding), repeat_vector and unfold_time:
// shape inference and gradients (the CPU kernels: register_sequence_kernels).
#include <string>

#include "core/op_registry.h"
#include "core/ops.h"
#include "core/ops/sequence_ops.h"
#include "core/ops/shape_util.h"

namespace strata::ops {

namespace {

Shape lead_shape(const Shape& s) { return Shape(std::vector<std::int64_t>(s.dims().begin(), s.dims().end() - 1)); }

}  // namespace

void register_sequence_ops(OpRegistry& r) {
  r.add({.name = "concat_last",
         .infer = [](const InferContext& ctx) {
           expect_inputs(ctx, 2);
           const Shape& a = ctx.inputs[0].shape;
           const Shape& b = ctx.inputs[1].shape;
           if (a.rank() < 1 || a.rank() != b.rank() || !lead_shape(a).is_compatible_with(lead_shape(b))) {
             throw ShapeError("concat_last: cannot concatenate " + a.to_string() + " and " + b.to_string());
           }
           return std::vector<TensorSpec>{{a.with_dim(-1, a[-1] + b[-1]), DType::float32}};
         },
         .gradient = [](const Node& n, const std::vector<Output>& g) {
           auto parts = g[0].graph->add_node("split_last", {g[0], n.inputs[0], n.inputs[1]});
           return std::vector<Output>{parts[0], parts[1]};
         }});
  r.add({.name = "split_last",  // (g, like_a, like_b) -> g's last axis split as a and b
         .infer = [](const InferContext& ctx) {
           expect_inputs(ctx, 3);
           return std::vector<TensorSpec>{ctx.inputs[1], ctx.inputs[2]};
         },
         .gradient = [](const Node&, const std::vector<Output>& g) {
           return std::vector<Output>{concat_last(g[0], g[1]), Output{}, Output{}};
         }});
  r.add({.name = "embedding_lookup",  // (table (V,D), ids (...)) -> (..., D)
         .infer = [](const InferContext& ctx) {
           expect_inputs(ctx, 2);
           expect_float_input(ctx, 0, "embeddings");
           const Shape& t = ctx.inputs[0].shape;
           if (t.rank() != 2) throw ShapeError("embedding_lookup: embeddings must be 2-D, got " + t.to_string());
           std::vector<std::int64_t> dims = ctx.inputs[1].shape.dims();
           dims.push_back(t[1]);
           return std::vector<TensorSpec>{{Shape(dims), DType::float32}};
         },
         .gradient = [](const Node& n, const std::vector<Output>& g) {
           Output d = g[0].graph->add("embedding_lookup_grad", {g[0], n.inputs[1], n.inputs[0]}, n.attrs);
           return std::vector<Output>{d, Output{}};
         }});
  r.add({.name = "embedding_lookup_grad",  // (g (...,D), ids, table) -> scatter-add into table's shape
         .infer = [](const InferContext& ctx) {
           expect_inputs(ctx, 3);
           return std::vector<TensorSpec>{ctx.inputs[2]};
         },
         .gradient = [](const Node& n, const std::vector<Output>& g) {
           Output d = g[0].graph->add("embedding_lookup", {g[0], n.inputs[1]}, n.attrs);
           return std::vector<Output>{d, Output{}, Output{}};
         }});
  r.add({.name = "repeat_vector",  // (B, F) -> (B, n, F)
         .infer = [](const InferContext& ctx) {
           expect_inputs(ctx, 1);
           expect_float_input(ctx, 0);
           const Shape& x = ctx.inputs[0].shape;
           if (x.rank() != 2) throw ShapeError("repeat_vector: expects input of rank 2 (batch, features), got " + x.to_string());
           return std::vector<TensorSpec>{{Shape{x[0], ctx.attrs.get<std::int64_t>("n"), x[1]}, DType::float32}};
         },
         .gradient = [](const Node&, const std::vector<Output>& g) {
           return std::vector<Output>{reduce_sum(g[0], {1})};
         }});
  r.add({.name = "unfold_time",  // (y (B*T, ...), like (B, T, ...)) -> (B, T, y's other dims)
         .infer = [](const InferContext& ctx) {
           expect_inputs(ctx, 2);
           const Shape& y = ctx.inputs[0].shape;
           const Shape& like = ctx.inputs[1].shape;
           if (y.rank() < 1 || like.rank() < 2) throw ShapeError("unfold_time: bad shapes " + y.to_string() + ", " + like.to_string());
           std::vector<std::int64_t> dims{like[0], like[1]};
           dims.insert(dims.end(), y.dims().begin() + 1, y.dims().end());
           return std::vector<TensorSpec>{{Shape(dims), ctx.inputs[0].dtype}};
         },
         .gradient = [](const Node& n, const std::vector<Output>& g) {
           return std::vector<Output>{reshape_like(g[0], n.inputs[0]), Output{}};
         }});
}

std::string token_id_out_of_range(const Node& node, std::int64_t id, std::int64_t index, std::int64_t vocab) {
  return node.attrs.get_or<std::string>("layer", node.name) + ": token id " + std::to_string(id) + " at index " +
         std::to_string(index) + " is out of range [0, " + std::to_string(vocab) + ") (input_dim is " +
         std::to_string(vocab) + ")";
}

Output repeat_vector(Output x, std::int64_t n) { return x.graph->add("repeat_vector", {x}, Attrs{{"n", n}}); }
Output unfold_time(Output y, Output like) { return y.graph->add("unfold_time", {y, like}); }

Output concat_last(Output a, Output b) { return a.graph->add("concat_last", {a, b}); }

Output embedding_lookup(Output table, Output ids, const std::string& layer) {
  return table.graph->add("embedding_lookup", {table, ids}, Attrs{{"layer", layer}});
}

}  // namespace strata::ops
