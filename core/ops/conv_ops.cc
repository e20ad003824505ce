// The convolution ops' declarations, once for both ranks: shape inference, gradients and
// the graph builders of conv2d and conv3d and their two gradients. The devices register
// their kernels: the CPU's in its kernels/conv.cc (2-D) and kernels/conv3d.cc (3-D),
// CUDA's (cuDNN, both ranks) in cudnn_conv_kernels.cc.
#include "core/ops/conv_ops.h"

#include <algorithm>
#include <span>
#include <string_view>
#include <tuple>
#include <utility>

#include "core/op_registry.h"
#include "core/ops.h"
#include "core/ops/fused_activation.h"
#include "core/ops/pool_ops.h"
#include "core/ops/shape_util.h"

namespace strata::ops {

namespace {

using Ints = std::vector<std::int64_t>;

template <int S>
constexpr std::size_t kAxes = S;  // the spatial rank, to compare with sizes

// What the messages of one rank call its shapes and axes.
struct RankWords {
  const char* count;     // of strides and dilations
  const char* spatial;   // the input's spatial axes
  const char* pads;      // what pads must be
  const char* input;     // the input's shape
  const char* kernel;    // the kernel's shape
  const char* gradient;  // the output gradient's shape
  std::array<const char*, 3> axes;
};

template <int S>
constexpr RankWords words() {
  static_assert(S == 2 || S == 3);
  if constexpr (S == 2) {
    return {"two", "(H, W)", "four non-negative integers (top, bottom, left, right)", "input (N, H, W, C)",
            "kernel (kh, kw, C/groups, O)", "gradient (N, OH, OW, O)", {"height", "width", ""}};
  } else {
    return {"three",
            "(D, H, W)",
            "six non-negative integers (front, back, top, bottom, left, right)",
            "input (N, D, H, W, C)",
            "kernel (kd, kh, kw, C/groups, O)",
            "gradient (N, OD, OH, OW, O)",
            {"depth", "height", "width"}};
  }
}

// The ops of one rank: "conv2d", "conv2d_backprop_input", "conv2d_backprop_filter".
template <int S>
struct OpNames {
  static constexpr const char* forward = S == 2 ? "conv2d" : "conv3d";
  static constexpr const char* input = S == 2 ? "conv2d_backprop_input" : "conv3d_backprop_input";
  static constexpr const char* filter = S == 2 ? "conv2d_backprop_filter" : "conv3d_backprop_filter";
};

const Ints& attr_vec(const Attrs& a, const char* key) { return a.get<Ints>(key); }

// The params read in place from a node's attributes: what kernels use on every run
// (copying them would allocate on every step).
struct ParamsRef {
  const Ints& strides;
  const Ints& dilations;
  const Ints& pads;
  std::int64_t groups;
};

ParamsRef params_ref(const Attrs& a) {
  return {attr_vec(a, "strides"), attr_vec(a, "dilations"), attr_vec(a, "pads"), a.get<std::int64_t>("groups")};
}

template <int S>
ConvParams<S> params_of(const Attrs& a) {
  return {attr_vec(a, "strides"), attr_vec(a, "dilations"), attr_vec(a, "pads"), a.get<std::int64_t>("groups")};
}

template <int S>
Attrs attrs_of(const ConvParams<S>& p) {
  return Attrs{{"strides", p.strides}, {"dilations", p.dilations}, {"pads", p.pads}, {"groups", p.groups}};
}

template <int S>
void check_params(const std::string& op, const ParamsRef& p) {
  auto positive = [&](const Ints& v, const char* what) {
    if (v.size() != kAxes<S> || *std::min_element(v.begin(), v.end()) < 1) {
      throw ValueError(op + ": " + what + " must be " + words<S>().count + " positive integers");
    }
  };
  positive(p.strides, "strides");
  positive(p.dilations, "dilations");
  bool pads_valid = p.pads.size() == 2 * kAxes<S>;
  for (std::size_t a = 0; pads_valid && a < kAxes<S>; ++a) {
    const std::int64_t before = p.pads[2 * a], after = p.pads[2 * a + 1];
    pads_valid = (before >= 0 && after >= 0) || (before == kSamePad && after == kSamePad);
  }
  if (!pads_valid) throw ValueError(op + ": pads must be " + words<S>().pads + " (or kSamePad pairs)");
  if (p.groups < 1) throw ValueError(op + ": groups must be positive");
}

// Geometry from x's shape (N, spatial..., C), the kernel window and the params. Throws
// ShapeError when the channels do not divide into groups or a window does not fit.
template <int S>
ConvGeometry<S> make_geom(std::string_view op, const Shape& x, std::span<const std::int64_t> window, std::int64_t o,
                          const ParamsRef& p) {
  ConvGeometry<S> g;
  g.n = x.dims()[0], g.c = x.dims()[S + 1], g.o = o, g.groups = p.groups;
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
  for (std::size_t a = 0; a < kAxes<S>; ++a) {
    g.in[a] = x.dims()[a + 1], g.k[a] = window[a], g.s[a] = p.strides[a], g.d[a] = p.dilations[a];
    g.before[a] = p.pads[2 * a], g.after[a] = p.pads[2 * a + 1];
    if (g.in[a] == kUnknownDim) {
      g.out[a] = kUnknownDim;
      continue;
    }
    if (g.before[a] == kSamePad) std::tie(g.before[a], g.after[a]) = same_pads(g.in[a], g.k[a], g.s[a], g.d[a]);
    g.out[a] = conv_output_length(g.in[a], g.k[a], g.s[a], g.d[a], g.before[a], g.after[a]);
    if (g.out[a] < 1) {
      throw ShapeError(std::string(op) + ": the kernel's " + words<S>().axes[a] + " extent " +
                       std::to_string((g.k[a] - 1) * g.d[a] + 1) + " is larger than the padded input's " +
                       std::to_string(g.in[a] + g.before[a] + g.after[a]) + " (input " + x.to_string() + ")");
    }
  }
  return g;
}

void expect_rank(const std::string& op, const Shape& s, int rank, const char* what) {
  if (s.rank() != rank) {
    throw ShapeError(op + ": " + what + " must have rank " + std::to_string(rank) + ", got " + s.to_string());
  }
}

// The spatial dims of g's output must match those of dy (unknown dims match anything).
template <int S>
void expect_output_dims(const std::string& op, const Shape& dy, const ConvGeometry<S>& g, const Shape& x) {
  for (std::size_t a = 0; a < kAxes<S>; ++a) {
    const std::int64_t have = dy.dims()[a + 1];
    if (have == kUnknownDim || g.out[a] == kUnknownDim || have == g.out[a]) continue;
    std::string size;
    for (std::int64_t v : g.out) size += (size.empty() ? "" : ", ") + std::to_string(v);
    throw ShapeError(op + ": gradient " + dy.to_string() + " does not match the output size (" + size +
                     ") of input " + x.to_string());
  }
}

// The kernel's window, (window..., C / groups, O)'s first S dims: a view, or a copy for attrs.
template <int S>
std::span<const std::int64_t> window_view(const Shape& kernel) {
  return std::span<const std::int64_t>(kernel.dims()).first(S);
}
template <int S>
Ints window_of(const Shape& kernel) {
  const std::span<const std::int64_t> window = window_view<S>(kernel);
  return Ints(window.begin(), window.end());
}

template <int S>
Ints spatial_of(const Output& x) {
  const Shape shape = x.shape();
  return Ints(shape.dims().begin() + 1, shape.dims().begin() + 1 + S);
}

template <int S>
Shape output_shape(const ConvGeometry<S>& g) {
  Ints dims{g.n};
  dims.insert(dims.end(), g.out.begin(), g.out.end());
  dims.push_back(g.o);
  return Shape(dims);
}

// conv2d also takes a bias (O,) and a fused activation ("", "relu", or "relu6" or "silu",
// which only the inference rewrite sets: conv2d with those has no gradient and no CUDA
// kernel).
// With the attribute residual (also the inference rewrite's alone), a last input the
// output's shape is added before the activation: y = act(conv(x, k) + b + residual).
// With the attribute input_scale (the inference rewrite's, a pointwise conv2d's only), an
// input after the bias, before the residual, of shape (N or 1, 1, 1, C) scales x's
// channels per image first: conv(x·s, k), a squeeze-and-excitation block's product.
template <int S>
std::vector<TensorSpec> infer_conv(const InferContext& ctx) {
  constexpr bool fuses = S == 2;
  const bool residual = fuses && ctx.attrs.get_or<bool>("residual", false);
  const bool input_scale = fuses && ctx.attrs.get_or<bool>("input_scale", false);
  const std::size_t operands = ctx.inputs.size() - (residual ? 1 : 0) - (input_scale ? 1 : 0);
  if (!fuses) {
    expect_inputs(ctx, 2);
  } else if (ctx.inputs.size() < 2 || (operands != 2 && operands != 3)) {
    throw ValueError(ctx.op + ": takes (input, kernel) or (input, kernel, bias)" +
                     std::string(input_scale ? " and the input scale" : "") +
                     std::string(residual ? " and the residual" : "") + ", got " + std::to_string(ctx.inputs.size()) +
                     " inputs");
  }
  expect_float_input(ctx, 0);
  expect_float_input(ctx, 1, "kernel");
  const Shape& x = ctx.inputs[0].shape;
  const Shape& k = ctx.inputs[1].shape;
  const ParamsRef p = params_ref(ctx.attrs);
  check_params<S>(ctx.op, p);
  expect_rank(ctx.op, x, S + 2, words<S>().input);
  expect_rank(ctx.op, k, S + 2, words<S>().kernel);
  const std::int64_t channels = x.dims()[S + 1], per_group = k.dims()[S];
  if (channels != kUnknownDim && channels != per_group * p.groups) {
    throw ShapeError(ctx.op + ": input " + x.to_string() + " has " + std::to_string(channels) +
                     " channels but the kernel " + k.to_string() + " expects " +
                     std::to_string(per_group * p.groups) + (p.groups > 1 ? " (in/groups × groups)" : ""));
  }
  const ConvGeometry<S> g = make_geom<S>(ctx.op, x, window_view<S>(k), k.dims()[S + 1], p);
  if (operands == 3 && ctx.inputs[2].shape != Shape{g.o}) {
    throw ShapeError(ctx.op + ": bias " + ctx.inputs[2].shape.to_string() + " does not match " +
                     std::to_string(g.o) + " output channels");
  }
  if (fuses) {
    const std::string act = ctx.attrs.get_or<std::string>("activation", "");
    if (!act.empty() && act != "relu" && act != "relu6" && act != "silu") {
      throw ValueError(ctx.op + ": fused activation must be '', 'relu', 'relu6' or 'silu', got '" + act + "'");
    }
  }
  Shape out = output_shape(g);
  if (input_scale) {
    const Shape& s = ctx.inputs[operands].shape;
    const std::int64_t n = s.rank() == 4 ? s.dims()[0] : 0, xn = x.dims()[0];
    bool pointwise = g.groups == 1;
    for (std::size_t a = 0; a < static_cast<std::size_t>(S); ++a) {
      pointwise = pointwise && g.k[a] == 1 && g.s[a] == 1 && g.before[a] == 0 && g.after[a] == 0;
    }
    if (!pointwise) {
      throw ValueError(ctx.op + ": an input scale is fused only into a pointwise convolution");
    }
    // x·s broadcasts the batch as a multiplication would: x's 1 image against s's many
    // gives as many outputs.
    if (s.rank() != 4 || s.dims()[1] != 1 || s.dims()[2] != 1 || s.dims()[3] != channels ||
        (n != 1 && xn != 1 && n != kUnknownDim && xn != kUnknownDim && n != xn)) {
      throw ShapeError(ctx.op + ": input scale " + s.to_string() + " is not (batch or 1, 1, 1, channels) of " +
                       x.to_string());
    }
    std::vector<std::int64_t> dims = out.dims();
    dims[0] = xn == 1 ? n : (n == 1 || n == kUnknownDim ? xn : n);
    out = Shape(dims);
  }
  if (residual && ctx.inputs.back().shape != out) {
    throw ShapeError(ctx.op + ": residual " + ctx.inputs.back().shape.to_string() + " does not match the output " +
                     out.to_string());
  }
  return {{out, DType::float32}};
}

template <int S>
std::vector<TensorSpec> infer_backprop_input(const InferContext& ctx) {
  if (ctx.inputs.size() != 3) expect_inputs(ctx, 2);
  expect_float_input(ctx, 0, "gradient");
  expect_float_input(ctx, 1, "kernel");
  const Shape& dy = ctx.inputs[0].shape;
  const Shape& k = ctx.inputs[1].shape;
  const ParamsRef p = params_ref(ctx.attrs);
  check_params<S>(ctx.op, p);
  expect_rank(ctx.op, dy, S + 2, words<S>().gradient);
  expect_rank(ctx.op, k, S + 2, words<S>().kernel);
  if (dy.dims()[S + 1] != kUnknownDim && dy.dims()[S + 1] != k.dims()[S + 1]) {
    throw ShapeError(ctx.op + ": gradient " + dy.to_string() + " has " + std::to_string(dy.dims()[S + 1]) +
                     " channels but the kernel " + k.to_string() + " produces " + std::to_string(k.dims()[S + 1]));
  }
  const Ints& size = attr_vec(ctx.attrs, "input_size");
  if (size.size() != kAxes<S>) {
    throw ValueError(ctx.op + ": input_size must be " + words<S>().count + " integers " + words<S>().spatial);
  }
  Ints dims{dy.dims()[0]};
  dims.insert(dims.end(), size.begin(), size.end());
  dims.push_back(k.dims()[S] * p.groups);
  const bool offsets = ctx.attrs.has("size_offsets");
  for (std::size_t a = 0; a < kAxes<S>; ++a) {  // sizes unknown when the graph was built
    if (dims[a + 1] != kUnknownDim) continue;
    if (offsets) {  // a transposed convolution's: from the gradient's size
      const std::int64_t in = dy.dims()[a + 1];
      dims[a + 1] = in == kUnknownDim ? kUnknownDim : in * p.strides[a] + attr_vec(ctx.attrs, "size_offsets").at(a);
      if (dims[a + 1] != kUnknownDim && dims[a + 1] < 1) {
        throw ShapeError(ctx.op + ": a gradient of " + std::to_string(in) + " cells along " + words<S>().axes[a] +
                         " gives no input cells");
      }
      continue;
    }
    if (ctx.inputs.size() != 3) {
      throw ShapeError(ctx.op + ": input_size " + Shape(size).to_string() +
                       " has unknown sizes and no input to read them from");
    }
    const Shape& from = ctx.inputs[2].shape;
    expect_rank(ctx.op, from, S + 2, words<S>().input);
    dims[a + 1] = from.dims()[a + 1];
  }
  const Shape x(dims);
  const ConvGeometry<S> g = make_geom<S>(ctx.op, x, window_view<S>(k), k.dims()[S + 1], p);
  expect_output_dims(ctx.op, dy, g, x);
  return {{x, DType::float32}};
}

template <int S>
std::vector<TensorSpec> infer_backprop_filter(const InferContext& ctx) {
  expect_inputs(ctx, 2);
  expect_float_input(ctx, 0);
  expect_float_input(ctx, 1, "gradient");
  const Shape& x = ctx.inputs[0].shape;
  const Shape& dy = ctx.inputs[1].shape;
  const ParamsRef p = params_ref(ctx.attrs);
  check_params<S>(ctx.op, p);
  expect_rank(ctx.op, x, S + 2, words<S>().input);
  expect_rank(ctx.op, dy, S + 2, words<S>().gradient);
  const Ints& ks = attr_vec(ctx.attrs, "kernel_size");
  if (ks.size() != kAxes<S> || *std::min_element(ks.begin(), ks.end()) < 1) {
    throw ValueError(ctx.op + ": kernel_size must be " + words<S>().count + " positive integers");
  }
  if (x.dims()[S + 1] == kUnknownDim || dy.dims()[S + 1] == kUnknownDim) {
    throw ShapeError(ctx.op + ": channel counts must be known, got " + x.to_string() + " and " + dy.to_string());
  }
  const ConvGeometry<S> g = make_geom<S>(ctx.op, x, ks, dy.dims()[S + 1], p);
  expect_output_dims(ctx.op, dy, g, x);
  Ints dims = ks;
  dims.push_back(g.cg);
  dims.push_back(g.o);
  return {{Shape(dims), DType::float32}};
}

template <int S>
Output conv_node(Output x, Output kernel, const ConvParams<S>& params) {
  return x.graph->add(OpNames<S>::forward, {x, kernel}, attrs_of(params));
}

// sizes_from (x, whose shape alone is read) joins the inputs only when a size is unknown.
template <int S>
Output backprop_input_node(Output dy, Output kernel, Ints input_size, const ConvParams<S>& params,
                           Output sizes_from, Ints size_offsets = {}) {
  const bool unknown = std::find(input_size.begin(), input_size.end(), kUnknownDim) != input_size.end();
  Attrs a = attrs_of(params);
  a.set("input_size", std::move(input_size));
  std::vector<Output> inputs{dy, kernel};
  if (unknown && !size_offsets.empty()) {
    if (size_offsets.size() != kAxes<S>) {
      throw ValueError(std::string(OpNames<S>::input) + ": size_offsets must be " + words<S>().count + " integers");
    }
    a.set("size_offsets", std::move(size_offsets));
  } else if (unknown) {
    if (!sizes_from.valid()) {
      throw ShapeError(std::string(OpNames<S>::input) + ": unknown input sizes need the input to read them from");
    }
    inputs.push_back(sizes_from);
  }
  return dy.graph->add(OpNames<S>::input, inputs, std::move(a));
}

template <int S>
Output backprop_filter_node(Output x, Output dy, Ints kernel_size, const ConvParams<S>& params) {
  Attrs a = attrs_of(params);
  a.set("kernel_size", std::move(kernel_size));
  return x.graph->add(OpNames<S>::filter, {x, dy}, std::move(a));
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
    const Pool2DParams pool{a.get<Ints>("pool_size"), a.get<Ints>("strides"), a.get<Ints>("pads")};
    return max_pool2d_relu_grad(y, producer.inputs.at(1), pool);
  }
  return {relu_grad(dy, y), Output{}};
}

template <int S>
void register_rank(OpRegistry& r) {
  r.add({.name = OpNames<S>::forward, .infer = infer_conv<S>,
         // y = act(conv(x, k) + b): dz = relu_grad(dy, y) (or dy), then the adjoints of
         // the bilinear conv and the sum over (N, spatial...) for the bias.
         .gradient = [](const Node& n, const std::vector<Output>& g) {
           Output x = n.inputs[0], k = n.inputs[1];
           const ConvParams<S> p = params_of<S>(n.attrs);
           Output dz = g[0], db;
           if constexpr (S == 2) {  // only conv2d fuses a relu (infer_conv)
             if (n.attrs.get_or<bool>("residual", false)) {
               throw NotImplementedError("conv2d '" + n.name +
                                         "': a fused residual is an inference rewrite and has no gradient");
             }
             if (n.attrs.get_or<bool>("input_scale", false)) {
               throw NotImplementedError("conv2d '" + n.name +
                                         "': a fused input scale is an inference rewrite and has no gradient");
             }
             if (const FusedActivation a = fused_activation(n);
                 a == FusedActivation::relu6 || a == FusedActivation::silu) {
               throw NotImplementedError("conv2d '" + n.name + "': a fused " +
                                         (a == FusedActivation::silu ? "silu" : "relu6") +
                                         " is an inference rewrite and has no gradient");
             }
             if (fuses_relu(n)) std::tie(dz, db) = relu_gradient(n, g[0]);
             if (const ComputePrecision rounding = gradient_rounding_of(n); rounding != ComputePrecision::float32) {
               // The relu's gradient rounded before the bias's and the adjoints read it. A
               // fused pool-and-relu gradient routing rounded values (no overlapping
               // windows) gives them as they are, and its bias gradient sums them already.
               const Output rounded = dz.graph->rounded(dz, rounding);
               if (rounded != dz) db = Output{};
               dz = rounded;
             }
           }
           std::vector<Output> grads{backprop_input_node<S>(dz, k, spatial_of<S>(x), p, x),
                                     backprop_filter_node<S>(x, dz, window_of<S>(k.shape()), p)};
           if (n.inputs.size() == 3) {
             Ints batch_and_spatial(kAxes<S> + 1);
             for (std::size_t a = 0; a <= kAxes<S>; ++a) batch_and_spatial[a] = static_cast<std::int64_t>(a);
             grads.push_back(db.valid() ? db : reduce_sum(dz, batch_and_spatial));
           }
           return grads;
         },
         // conv2d's kernels round their output when its output_rounding asks (conv3d's do not).
         .rounds_own_output = S == 2});
  r.add({.name = OpNames<S>::input, .infer = infer_backprop_input<S>,
         // dx = B(dy, k): adjoint in dy is conv(·, k); in k it is backprop_filter(·, dy).
         .gradient = [](const Node& n, const std::vector<Output>& g) {
           Output dy = n.inputs[0], k = n.inputs[1];
           const ConvParams<S> p = params_of<S>(n.attrs);
           std::vector<Output> grads{conv_node<S>(g[0], k, p),
                                     backprop_filter_node<S>(g[0], dy, window_of<S>(k.shape()), p)};
           if (n.inputs.size() == 3) grads.emplace_back();  // only its shape is read
           return grads;
         }});
  r.add({.name = OpNames<S>::filter, .infer = infer_backprop_filter<S>,
         // dk = F(x, dy): adjoint in x is backprop_input(dy, ·); in dy it is conv(x, ·).
         .gradient = [](const Node& n, const std::vector<Output>& g) {
           Output x = n.inputs[0], dy = n.inputs[1];
           const ConvParams<S> p = params_of<S>(n.attrs);
           return std::vector<Output>{backprop_input_node<S>(dy, g[0], spatial_of<S>(x), p, x),
                                      conv_node<S>(x, g[0], p)};
         }});
}

}  // namespace

