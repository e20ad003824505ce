// Ops the sequence layers need: concat_last / split_last (Bidirectional's concat merge)
// and embedding_lookup / embedding_lookup_grad (Embedding).
#include <string>

#include "core/cuda/array_kernels.h"
#include "core/cuda/embedding_kernels.h"
#include "core/cuda/sequence_kernels.h"
#include "core/op_registry.h"
#include "core/ops.h"
#include "core/ops/cuda_kernel.h"
#include "core/ops/sequence_ops.h"
#include "core/ops/shape_util.h"

namespace strata::ops {

namespace {

std::int64_t id_at(const Tensor& ids, std::int64_t i) {
  switch (ids.dtype()) {
    case DType::float32: return static_cast<std::int64_t>(ids.data<float>()[i]);
    case DType::int32: return ids.data<std::int32_t>()[i];
    case DType::int64: return ids.data<std::int64_t>()[i];
    case DType::string: throw ValueError("token ids must be numbers, got strings (use StringLookup first)");
  }
  return 0;
}

std::int64_t checked_id(const KernelContext& ctx, const Tensor& ids, std::int64_t i, std::int64_t vocab) {
  std::int64_t v = id_at(ids, i);
  if (v < 0 || v >= vocab) throw ValueError(token_id_out_of_range(ctx.node, v, i, vocab));
  return v;
}

// The product of every dim but the last (counted from the shape: a part of width 0 has
// rows too, which the other part's copy needs).
std::int64_t rows_of(const Shape& s) { return s.product(0, s.rank() - 1); }

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
         .cpu_kernel = [](KernelContext& ctx) {
           const std::int64_t na = ctx.input(0).shape()[-1], nb = ctx.input(1).shape()[-1];
           const std::int64_t rows = rows_of(ctx.output(0).shape());
           const float* a = ctx.input(0).data<float>();
           const float* b = ctx.input(1).data<float>();
           float* o = ctx.output(0).data<float>();
           for (std::int64_t r = 0; r < rows; ++r) {
             std::copy_n(a + r * na, na, o + r * (na + nb));
             std::copy_n(b + r * nb, nb, o + r * (na + nb) + na);
           }
         },
         .gradient = [](const Node& n, const std::vector<Output>& g) {
           auto parts = g[0].graph->add_node("split_last", {g[0], n.inputs[0], n.inputs[1]});
           return std::vector<Output>{parts[0], parts[1]};
         },
         .cuda_kernel = STRATA_CUDA_KERNEL(cuda::concat_last)});
  r.add({.name = "split_last",  // (g, like_a, like_b) -> g's last axis split as a and b
         .infer = [](const InferContext& ctx) {
           expect_inputs(ctx, 3);
           return std::vector<TensorSpec>{ctx.inputs[1], ctx.inputs[2]};
         },
         .cpu_kernel = [](KernelContext& ctx) {
           const std::int64_t na = ctx.output(0).shape()[-1], nb = ctx.output(1).shape()[-1];
           const std::int64_t rows = rows_of(ctx.output(0).shape());
           const float* g = ctx.input(0).data<float>();
           float* a = ctx.output(0).data<float>();
           float* b = ctx.output(1).data<float>();
           for (std::int64_t r = 0; r < rows; ++r) {
             std::copy_n(g + r * (na + nb), na, a + r * na);
             std::copy_n(g + r * (na + nb) + na, nb, b + r * nb);
           }
         },
         .gradient = [](const Node&, const std::vector<Output>& g) {
           return std::vector<Output>{concat_last(g[0], g[1]), Output{}, Output{}};
         },
         .cuda_kernel = STRATA_CUDA_KERNEL(cuda::split_last)});
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
         .cpu_kernel = [](KernelContext& ctx) {
           const Tensor& table = ctx.input(0);
           const Tensor& ids = ctx.input(1);
           const std::int64_t V = table.shape()[0], D = table.shape()[1];
           const float* t = table.data<float>();
           float* o = ctx.output(0).data<float>();
           for (std::int64_t i = 0; i < ids.size(); ++i) std::copy_n(t + checked_id(ctx, ids, i, V) * D, D, o + i * D);
         },
         .gradient = [](const Node& n, const std::vector<Output>& g) {
           Output d = g[0].graph->add("embedding_lookup_grad", {g[0], n.inputs[1], n.inputs[0]}, n.attrs);
           return std::vector<Output>{d, Output{}};
         },
         .cuda_kernel = STRATA_CUDA_KERNEL(cuda::embedding_lookup)});
  r.add({.name = "embedding_lookup_grad",  // (g (...,D), ids, table) -> scatter-add into table's shape
         .infer = [](const InferContext& ctx) {
           expect_inputs(ctx, 3);
           return std::vector<TensorSpec>{ctx.inputs[2]};
         },
         .cpu_kernel = [](KernelContext& ctx) {
           const Tensor& ids = ctx.input(1);
           Tensor& out = ctx.output(0);
           const std::int64_t V = out.shape()[0], D = out.shape()[1];
           const float* g = ctx.input(0).data<float>();
           float* o = out.data<float>();
           std::fill_n(o, out.size(), 0.f);
           for (std::int64_t i = 0; i < ids.size(); ++i) {
             float* row = o + checked_id(ctx, ids, i, V) * D;
             for (std::int64_t d = 0; d < D; ++d) row[d] += g[i * D + d];
           }
         },
         .gradient = [](const Node& n, const std::vector<Output>& g) {
           Output d = g[0].graph->add("embedding_lookup", {g[0], n.inputs[1]}, n.attrs);
           return std::vector<Output>{d, Output{}, Output{}};
         },
         .cuda_kernel = STRATA_CUDA_KERNEL(cuda::embedding_lookup_grad)});
  r.add({.name = "repeat_vector",  // (B, F) -> (B, n, F)
         .infer = [](const InferContext& ctx) {
           expect_inputs(ctx, 1);
           expect_float_input(ctx, 0);
           const Shape& x = ctx.inputs[0].shape;
           if (x.rank() != 2) throw ShapeError("repeat_vector: expects input of rank 2 (batch, features), got " + x.to_string());
           return std::vector<TensorSpec>{{Shape{x[0], ctx.attrs.get<std::int64_t>("n"), x[1]}, DType::float32}};
         },
         .cpu_kernel = [](KernelContext& ctx) {
           const std::int64_t B = ctx.input(0).shape()[0], F = ctx.input(0).shape()[1];
           const std::int64_t n = ctx.node.attrs.get<std::int64_t>("n");
           const float* x = ctx.input(0).data<float>();
           float* o = ctx.output(0).data<float>();
           for (std::int64_t b = 0; b < B; ++b)
             for (std::int64_t k = 0; k < n; ++k) std::copy_n(x + b * F, F, o + (b * n + k) * F);
         },
         .gradient = [](const Node&, const std::vector<Output>& g) {
           return std::vector<Output>{reduce_sum(g[0], {1})};
         },
         .cuda_kernel = STRATA_CUDA_KERNEL(cuda::repeat_vector)});
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
         .cpu_kernel = [](KernelContext& ctx) {
           std::copy_n(static_cast<const char*>(ctx.input(0).raw_data()), ctx.input(0).nbytes(),
                       static_cast<char*>(ctx.output(0).raw_data()));
         },
         .gradient = [](const Node& n, const std::vector<Output>& g) {
           return std::vector<Output>{reshape_like(g[0], n.inputs[0]), Output{}};
         },
         // The same elements in the same order: a reshape's copy.
         .cuda_kernel = STRATA_CUDA_KERNEL(cuda::copy_input)});
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
