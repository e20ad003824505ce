// The conv2d ops' declarations: shape inference, gradients and the graph builders. The
// devices register their kernels: the CPU's in its kernels/conv.cc, CUDA's (cuDNN) in cudnn_conv_kernels.cc.
#include "core/ops/conv_ops.h"

#include <algorithm>
#include <string_view>
#include <tuple>
#include <utility>

#include "core/op_registry.h"
#include "core/ops.h"
#include "core/ops/fused_relu.h"
#include "core/ops/pool_ops.h"
#include "core/ops/shape_util.h"

namespace strata::ops {

namespace {

using Geom = Conv2DGeometry;

const std::vector<std::int64_t>& attr_vec(const Attrs& a, const char* key) {
  return a.get<std::vector<std::int64_t>>(key);
}

Conv2DParams params_of(const Attrs& a) {
  return {attr_vec(a, "strides"), attr_vec(a, "dilations"), attr_vec(a, "pads"), a.get<std::int64_t>("groups")};
}

// The params read in place from a node's attributes: what kernels use on every run
// (params_of copies three vectors, which would allocate on every step).
struct ParamsRef {
  const std::vector<std::int64_t>& strides;
  const std::vector<std::int64_t>& dilations;
  const std::vector<std::int64_t>& pads;
  std::int64_t groups;
};

ParamsRef params_ref(const Attrs& a) {
  return {attr_vec(a, "strides"), attr_vec(a, "dilations"), attr_vec(a, "pads"), a.get<std::int64_t>("groups")};
}

Attrs attrs_of(const Conv2DParams& p) {
  return Attrs{{"strides", p.strides}, {"dilations", p.dilations}, {"pads", p.pads}, {"groups", p.groups}};
}

void check_params(const std::string& op, const Conv2DParams& p) {
  auto positive = [&](const std::vector<std::int64_t>& v, const char* what) {
    if (v.size() != 2 || v[0] < 1 || v[1] < 1) throw ValueError(op + ": " + what + " must be two positive integers");
  };
  positive(p.strides, "strides");
  positive(p.dilations, "dilations");
  if (p.pads.size() != 4 || *std::min_element(p.pads.begin(), p.pads.end()) < 0) {
    throw ValueError(op + ": pads must be four non-negative integers (top, bottom, left, right)");
  }
  if (p.groups < 1) throw ValueError(op + ": groups must be positive");
}

std::int64_t out_len(std::string_view op, const char* axis, std::int64_t size, std::int64_t k, std::int64_t s,
                     std::int64_t d, std::int64_t before, std::int64_t after) {
  if (size == kUnknownDim) return kUnknownDim;
  std::int64_t r = conv_output_length(size, k, s, d, before, after);
  if (r < 1) {
    throw ShapeError(std::string(op) + ": the kernel's " + axis + " extent " + std::to_string((k - 1) * d + 1) +
                     " is larger than the padded input's " + std::to_string(size + before + after));
  }
  return r;
}

// Fills geometry from x's shape (N, H, W, C), the kernel window and the params
// (Conv2DParams or ParamsRef).
template <typename Params>
Geom make_geom(const Shape& x, std::int64_t kh, std::int64_t kw, std::int64_t o, const Params& p,
               std::string_view op) {
  Geom g;
  g.n = x.dims()[0], g.h = x.dims()[1], g.w = x.dims()[2], g.c = x.dims()[3];
  g.kh = kh, g.kw = kw, g.o = o;
  g.sh = p.strides[0], g.sw = p.strides[1], g.dh = p.dilations[0], g.dw = p.dilations[1];
  g.pt = p.pads[0], g.pb = p.pads[1], g.pl = p.pads[2], g.pr = p.pads[3];
  g.groups = p.groups;
  if (g.c != kUnknownDim && g.c % g.groups != 0) {
    throw ShapeError(std::string(op) + ": input channels " + std::to_string(g.c) + " are not divisible by groups " +
                     std::to_string(g.groups));
  }
  if (o % g.groups != 0) {
    throw ShapeError(std::string(op) + ": output channels " + std::to_string(o) + " are not divisible by groups " +
                     std::to_string(g.groups));
  }
  g.cg = g.c == kUnknownDim ? kUnknownDim : g.c / g.groups;
  g.og = o / g.groups;
  g.oh = out_len(op, "height", g.h, kh, g.sh, g.dh, g.pt, g.pb);
  g.ow = out_len(op, "width", g.w, kw, g.sw, g.dw, g.pl, g.pr);
  return g;
}

void expect_rank(const std::string& op, const Shape& s, int rank, const char* what) {
  if (s.rank() != rank) {
    throw ShapeError(op + ": " + what + " must have rank " + std::to_string(rank) + ", got " + s.to_string());
  }
}

void check_kernel_channels(const std::string& op, const Shape& x, const Shape& k, std::int64_t groups) {
  if (x.dims()[3] != kUnknownDim && x.dims()[3] != k.dims()[2] * groups) {
    throw ShapeError(op + ": input " + x.to_string() + " has " + std::to_string(x.dims()[3]) +
                     " channels but the kernel " + k.to_string() + " expects " +
                     std::to_string(k.dims()[2] * groups) + (groups > 1 ? " (in/groups × groups)" : ""));
  }
}

std::vector<TensorSpec> infer_conv2d(const InferContext& ctx) {
  if (ctx.inputs.size() != 2 && ctx.inputs.size() != 3) {
    throw ValueError("conv2d: takes (input, kernel) or (input, kernel, bias), got " +
                     std::to_string(ctx.inputs.size()) + " inputs");
  }
  expect_float_input(ctx, 0);
  expect_float_input(ctx, 1, "kernel");
  const Shape& x = ctx.inputs[0].shape;
  const Shape& k = ctx.inputs[1].shape;
  Conv2DParams p = params_of(ctx.attrs);
  check_params(ctx.op, p);
  expect_rank(ctx.op, x, 4, "input (N, H, W, C)");
  expect_rank(ctx.op, k, 4, "kernel (kh, kw, C/groups, O)");
  check_kernel_channels(ctx.op, x, k, p.groups);
  Geom g = make_geom(x, k.dims()[0], k.dims()[1], k.dims()[3], p, ctx.op);
  if (ctx.inputs.size() == 3 && ctx.inputs[2].shape != Shape{g.o}) {
    throw ShapeError(ctx.op + ": bias " + ctx.inputs[2].shape.to_string() + " does not match " +
                     std::to_string(g.o) + " output channels");
  }
  const std::string act = ctx.attrs.get_or<std::string>("activation", "");
  if (!act.empty() && act != "relu") throw ValueError(ctx.op + ": fused activation must be '' or 'relu', got '" + act + "'");
  return {{Shape{g.n, g.oh, g.ow, g.o}, DType::float32}};
}

std::vector<TensorSpec> infer_backprop_input(const InferContext& ctx) {
  expect_inputs(ctx, 2);
  expect_float_input(ctx, 0, "gradient");
  expect_float_input(ctx, 1, "kernel");
  const Shape& dy = ctx.inputs[0].shape;
  const Shape& k = ctx.inputs[1].shape;
  Conv2DParams p = params_of(ctx.attrs);
  check_params(ctx.op, p);
  expect_rank(ctx.op, dy, 4, "gradient (N, OH, OW, O)");
  expect_rank(ctx.op, k, 4, "kernel (kh, kw, C/groups, O)");
  const auto& size = attr_vec(ctx.attrs, "input_size");
  if (dy.dims()[3] != kUnknownDim && dy.dims()[3] != k.dims()[3]) {
    throw ShapeError(ctx.op + ": gradient " + dy.to_string() + " has " + std::to_string(dy.dims()[3]) +
                     " channels but the kernel " + k.to_string() + " produces " + std::to_string(k.dims()[3]));
  }
  Shape x{dy.dims()[0], size.at(0), size.at(1), k.dims()[2] * p.groups};
  Geom g = make_geom(x, k.dims()[0], k.dims()[1], k.dims()[3], p, ctx.op);
  if ((dy.dims()[1] != kUnknownDim && dy.dims()[1] != g.oh) || (dy.dims()[2] != kUnknownDim && dy.dims()[2] != g.ow)) {
    throw ShapeError(ctx.op + ": gradient " + dy.to_string() + " does not match the output size (" +
                     std::to_string(g.oh) + ", " + std::to_string(g.ow) + ") of input " + x.to_string());
  }
  return {{x, DType::float32}};
}

std::vector<TensorSpec> infer_backprop_filter(const InferContext& ctx) {
  expect_inputs(ctx, 2);
  expect_float_input(ctx, 0);
  expect_float_input(ctx, 1, "gradient");
  const Shape& x = ctx.inputs[0].shape;
  const Shape& dy = ctx.inputs[1].shape;
  Conv2DParams p = params_of(ctx.attrs);
  check_params(ctx.op, p);
  expect_rank(ctx.op, x, 4, "input (N, H, W, C)");
  expect_rank(ctx.op, dy, 4, "gradient (N, OH, OW, O)");
  const auto& ks = attr_vec(ctx.attrs, "kernel_size");
  if (x.dims()[3] == kUnknownDim || dy.dims()[3] == kUnknownDim) {
    throw ShapeError(ctx.op + ": channel counts must be known, got " + x.to_string() + " and " + dy.to_string());
  }
  Geom g = make_geom(x, ks.at(0), ks.at(1), dy.dims()[3], p, ctx.op);
  if ((dy.dims()[1] != kUnknownDim && dy.dims()[1] != g.oh) || (dy.dims()[2] != kUnknownDim && dy.dims()[2] != g.ow)) {
    throw ShapeError(ctx.op + ": gradient " + dy.to_string() + " does not match the output size of input " +
                     x.to_string());
  }
  return {{Shape{ks[0], ks[1], g.cg, g.o}, DType::float32}};
}

// The gradient before a fused relu, given dy, the gradient of the conv node `n`'s output
// y = relu(z): dz = dy·[y > 0]. When dy is max pooling's gradient of y alone (Conv2D
// followed by MaxPooling2D, the usual image model), one max_pool2d_relu_grad node makes
// dz and the bias gradient in a single pass, and the pool-gradient node autodiff made
// is left unused (the Program prunes it). Otherwise a relu_grad node; the bias gradient
// (second) is then not made here.
std::pair<Output, Output> relu_gradient(const Node& n, Output dy) {
  const Output y{dy.graph, n.id, 0};
  const Node& producer = dy.graph->node(dy.node);
  if (producer.op == "max_pool2d_grad" && producer.inputs.at(0) == y && dy.index == 0) {
    const Attrs& a = producer.attrs;
    const Pool2DParams pool{a.get<std::vector<std::int64_t>>("pool_size"), a.get<std::vector<std::int64_t>>("strides"),
                            a.get<std::vector<std::int64_t>>("pads")};
    return max_pool2d_relu_grad(y, producer.inputs.at(1), pool);
  }
  return {relu_grad(dy, y), Output{}};
}

}  // namespace

std::int64_t conv_output_length(std::int64_t size, std::int64_t kernel, std::int64_t stride, std::int64_t dilation,
                                std::int64_t pad_before, std::int64_t pad_after) {
  const std::int64_t eff = (kernel - 1) * dilation + 1;
  const std::int64_t padded = size + pad_before + pad_after;
  if (padded < eff) return 0;
  return (padded - eff) / stride + 1;
}

Conv2DGeometry conv2d_geometry(const Shape& x, std::int64_t kh, std::int64_t kw, std::int64_t o, const Attrs& attrs,
                               std::string_view op) {
  return make_geom(x, kh, kw, o, params_ref(attrs), op);
}

void register_conv_ops(OpRegistry& r) {
  r.add({.name = "conv2d", .infer = infer_conv2d,
         // y = act(conv(x, k) + b): dz = relu_grad(dy, y) (or dy), then the adjoints of
         // the bilinear conv and the sum over (N, H, W) for the bias.
         .gradient = [](const Node& n, const std::vector<Output>& g) {
           Output x = n.inputs[0], k = n.inputs[1];
           Conv2DParams p = params_of(n.attrs);
           Output dz = g[0], db;
           if (fuses_relu(n)) {
             std::tie(dz, db) = relu_gradient(n, g[0]);
           }
           std::vector<Output> grads{conv2d_backprop_input(dz, k, {x.shape()[1], x.shape()[2]}, p),
                                     conv2d_backprop_filter(x, dz, {k.shape()[0], k.shape()[1]}, p)};
           if (n.inputs.size() == 3) grads.push_back(db.valid() ? db : reduce_sum(dz, {0, 1, 2}));
           return grads;
         }});
  r.add({.name = "conv2d_backprop_input", .infer = infer_backprop_input,
         // dx = B(dy, k): adjoint in dy is conv2d(·, k); in k it is backprop_filter(·, dy).
         .gradient = [](const Node& n, const std::vector<Output>& g) {
           Output dy = n.inputs[0], k = n.inputs[1];
           Conv2DParams p = params_of(n.attrs);
           return std::vector<Output>{conv2d(g[0], k, p),
                                      conv2d_backprop_filter(g[0], dy, {k.shape()[0], k.shape()[1]}, p)};
         }});
  r.add({.name = "conv2d_backprop_filter", .infer = infer_backprop_filter,
         // dk = F(x, dy): adjoint in x is backprop_input(dy, ·); in dy it is conv2d(x, ·).
         .gradient = [](const Node& n, const std::vector<Output>& g) {
           Output x = n.inputs[0], dy = n.inputs[1];
           Conv2DParams p = params_of(n.attrs);
           return std::vector<Output>{conv2d_backprop_input(dy, g[0], {x.shape()[1], x.shape()[2]}, p),
                                      conv2d(x, g[0], p)};
         }});
}

Output conv2d(Output x, Output kernel, const Conv2DParams& params) {
  return x.graph->add("conv2d", {x, kernel}, attrs_of(params));
}

Output conv2d_bias_activation(Output x, Output kernel, Output bias, const std::string& activation,
                              const Conv2DParams& params) {
  Attrs a = attrs_of(params);
  if (!activation.empty()) a.set("activation", activation);
  std::vector<Output> inputs{x, kernel};
  if (bias.valid()) inputs.push_back(bias);
  return x.graph->add("conv2d", inputs, std::move(a));
}

Output conv2d_backprop_input(Output dy, Output kernel, std::vector<std::int64_t> input_size,
                             const Conv2DParams& params) {
  Attrs a = attrs_of(params);
  a.set("input_size", std::move(input_size));
  return dy.graph->add("conv2d_backprop_input", {dy, kernel}, std::move(a));
}

Output conv2d_backprop_filter(Output x, Output dy, std::vector<std::int64_t> kernel_size,
                              const Conv2DParams& params) {
  Attrs a = attrs_of(params);
  a.set("kernel_size", std::move(kernel_size));
  return x.graph->add("conv2d_backprop_filter", {x, dy}, std::move(a));
}

}  // namespace strata::ops