std::pair<std::int64_t, std::int64_t> same_pads(std::int64_t size, std::int64_t kernel, std::int64_t stride,
                                                std::int64_t dilation) {
  const std::int64_t eff = (kernel - 1) * dilation + 1;
  const std::int64_t out = (size + stride - 1) / stride;
  const std::int64_t total = std::max<std::int64_t>((out - 1) * stride + eff - size, 0);
  return {total / 2, total - total / 2};
}

std::int64_t conv_output_length(std::int64_t size, std::int64_t kernel, std::int64_t stride, std::int64_t dilation,
                                std::int64_t pad_before, std::int64_t pad_after) {
  const std::int64_t eff = (kernel - 1) * dilation + 1;
  const std::int64_t padded = size + pad_before + pad_after;
  if (padded < eff) return 0;
  return (padded - eff) / stride + 1;
}

template <int SpatialRank>
ConvGeometry<SpatialRank> conv_geometry(std::string_view op, const Shape& x, std::span<const std::int64_t> window,
                                        std::int64_t o, const Attrs& attrs) {
  if (window.size() != kAxes<SpatialRank>) {
    throw ValueError(std::string(op) + ": a window of " + words<SpatialRank>().count + " sizes was expected");
  }
  return make_geom<SpatialRank>(op, x, window, o, params_ref(attrs));
}
template ConvGeometry<2> conv_geometry<2>(std::string_view, const Shape&, std::span<const std::int64_t>, std::int64_t,
                                          const Attrs&);
