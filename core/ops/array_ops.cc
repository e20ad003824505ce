// pad, crop, transpose, concat, training_select, and the reshapes of some axes
// (split_axis, merge_axes, expand_dims): shape inference and gradients. The kernels are
// the CPU's (register_array_kernels) and CUDA's strided copies.
#include "core/ops/array_ops.h"

#include <algorithm>
#include <numeric>

#include "core/op_registry.h"
#include "core/ops.h"
#include "core/ops/shape_util.h"

namespace strata::ops {

namespace {

using Dims = std::vector<std::int64_t>;

void check_per_axis(const InferContext& ctx, const Dims& before, const Dims& after) {
  const int rank = ctx.inputs[0].shape.rank();
  if (static_cast<int>(before.size()) != rank || static_cast<int>(after.size()) != rank) {
    throw ValueError(ctx.op + ": needs one before/after entry per axis of " + ctx.inputs[0].shape.to_string());
  }
  for (int i = 0; i < rank; ++i) {
    if (before[i] < 0 || after[i] < 0) throw ValueError(ctx.op + ": amounts must be non-negative");
  }
}

const Dims& vec(const Attrs& a, const char* key) { return a.get<Dims>(key); }

}  // namespace

void register_array_ops(OpRegistry& r) {
  // Reshapes of some axes that leave the others as they are, known or not (reshape()
  // takes one unknown dim only).
  r.add({.name = "split_axis",
         .infer = [](const InferContext& ctx) {
           expect_inputs(ctx, 1);
           const Shape& x = ctx.inputs[0].shape;
           const int axis = x.normalize_axis(static_cast<int>(ctx.attrs.get<std::int64_t>("axis")));
           const Dims& parts = vec(ctx.attrs, "parts");
           std::int64_t product = 1;
           for (auto p : parts) {
             if (p <= 0) throw ValueError(ctx.op + ": parts must be positive, got " + Shape(parts).to_string());
             product *= p;
           }
           if (x[axis] != kUnknownDim && x[axis] != product) {
             throw ShapeError(ctx.op + ": axis " + std::to_string(axis) + " of " + x.to_string() +
                              " cannot be split into " + Shape(parts).to_string());
           }
           Dims d = x.dims();
           d.erase(d.begin() + axis);
           d.insert(d.begin() + axis, parts.begin(), parts.end());
           return std::vector<TensorSpec>{{Shape(d), ctx.inputs[0].dtype}};
         },
         .gradient = [](const Node& n, const std::vector<Output>& g) {
           return std::vector<Output>{reshape_like(g[0], n.inputs[0])};
         }});
  r.add({.name = "merge_axes",
         .infer = [](const InferContext& ctx) {
           expect_inputs(ctx, 1);
           const Shape& x = ctx.inputs[0].shape;
           const auto first = ctx.attrs.get<std::int64_t>("first"), count = ctx.attrs.get<std::int64_t>("count");
           if (first < 0 || count < 1 || first + count > x.rank()) {
             throw ValueError(ctx.op + ": axes " + std::to_string(first) + ".." + std::to_string(first + count - 1) +
                              " are not axes of " + x.to_string());
           }
           std::int64_t merged = 1;
           for (std::int64_t i = first; i < first + count; ++i) {
             merged = x.dims()[i] == kUnknownDim || merged == kUnknownDim ? kUnknownDim : merged * x.dims()[i];
           }
           Dims d(x.dims().begin(), x.dims().begin() + first);
           d.push_back(merged);
           d.insert(d.end(), x.dims().begin() + first + count, x.dims().end());
           return std::vector<TensorSpec>{{Shape(d), ctx.inputs[0].dtype}};
         },
         .gradient = [](const Node& n, const std::vector<Output>& g) {
           return std::vector<Output>{reshape_like(g[0], n.inputs[0])};
         }});
  r.add({.name = "expand_dims",
         .infer = [](const InferContext& ctx) {
           expect_inputs(ctx, 1);
           const Shape& x = ctx.inputs[0].shape;
           const auto axis = ctx.attrs.get<std::int64_t>("axis");
           const std::int64_t at = axis < 0 ? axis + x.rank() + 1 : axis;
           if (at < 0 || at > x.rank()) {
             throw ValueError(ctx.op + ": axis " + std::to_string(axis) + " is out of range for " + x.to_string());
           }
           Dims d = x.dims();
           d.insert(d.begin() + at, 1);
           return std::vector<TensorSpec>{{Shape(d), ctx.inputs[0].dtype}};
         },
         .gradient = [](const Node& n, const std::vector<Output>& g) {
           return std::vector<Output>{reshape_like(g[0], n.inputs[0])};
         },
         .takes_strings = true});
  r.add({.name = "pad",
         .infer = [](const InferContext& ctx) {
           expect_inputs(ctx, 1);
           expect_float_input(ctx, 0);
           const Dims &b = vec(ctx.attrs, "before"), &a = vec(ctx.attrs, "after");
           check_per_axis(ctx, b, a);
           Dims d = ctx.inputs[0].shape.dims();
           for (std::size_t i = 0; i < d.size(); ++i) {
             if (d[i] != kUnknownDim) d[i] += b[i] + a[i];
           }
           return std::vector<TensorSpec>{{Shape(d), DType::float32}};
         },
         .gradient = [](const Node& n, const std::vector<Output>& g) {
           return std::vector<Output>{crop(g[0], vec(n.attrs, "before"), vec(n.attrs, "after"))};
         }});
  // crop and concat move elements of any dtype (eager slicing and joining of labels).
  r.add({.name = "crop",
         .infer = [](const InferContext& ctx) {
           expect_inputs(ctx, 1);
           const Dims &b = vec(ctx.attrs, "before"), &a = vec(ctx.attrs, "after");
           check_per_axis(ctx, b, a);
           Dims d = ctx.inputs[0].shape.dims();
           for (std::size_t i = 0; i < d.size(); ++i) {
             if (d[i] == kUnknownDim) continue;
             d[i] -= b[i] + a[i];
             if (d[i] < 0) {
               throw ShapeError(ctx.op + ": cannot remove " + std::to_string(b[i] + a[i]) + " elements from axis " +
                                std::to_string(i) + " of " + ctx.inputs[0].shape.to_string());
             }
           }
           return std::vector<TensorSpec>{{Shape(d), ctx.inputs[0].dtype}};
         },
         .gradient = [](const Node& n, const std::vector<Output>& g) {
           return std::vector<Output>{pad(g[0], vec(n.attrs, "before"), vec(n.attrs, "after"))};
         },
         .takes_strings = true});
  r.add({.name = "transpose",
         .infer = [](const InferContext& ctx) {
           expect_inputs(ctx, 1);
           expect_float_input(ctx, 0);
           const Shape& x = ctx.inputs[0].shape;
           const Dims& perm = vec(ctx.attrs, "perm");
           Dims sorted = perm;
           std::sort(sorted.begin(), sorted.end());
           Dims iota(static_cast<std::size_t>(x.rank()));
           std::iota(iota.begin(), iota.end(), 0);
           if (sorted != iota) {
             throw ValueError(ctx.op + ": perm " + Shape(perm).to_string() + " is not a permutation of the axes of " +
                              x.to_string());
           }
           Dims d;
           for (auto p : perm) d.push_back(x.dims()[p]);
           return std::vector<TensorSpec>{{Shape(d), DType::float32}};
         },
         .gradient = [](const Node& n, const std::vector<Output>& g) {
           const Dims& perm = vec(n.attrs, "perm");
           Dims inverse(perm.size());
           for (std::size_t i = 0; i < perm.size(); ++i) inverse[perm[i]] = static_cast<std::int64_t>(i);
           return std::vector<Output>{transpose(g[0], inverse)};
         }});
  r.add({.name = "concat",
         .infer = [](const InferContext& ctx) {
           if (ctx.inputs.empty()) throw ValueError("concat: needs at least one input");
           const Shape& first = ctx.inputs[0].shape;
           const int axis = first.normalize_axis(static_cast<int>(ctx.attrs.get<std::int64_t>("axis")));
           Dims d = first.dims();
           for (std::size_t i = 0; i < ctx.inputs.size(); ++i) {
             if (ctx.inputs[i].dtype != ctx.inputs[0].dtype) {
               throw ValueError("concat: inputs must have one dtype, got " + to_string(ctx.inputs[0].dtype) + " and " +
                                to_string(ctx.inputs[i].dtype));
             }
             const Shape& s = ctx.inputs[i].shape;
             bool ok = s.rank() == first.rank();
             for (int a = 0; ok && a < s.rank(); ++a) {
               if (a != axis) ok = Shape{s.dims()[a]}.is_compatible_with(Shape{first.dims()[a]});
             }
             if (!ok) {
               std::string all;
               for (std::size_t j = 0; j < ctx.inputs.size(); ++j) all += (j ? ", " : "") + ctx.inputs[j].shape.to_string();
               throw ShapeError("concat: inputs must match in every axis but " + std::to_string(axis) + ", got " + all);
             }
             if (i > 0) d[axis] = (d[axis] == kUnknownDim || s.dims()[axis] == kUnknownDim) ? kUnknownDim
                                                                                          : d[axis] + s.dims()[axis];
           }
           return std::vector<TensorSpec>{{Shape(d), ctx.inputs[0].dtype}};
         },
         .gradient = [](const Node& n, const std::vector<Output>& g) {
           const Shape& ys = g[0].shape();
           const int rank = ys.rank();
           const int axis = ys.normalize_axis(static_cast<int>(n.attrs.get<std::int64_t>("axis")));
           const std::int64_t total = ys.dims()[axis];
           std::vector<Output> out;
           std::int64_t offset = 0;
           for (const Output& x : n.inputs) {
             const std::int64_t size = x.shape().dims()[axis];
             if (size == kUnknownDim || total == kUnknownDim) {
               throw NotImplementedError("concat: the gradient needs known sizes along the concatenation axis");
             }
             Dims before(rank, 0), after(rank, 0);
             before[axis] = offset;
             after[axis] = total - offset - size;
             out.push_back(crop(g[0], before, after));
             offset += size;
           }
           return out;
         },
         .takes_strings = true});
  r.add({.name = "training_select",
         .infer = [](const InferContext& ctx) {
           expect_inputs(ctx, 2);
           expect_float_input(ctx, 0);
           expect_float_input(ctx, 1);
           if (ctx.inputs[0].shape != ctx.inputs[1].shape) {
             throw ShapeError(ctx.op + ": both branches must have one shape, got " + ctx.inputs[0].shape.to_string() +
                              " and " + ctx.inputs[1].shape.to_string());
           }
           return std::vector<TensorSpec>{ctx.inputs[0]};
         },
         .gradient = [](const Node&, const std::vector<Output>& g) {
           Output zero = zeros_like(g[0]);
           return std::vector<Output>{training_select(g[0], zero), training_select(zero, g[0])};
         },
         .reads_mode = true});
}

Output pad(Output x, std::vector<std::int64_t> before, std::vector<std::int64_t> after) {
  return x.graph->add("pad", {x}, Attrs{{"before", std::move(before)}, {"after", std::move(after)}});
}
Output crop(Output x, std::vector<std::int64_t> before, std::vector<std::int64_t> after) {
  return x.graph->add("crop", {x}, Attrs{{"before", std::move(before)}, {"after", std::move(after)}});
}
Output transpose(Output x, std::vector<std::int64_t> perm) {
  return x.graph->add("transpose", {x}, Attrs{{"perm", std::move(perm)}});
}
Output concat(const std::vector<Output>& xs, int axis) {
  if (xs.empty()) throw ValueError("concat: needs at least one input");
  return xs[0].graph->add("concat", xs, Attrs{{"axis", static_cast<std::int64_t>(axis)}});
}
Output split_axis(Output x, int axis, std::vector<std::int64_t> parts) {
  return x.graph->add("split_axis", {x}, Attrs{{"axis", static_cast<std::int64_t>(axis)}, {"parts", std::move(parts)}});
}
Output merge_axes(Output x, int first, int count) {
  return x.graph->add("merge_axes", {x},
                      Attrs{{"first", static_cast<std::int64_t>(first)}, {"count", static_cast<std::int64_t>(count)}});
}
Output expand_dims(Output x, int axis) {
  return x.graph->add("expand_dims", {x}, Attrs{{"axis", static_cast<std::int64_t>(axis)}});
}
Output training_select(Output in_training, Output in_inference) {
  return in_training.graph->add("training_select", {in_training, in_inference});
}

}  // namespace strata::ops
