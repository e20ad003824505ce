// The conv3d ops' declarations: shape inference, gradients and the graph builders. The
// devices register their kernels: the CPU's in its kernels/conv3d.cc, CUDA's (cuDNN) in cudnn_conv3d_kernels.cc.
#include "core/ops/conv3d_ops.h"

#include <algorithm>
#include <string>
#include <string_view>

#include "core/op_registry.h"
#include "core/ops.h"
#include "core/ops/conv_ops.h"
#include "core/ops/shape_util.h"

namespace strata::ops {

namespace {

using Ints = std::vector<std::int64_t>;
using Geom = Conv3DGeometry;

const Ints& attr_vec(const Attrs& a, const char* key) { return a.get<Ints>(key); }

Conv3DParams params_of(const Attrs& a) {
  return {attr_vec(a, "strides"), attr_vec(a, "dilations"), attr_vec(a, "pads"), a.get<std::int64_t>("groups")};
}

Attrs attrs_of(const Conv3DParams& p) {
  return Attrs{{"strides", p.strides}, {"dilations", p.dilations}, {"pads", p.pads}, {"groups", p.groups}};
}

void check_params(const std::string& op, const Conv3DParams& p) {
  auto positive = [&](const Ints& v, const char* what) {
    if (v.size() != 3 || *std::min_element(v.begin(), v.end()) < 1) {
      throw ValueError(op + ": " + what + " must be three positive integers");
    }
  };
  positive(p.strides, "strides");
  positive(p.dilations, "dilations");
  if (p.pads.size() != 6 || *std::min_element(p.pads.begin(), p.pads.end()) < 0) {
    throw ValueError(op + ": pads must be six non-negative integers (front, back, top, bottom, left, right)");
  }
  if (p.groups < 1) throw ValueError(op + ": groups must be positive");
}

// Geometry from x's shape (N, D, H, W, C), the kernel window and the attributes (read in
// place: kernels run this on every step). Throws ShapeError when a window does not fit.
Geom make_geom(std::string_view op, const Shape& x, const Ints& window, std::int64_t o, const Ints& strides,
               const Ints& dilations, const Ints& pads, std::int64_t groups) {
  static constexpr const char* kAxes[] = {"depth", "height", "width"};
  Geom g;
  g.n = x.dims()[0], g.c = x.dims()[4], g.o = o, g.groups = groups;
  if (g.c != kUnknownDim && g.c % groups != 0) {
    throw ShapeError(std::string(op) + ": input channels " + std::to_string(g.c) + " are not divisible by groups " +
                     std::to_string(groups));
  }
  if (o % groups != 0) {
    throw ShapeError(std::string(op) + ": output channels " + std::to_string(o) + " are not divisible by groups " +
                     std::to_string(groups));
  }
  g.cg = g.c == kUnknownDim ? kUnknownDim : g.c / groups;
  g.og = o / groups;
  for (std::size_t a = 0; a < 3; ++a) {
    g.in[a] = x.dims()[a + 1], g.k[a] = window.at(a), g.s[a] = strides[a], g.d[a] = dilations[a];
    g.before[a] = pads[2 * a];
    if (g.in[a] == kUnknownDim) {
      g.out[a] = kUnknownDim;
      continue;
    }
    g.out[a] = conv_output_length(g.in[a], g.k[a], g.s[a], g.d[a], pads[2 * a], pads[2 * a + 1]);
    if (g.out[a] < 1) {
      throw ShapeError(std::string(op) + ": the kernel's " + kAxes[a] + " extent " +
                       std::to_string((g.k[a] - 1) * g.d[a] + 1) + " is larger than the padded input's " +
                       std::to_string(g.in[a] + pads[2 * a] + pads[2 * a + 1]) + " (input " + x.to_string() + ")");
    }
  }
  return g;
}

void expect_rank(const std::string& op, const Shape& s, int rank, const char* what) {
  if (s.rank() != rank) {
    throw ShapeError(op + ": " + what + " must have rank " + std::to_string(rank) + ", got " + s.to_string());
  }
}

// The output dims (OD, OH, OW) of g must match those of dy (unknown dims match anything).
void expect_output_dims(const std::string& op, const Shape& dy, const Geom& g, const Shape& x) {
  for (std::size_t a = 0; a < 3; ++a) {
    const std::int64_t have = dy.dims()[a + 1];
    if (have != kUnknownDim && g.out[a] != kUnknownDim && have != g.out[a]) {
      throw ShapeError(op + ": gradient " + dy.to_string() + " does not match the output size (" +
                       std::to_string(g.out[0]) + ", " + std::to_string(g.out[1]) + ", " + std::to_string(g.out[2]) +
                       ") of input " + x.to_string());
    }
  }
}

std::vector<TensorSpec> infer_conv3d(const InferContext& ctx) {
  expect_inputs(ctx, 2);
  expect_float_input(ctx, 0);
  expect_float_input(ctx, 1, "kernel");
  const Shape& x = ctx.inputs[0].shape;
  const Shape& k = ctx.inputs[1].shape;
  const Conv3DParams p = params_of(ctx.attrs);
  check_params(ctx.op, p);
  expect_rank(ctx.op, x, 5, "input (N, D, H, W, C)");
  expect_rank(ctx.op, k, 5, "kernel (kd, kh, kw, C/groups, O)");
  if (x.dims()[4] != kUnknownDim && x.dims()[4] != k.dims()[3] * p.groups) {
    throw ShapeError(ctx.op + ": input " + x.to_string() + " has " + std::to_string(x.dims()[4]) +
                     " channels but the kernel " + k.to_string() + " expects " +
                     std::to_string(k.dims()[3] * p.groups) + (p.groups > 1 ? " (in/groups × groups)" : ""));
  }
  const Geom g = make_geom(ctx.op, x, conv3d_window(k), k.dims()[4], p.strides, p.dilations, p.pads, p.groups);
  return {{Shape{g.n, g.out[0], g.out[1], g.out[2], g.o}, DType::float32}};
}

std::vector<TensorSpec> infer_backprop_input(const InferContext& ctx) {
  expect_inputs(ctx, 2);
  expect_float_input(ctx, 0, "gradient");
  expect_float_input(ctx, 1, "kernel");
  const Shape& dy = ctx.inputs[0].shape;
  const Shape& k = ctx.inputs[1].shape;
  const Conv3DParams p = params_of(ctx.attrs);
  check_params(ctx.op, p);
  expect_rank(ctx.op, dy, 5, "gradient (N, OD, OH, OW, O)");
  expect_rank(ctx.op, k, 5, "kernel (kd, kh, kw, C/groups, O)");
  if (dy.dims()[4] != kUnknownDim && dy.dims()[4] != k.dims()[4]) {
    throw ShapeError(ctx.op + ": gradient " + dy.to_string() + " has " + std::to_string(dy.dims()[4]) +
                     " channels but the kernel " + k.to_string() + " produces " + std::to_string(k.dims()[4]));
  }
  const Ints& size = attr_vec(ctx.attrs, "input_size");
  if (size.size() != 3) throw ValueError(ctx.op + ": input_size must be three integers (D, H, W)");
  const Shape x{dy.dims()[0], size[0], size[1], size[2], k.dims()[3] * p.groups};
  const Geom g = make_geom(ctx.op, x, conv3d_window(k), k.dims()[4], p.strides, p.dilations, p.pads, p.groups);
  expect_output_dims(ctx.op, dy, g, x);
  return {{x, DType::float32}};
}

std::vector<TensorSpec> infer_backprop_filter(const InferContext& ctx) {
  expect_inputs(ctx, 2);
  expect_float_input(ctx, 0);
  expect_float_input(ctx, 1, "gradient");
  const Shape& x = ctx.inputs[0].shape;
  const Shape& dy = ctx.inputs[1].shape;
  const Conv3DParams p = params_of(ctx.attrs);
  check_params(ctx.op, p);
  expect_rank(ctx.op, x, 5, "input (N, D, H, W, C)");
  expect_rank(ctx.op, dy, 5, "gradient (N, OD, OH, OW, O)");
  const Ints& ks = attr_vec(ctx.attrs, "kernel_size");
  if (ks.size() != 3 || *std::min_element(ks.begin(), ks.end()) < 1) {
    throw ValueError(ctx.op + ": kernel_size must be three positive integers");
  }
  if (x.dims()[4] == kUnknownDim || dy.dims()[4] == kUnknownDim) {
    throw ShapeError(ctx.op + ": channel counts must be known, got " + x.to_string() + " and " + dy.to_string());
  }
  const Geom g = make_geom(ctx.op, x, ks, dy.dims()[4], p.strides, p.dilations, p.pads, p.groups);
  expect_output_dims(ctx.op, dy, g, x);
  return {{Shape{ks[0], ks[1], ks[2], g.cg, g.o}, DType::float32}};
}

Ints spatial_of(const Output& x) { return {x.shape()[1], x.shape()[2], x.shape()[3]}; }

}  // namespace

Conv3DGeometry conv3d_geometry(std::string_view op, const Shape& x, const Ints& window, std::int64_t o,
                               const Attrs& attrs) {
  return make_geom(op, x, window, o, attr_vec(attrs, "strides"), attr_vec(attrs, "dilations"), attr_vec(attrs, "pads"),
                   attrs.get<std::int64_t>("groups"));
}

Ints conv3d_window(const Shape& kernel) { return {kernel.dims()[0], kernel.dims()[1], kernel.dims()[2]}; }

void register_conv3d_ops(OpRegistry& r) {
  r.add({.name = "conv3d", .infer = infer_conv3d,
         .gradient = [](const Node& n, const std::vector<Output>& g) {
           Output x = n.inputs[0], k = n.inputs[1];
           const Conv3DParams p = params_of(n.attrs);
           return std::vector<Output>{conv3d_backprop_input(g[0], k, spatial_of(x), p),
                                      conv3d_backprop_filter(x, g[0], conv3d_window(k.shape()), p)};
         }});
  r.add({.name = "conv3d_backprop_input", .infer = infer_backprop_input,
         // dx = B(dy, k): adjoint in dy is conv3d(·, k); in k it is backprop_filter(·, dy).
         .gradient = [](const Node& n, const std::vector<Output>& g) {
           Output dy = n.inputs[0], k = n.inputs[1];
           const Conv3DParams p = params_of(n.attrs);
           return std::vector<Output>{conv3d(g[0], k, p),
                                      conv3d_backprop_filter(g[0], dy, conv3d_window(k.shape()), p)};
         }});
  r.add({.name = "conv3d_backprop_filter", .infer = infer_backprop_filter,
         // dk = F(x, dy): adjoint in x is backprop_input(dy, ·); in dy it is conv3d(x, ·).
         .gradient = [](const Node& n, const std::vector<Output>& g) {
           Output x = n.inputs[0], dy = n.inputs[1];
           const Conv3DParams p = params_of(n.attrs);
           return std::vector<Output>{conv3d_backprop_input(dy, g[0], spatial_of(x), p), conv3d(x, g[0], p)};
         }});
}

Output conv3d(Output x, Output kernel, const Conv3DParams& params) {
  return x.graph->add("conv3d", {x, kernel}, attrs_of(params));
}

Output conv3d_backprop_input(Output dy, Output kernel, std::vector<std::int64_t> input_size,
                             const Conv3DParams& params) {
  Attrs a = attrs_of(params);
  a.set("input_size", std::move(input_size));
  return dy.graph->add("conv3d_backprop_input", {dy, kernel}, std::move(a));
}

Output conv3d_backprop_filter(Output x, Output dy, std::vector<std::int64_t> kernel_size,
                              const Conv3DParams& params) {
  Attrs a = attrs_of(params);
  a.set("kernel_size", std::move(kernel_size));
  return x.graph->add("conv3d_backprop_filter", {x, dy}, std::move(a));
}

}  // namespace strata::ops