template ConvGeometry<3> conv_geometry<3>(std::string_view, const Shape&, std::span<const std::int64_t>, std::int64_t,
                                          const Attrs&);

template <int SpatialRank>
std::span<const std::int64_t> conv_window(const Shape& kernel) {
  return window_view<SpatialRank>(kernel);
}
template std::span<const std::int64_t> conv_window<2>(const Shape&);
template std::span<const std::int64_t> conv_window<3>(const Shape&);

Conv2DGeometry conv2d_geometry(const Shape& x, std::int64_t kh, std::int64_t kw, std::int64_t o, const Attrs& attrs,
                               std::string_view op) {
  const std::array<std::int64_t, 2> window{kh, kw};
  const ConvGeometry<2> g = make_geom<2>(op, x, window, o, params_ref(attrs));
  Conv2DGeometry named;
  named.n = g.n, named.h = g.in[0], named.w = g.in[1], named.c = g.c;
  named.oh = g.out[0], named.ow = g.out[1], named.o = g.o;
  named.kh = kh, named.kw = kw;
  named.sh = g.s[0], named.sw = g.s[1], named.dh = g.d[0], named.dw = g.d[1];
  named.pt = g.before[0], named.pb = g.after[0], named.pl = g.before[1], named.pr = g.after[1];
  named.groups = g.groups, named.cg = g.cg, named.og = g.og;
  return named;
}

