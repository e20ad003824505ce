// 2-D pooling and upsampling ops (core/ops/pool_ops.h): their inference and gradients,
// and the window geometry (pool_geometry) the CPU's pooling kernels read.
#include "core/ops/pool_ops.h"

#include <algorithm>
#include <cstdint>
#include <string>
#include <string_view>
#include <tuple>
#include <utility>
#include <vector>

#include "core/op_registry.h"
#include "core/ops.h"
#include "core/ops/conv_ops.h"
#include "core/ops/shape_util.h"

namespace strata::ops {

namespace {

Pool2DParams pool_params_of(const Attrs& a) {
  return {a.get<std::vector<std::int64_t>>("pool_size"), a.get<std::vector<std::int64_t>>("strides"),
          a.get<std::vector<std::int64_t>>("pads")};
}

// The params read in place from a node's attributes: what kernels use on every run
// (pool_params_of copies three vectors, which would allocate on every step).
struct PoolParamsRef {
  const std::vector<std::int64_t>& pool_size;
  const std::vector<std::int64_t>& strides;
  const std::vector<std::int64_t>& pads;
};

PoolParamsRef pool_params_ref(const Attrs& a) {
  return {a.get<std::vector<std::int64_t>>("pool_size"), a.get<std::vector<std::int64_t>>("strides"),
          a.get<std::vector<std::int64_t>>("pads")};
}

Attrs pool_attrs_of(const Pool2DParams& p) {
  return Attrs{{"pool_size", p.pool_size}, {"strides", p.strides}, {"pads", p.pads}};
}

// `p`: Pool2DParams or PoolParamsRef.
template <typename Params>
PoolGeom make_pool_geom(std::string_view op, const Shape& x, const Params& p) {
  if (x.rank() != 4) throw ShapeError(std::string(op) + ": input must have rank 4 (N, H, W, C), got " + x.to_string());
  if (p.pool_size.size() != 2 || p.strides.size() != 2 || p.pads.size() != 4 || p.pool_size[0] < 1 ||
      p.pool_size[1] < 1 || p.strides[0] < 1 || p.strides[1] < 1) {
    throw ValueError(std::string(op) + ": pool_size and strides must be two positive integers, pads four");
  }
  // A pad as large as the pool would make windows wholly in padding, which pool nothing
  // (Keras's "valid" and "same" never make one; the kernels assume none). A kSamePad pair
  // is "same" over the input's size (unknown while it is).
  std::int64_t pads[4];
  const std::int64_t sizes[2] = {x.dims()[1], x.dims()[2]};
  for (std::size_t a = 0; a < 2; ++a) {
    pads[2 * a] = p.pads[2 * a], pads[2 * a + 1] = p.pads[2 * a + 1];
    if (pads[2 * a] == kSamePad && pads[2 * a + 1] == kSamePad) {
      if (sizes[a] == kUnknownDim) {
        pads[2 * a] = pads[2 * a + 1] = 0;
      } else {
        std::tie(pads[2 * a], pads[2 * a + 1]) = same_pads(sizes[a], p.pool_size[a], p.strides[a], 1);
      }
    }
  }
  for (std::size_t i = 0; i < 4; ++i) {
    const std::int64_t k = p.pool_size[i / 2];
    if (pads[i] < 0 || pads[i] >= k) {
      throw ValueError(std::string(op) + ": pad " + std::to_string(p.pads[i]) + " (pads are top, bottom, left, right)" +
                       " must be at least 0 and smaller than the pool size " + std::to_string(k) +
                       " on its axis: a window wholly in padding pools nothing");
    }
  }
  PoolGeom g{x.dims()[0], x.dims()[1], x.dims()[2], x.dims()[3], 0, 0, p.pool_size[0], p.pool_size[1],
             p.strides[0], p.strides[1], pads[0], pads[2]};
  auto len = [&](std::int64_t size, std::int64_t k, std::int64_t s, std::int64_t before, std::int64_t after,
                 const char* axis) {
    if (size == kUnknownDim) return kUnknownDim;
    std::int64_t r = conv_output_length(size, k, s, 1, before, after);
    if (r < 1) {
      throw ShapeError(std::string(op) + ": pool " + axis + " " + std::to_string(k) +
                       " is larger than the padded input's " + std::to_string(size + before + after));
    }
    return r;
  };
  g.oh = len(g.h, g.kh, g.sh, pads[0], pads[1], "height");
  g.ow = len(g.w, g.kw, g.sw, pads[2], pads[3], "width");
  return g;
}

std::vector<TensorSpec> infer_pool(const InferContext& ctx) {
  expect_inputs(ctx, 1);
  expect_float_input(ctx, 0);
  PoolGeom g = make_pool_geom(ctx.op, ctx.inputs[0].shape, pool_params_of(ctx.attrs));
  return {{Shape{g.n, g.oh, g.ow, g.c}, DType::float32}};
}

std::vector<std::int64_t> hw(const Output& x) { return {x.shape()[1], x.shape()[2]}; }

// Inputs (x, dy) of a max-pool gradient: float, dy shaped as x pooled. Returns the
// geometry.
PoolGeom check_max_pool_grad_inputs(const InferContext& ctx) {
  expect_inputs(ctx, 2);
  expect_float_input(ctx, 0);
  expect_float_input(ctx, 1, "gradient");
  PoolGeom g = make_pool_geom(ctx.op, ctx.inputs[0].shape, pool_params_of(ctx.attrs));
  if (!ctx.inputs[1].shape.is_compatible_with(Shape{g.n, g.oh, g.ow, g.c})) {
    throw ShapeError(ctx.op + ": gradient " + ctx.inputs[1].shape.to_string() + " does not match the pooled shape of " +
                     ctx.inputs[0].shape.to_string());
  }
  return g;
}

}  // namespace

PoolGeom pool_geometry(std::string_view op, const Shape& x, const Attrs& attrs) {
  return make_pool_geom(op, x, pool_params_ref(attrs));
}

void register_pool_ops(OpRegistry& r) {
  r.add({.name = "max_pool2d", .infer = infer_pool,
         .gradient = [](const Node& n, const std::vector<Output>& g) {
           return std::vector<Output>{max_pool2d_grad(n.inputs[0], g[0], pool_params_of(n.attrs))};
         }});
  r.add({.name = "max_pool2d_grad",
         .infer = [](const InferContext& ctx) {
           check_max_pool_grad_inputs(ctx);
           return std::vector<TensorSpec>{ctx.inputs[0]};
         },
         .differentiable = false});
  r.add({.name = "max_pool2d_relu_grad",
         .infer = [](const InferContext& ctx) {
           const PoolGeom g = check_max_pool_grad_inputs(ctx);
           if (g.c == kUnknownDim) throw ShapeError(ctx.op + ": the channel count must be known");
           return std::vector<TensorSpec>{ctx.inputs[0], {Shape{g.c}, DType::float32}};
         },
         .differentiable = false});
  r.add({.name = "avg_pool2d", .infer = infer_pool,
         .gradient = [](const Node& n, const std::vector<Output>& g) {
           return std::vector<Output>{avg_pool2d_grad(g[0], hw(n.inputs[0]), pool_params_of(n.attrs), n.inputs[0])};
         }});
  r.add({.name = "avg_pool2d_grad",
         .infer = [](const InferContext& ctx) {
           if (ctx.inputs.size() != 2) expect_inputs(ctx, 1);
           expect_float_input(ctx, 0, "gradient");
           const Shape& dy = ctx.inputs[0].shape;
           if (dy.rank() != 4) throw ShapeError(ctx.op + ": gradient must have rank 4, got " + dy.to_string());
           const auto& size = ctx.attrs.get<std::vector<std::int64_t>>("input_size");
           Shape x{dy.dims()[0], size.at(0), size.at(1), dy.dims()[3]};
           for (int a = 1; a <= 2; ++a) {  // sizes unknown when the graph was built: the pooled input's
             if (x[a] != kUnknownDim) continue;
             if (ctx.inputs.size() != 2 || ctx.inputs[1].shape.rank() != 4) {
               throw ShapeError(ctx.op + ": input_size " + Shape(size).to_string() +
                                " has unknown sizes and no input of rank 4 to read them from");
             }
             x[a] = ctx.inputs[1].shape[a];
           }
           PoolGeom g = make_pool_geom(ctx.op, x, pool_params_of(ctx.attrs));
           if (!dy.is_compatible_with(Shape{g.n, g.oh, g.ow, g.c})) {
             throw ShapeError(ctx.op + ": gradient " + dy.to_string() + " does not match the pooled shape of " +
                              x.to_string());
           }
           return std::vector<TensorSpec>{{x, DType::float32}};
         },
         .gradient = [](const Node& n, const std::vector<Output>& g) {
           std::vector<Output> grads{avg_pool2d(g[0], pool_params_of(n.attrs))};
           if (n.inputs.size() == 2) grads.emplace_back();  // only its shape is read
           return grads;
         }});
  r.add({.name = "upsample_nearest2d",
         .infer = [](const InferContext& ctx) {
           expect_inputs(ctx, 1);
           expect_float_input(ctx, 0);
           const Shape& x = ctx.inputs[0].shape;
           if (x.rank() != 4) throw ShapeError(ctx.op + ": input must have rank 4, got " + x.to_string());
           const auto& s = ctx.attrs.get<std::vector<std::int64_t>>("size");
           if (s.size() != 2 || s[0] < 1 || s[1] < 1) throw ValueError(ctx.op + ": size must be two positive integers");
           auto scale = [](std::int64_t d, std::int64_t f) { return d == kUnknownDim ? d : d * f; };
           return std::vector<TensorSpec>{
               {Shape{x.dims()[0], scale(x.dims()[1], s[0]), scale(x.dims()[2], s[1]), x.dims()[3]}, DType::float32}};
         },
         .gradient = [](const Node& n, const std::vector<Output>& g) {
           const auto& s = n.attrs.get<std::vector<std::int64_t>>("size");
           Output pooled = avg_pool2d(g[0], {s, s, {0, 0, 0, 0}});
           return std::vector<Output>{mul(pooled, static_cast<float>(s[0] * s[1]))};
         }});
}

Output max_pool2d(Output x, const Pool2DParams& p) { return x.graph->add("max_pool2d", {x}, pool_attrs_of(p)); }
std::pair<Output, Output> max_pool2d_relu_grad(Output relu_output, Output dy, const Pool2DParams& p) {
  std::vector<Output> out = relu_output.graph->add_node("max_pool2d_relu_grad", {relu_output, dy}, pool_attrs_of(p));
  return {out[0], out[1]};
}

Output max_pool2d_grad(Output x, Output dy, const Pool2DParams& p) {
  return x.graph->add("max_pool2d_grad", {x, dy}, pool_attrs_of(p));
}
Output avg_pool2d(Output x, const Pool2DParams& p) { return x.graph->add("avg_pool2d", {x}, pool_attrs_of(p)); }
Output avg_pool2d_grad(Output dy, std::vector<std::int64_t> input_size, const Pool2DParams& p, Output sizes_from) {
  const bool unknown = std::find(input_size.begin(), input_size.end(), kUnknownDim) != input_size.end();
  Attrs a = pool_attrs_of(p);
  a.set("input_size", std::move(input_size));
  if (!unknown) return dy.graph->add("avg_pool2d_grad", {dy}, std::move(a));
  if (!sizes_from.valid()) throw ShapeError("avg_pool2d_grad: unknown input sizes need the input to read them from");
  return dy.graph->add("avg_pool2d_grad", {dy, sizes_from}, std::move(a));
}
Output upsample_nearest2d(Output x, std::vector<std::int64_t> size) {
  return x.graph->add("upsample_nearest2d", {x}, Attrs{{"size", std::move(size)}});
}

}  // namespace strata::ops