void register_conv_ops(OpRegistry& r) {
  register_rank<2>(r);
  register_rank<3>(r);
}

Output conv2d(Output x, Output kernel, const Conv2DParams& params) { return conv_node<2>(x, kernel, params); }

Output conv2d_bias_activation(Output x, Output kernel, Output bias, const std::string& activation,
                              const Conv2DParams& params, ComputePrecision gradient_rounding) {
  Attrs a = attrs_of(params);
  if (!activation.empty()) a.set("activation", activation);
  set_gradient_rounding(a, gradient_rounding);
  // The fused form's output is rounded once, as the layer's result: by the kernel as it
  // writes it, not by an op reading it back.
  set_output_rounding(a, gradient_rounding);
  std::vector<Output> inputs{x, kernel};
  if (bias.valid()) inputs.push_back(bias);
  return x.graph->add("conv2d", inputs, std::move(a));
}

Output conv2d_backprop_input(Output dy, Output kernel, Ints input_size, const Conv2DParams& params,
                             Output sizes_from) {
  return backprop_input_node<2>(dy, kernel, std::move(input_size), params, sizes_from);
}

Output conv2d_transpose(Output x, Output kernel, Ints output_size, const Conv2DParams& params, Ints size_offsets) {
  return backprop_input_node<2>(x, kernel, std::move(output_size), params, {}, std::move(size_offsets));
}

Output conv2d_backprop_filter(Output x, Output dy, Ints kernel_size, const Conv2DParams& params) {
  return backprop_filter_node<2>(x, dy, std::move(kernel_size), params);
}

Output conv3d(Output x, Output kernel, const Conv3DParams& params) { return conv_node<3>(x, kernel, params); }

Output conv3d_backprop_input(Output dy, Output kernel, Ints input_size, const Conv3DParams& params,
                             Output sizes_from) {
  return backprop_input_node<3>(dy, kernel, std::move(input_size), params, sizes_from);
}

Output conv3d_transpose(Output x, Output kernel, Ints output_size, const Conv3DParams& params, Ints size_offsets) {
  return backprop_input_node<3>(x, kernel, std::move(output_size), params, {}, std::move(size_offsets));
}

Output conv3d_backprop_filter(Output x, Output dy, Ints kernel_size, const Conv3DParams& params) {
  return backprop_filter_node<3>(x, dy, std::move(kernel_size), params);
}

}  // namespace strata::ops
