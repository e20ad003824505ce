// Elementwise ops: NumPy-broadcasting binary arithmetic, comparisons, and unary math.
// Gradients are built from other ops, so they are differentiable again.
#include <cmath>

#include "core/cpu/parallel.h"
#include "core/cuda/elementwise_kernels.h"
#include "core/op_registry.h"
#include "core/ops.h"
#include "core/ops/cuda_kernel.h"
#include "core/ops/shape_util.h"

namespace strata::ops {

namespace {

void expect_float(const InferContext& ctx) {
  for (std::size_t i = 0; i < ctx.inputs.size(); ++i) {
    if (ctx.inputs[i].dtype != DType::float32) {
      throw ValueError(ctx.op + ": input " + std::to_string(i) + " has dtype " +
                       to_string(ctx.inputs[i].dtype) + ", expected float32 (cast it first)");
    }
  }
}

std::vector<TensorSpec> infer_binary(const InferContext& ctx) {
  expect_inputs(ctx, 2);
  expect_float(ctx);
  return {{broadcast_shapes(ctx.op, ctx.inputs[0].shape, ctx.inputs[1].shape), DType::float32}};
}

std::vector<TensorSpec> infer_unary(const InferContext& ctx) {
  expect_inputs(ctx, 1);
  expect_float(ctx);
  return {ctx.inputs[0]};
}

// True when `small` (leading 1s aside) equals the trailing dims of `big`, so that `small`
// repeats along big's leading dims with the same memory layout.
bool is_suffix(const Shape& small, const Shape& big) {
  int lead = 0;
  while (lead < small.rank() && small.dims()[lead] == 1) ++lead;
  int n = small.rank() - lead;
  if (n == 0 || n > big.rank()) return false;
  for (int i = 0; i < n; ++i) {
    if (small.dims()[lead + i] != big.dims()[big.rank() - n + i]) return false;
  }
  return true;
}

// out[i] = f(a[ia], b[ib]) with broadcasting; fast paths for the common layouts.
template <typename F>
void binary_kernel(KernelContext& ctx, F f) {
  const Tensor& a = ctx.input(0);
  const Tensor& b = ctx.input(1);
  Tensor& out = ctx.output(0);
  const float* pa = a.data<float>();
  const float* pb = b.data<float>();
  float* po = out.data<float>();
  const std::int64_t n = out.size();
  if (a.size() == n && b.size() == n) {
    cpu::parallel_for(n, [&](std::int64_t s, std::int64_t e) {
      for (std::int64_t i = s; i < e; ++i) po[i] = f(pa[i], pb[i]);
    });
    return;
  }
  if (b.size() == 1 && a.size() == n) {
    const float vb = pb[0];
    cpu::parallel_for(n, [&](std::int64_t s, std::int64_t e) {
      for (std::int64_t i = s; i < e; ++i) po[i] = f(pa[i], vb);
    });
    return;
  }
  if (a.size() == 1 && b.size() == n) {
    const float va = pa[0];
    cpu::parallel_for(n, [&](std::int64_t s, std::int64_t e) {
      for (std::int64_t i = s; i < e; ++i) po[i] = f(va, pb[i]);
    });
    return;
  }
  const Shape& os = out.shape();
  // One operand repeated along the leading dims (a bias): a row loop, no index math.
  if (a.size() == n && is_suffix(b.shape(), os)) {
    const std::int64_t inner = b.size();
    cpu::parallel_for(n / inner, [&](std::int64_t s, std::int64_t e) {
      for (std::int64_t r = s; r < e; ++r) {
        const float* arow = pa + r * inner;
        float* orow = po + r * inner;
        for (std::int64_t j = 0; j < inner; ++j) orow[j] = f(arow[j], pb[j]);
      }
    }, cpu::threshold_for(inner));
    return;
  }
  if (b.size() == n && is_suffix(a.shape(), os)) {
    const std::int64_t inner = a.size();
    cpu::parallel_for(n / inner, [&](std::int64_t s, std::int64_t e) {
      for (std::int64_t r = s; r < e; ++r) {
        const float* brow = pb + r * inner;
        float* orow = po + r * inner;
        for (std::int64_t j = 0; j < inner; ++j) orow[j] = f(pa[j], brow[j]);
      }
    }, cpu::threshold_for(inner));
    return;
  }
  const int rank = os.rank();
  const std::int64_t inner = rank ? os.dims()[rank - 1] : 1;
  const std::int64_t rows = inner ? n / inner : 0;
  const Strides sa = broadcast_strides(a.shape(), os);
  const Strides sb = broadcast_strides(b.shape(), os);
  const std::int64_t ia_step = rank ? sa[rank - 1] : 0, ib_step = rank ? sb[rank - 1] : 0;
  cpu::parallel_for(rows, [&](std::int64_t s, std::int64_t e) {
    for (std::int64_t row = s; row < e; ++row) {
      std::int64_t rem = row, oa = 0, ob = 0;
      for (int d = rank - 2; d >= 0; --d) {
        std::int64_t idx = rem % os.dims()[d];
        rem /= os.dims()[d];
        oa += idx * sa[d];
        ob += idx * sb[d];
      }
      float* orow = po + row * inner;
      const float* ra = pa + oa;
      const float* rb = pb + ob;
      // The common steps get loops the compiler vectorizes: both operands along the row,
      // or one of them a column held for the row (a keepdims reduction, a norm).
      if (ia_step == 1 && ib_step == 1) {
        for (std::int64_t j = 0; j < inner; ++j) orow[j] = f(ra[j], rb[j]);
      } else if (ia_step == 1 && ib_step == 0) {
        const float vb = *rb;
        for (std::int64_t j = 0; j < inner; ++j) orow[j] = f(ra[j], vb);
      } else if (ia_step == 0 && ib_step == 1) {
        const float va = *ra;
        for (std::int64_t j = 0; j < inner; ++j) orow[j] = f(va, rb[j]);
      } else {
        for (std::int64_t j = 0; j < inner; ++j) orow[j] = f(ra[j * ia_step], rb[j * ib_step]);
      }
    }
  }, cpu::threshold_for(inner));
}

template <typename F>
void unary_kernel(KernelContext& ctx, F f) {
  const float* px = ctx.input(0).data<float>();
  float* po = ctx.output(0).data<float>();
  cpu::parallel_for(ctx.output(0).size(), [&](std::int64_t s, std::int64_t e) {
    for (std::int64_t i = s; i < e; ++i) po[i] = f(px[i]);
  });
}

// Reduces a broadcast gradient to the shape of input `x`, skipping the node when no
// broadcasting can have happened.
Output unbroadcast(Output grad, Output x, Output other, const Node& node) {
  const Shape& xs = x.shape();
  const Shape& os = node.outputs[0].shape;
  bool same = xs == os;
  if (same) {
    const Shape& ot = other.shape();
    for (int i = 0; i < xs.rank() && same; ++i) {
      int j = ot.rank() - xs.rank() + i;
      if (j >= 0 && xs.dims()[i] == kUnknownDim && ot.dims()[j] == kUnknownDim) same = false;
    }
    if (ot.rank() > xs.rank()) same = false;
  }
  return same ? grad : sum_to_like(grad, x);
}

// The CUDA kernels (core/cuda/elementwise_kernels.h), in a build with CUDA.
KernelFn cuda_binary(cuda::BinaryOp op) {
  return STRATA_CUDA_KERNEL([op](KernelContext& c) { cuda::binary(c, op); });
}
KernelFn cuda_unary(cuda::UnaryOp op) {
  return STRATA_CUDA_KERNEL([op](KernelContext& c) { cuda::unary(c, op); });
}

OpDef binary_op(std::string name, KernelFn kernel, GradFn grad, KernelFn cuda_kernel) {
  OpDef def;
  def.name = std::move(name);
  def.infer = infer_binary;
  def.cpu_kernel = std::move(kernel);
  def.differentiable = static_cast<bool>(grad);
  def.gradient = std::move(grad);
  def.cuda_kernel = std::move(cuda_kernel);
  return def;
}

OpDef unary_op(std::string name, KernelFn kernel, GradFn grad, KernelFn cuda_kernel) {
  OpDef def = binary_op(std::move(name), std::move(kernel), std::move(grad), std::move(cuda_kernel));
  def.infer = infer_unary;
  return def;
}

}  // namespace

void register_elementwise_ops(OpRegistry& r) {
  auto in = [](const Node& n, int i) { return n.inputs[static_cast<std::size_t>(i)]; };
  auto out = [](const Node& n) { return Output{n.inputs[0].graph, n.id, 0}; };

  // select(cond, a, b): a where cond != 0, else b, element by element on one shape. Only
  // the chosen branch's values pass (an inf or NaN in the other is ignored); each branch
  // gets the gradient where it was chosen.
  r.add({.name = "select",
         .infer = [](const InferContext& ctx) {
           expect_inputs(ctx, 3);
           expect_float(ctx);
           for (int i = 1; i < 3; ++i) {
             if (ctx.inputs[static_cast<std::size_t>(i)].shape != ctx.inputs[0].shape)
               throw ShapeError("select: condition " + ctx.inputs[0].shape.to_string() + " and branch " +
                                ctx.inputs[static_cast<std::size_t>(i)].shape.to_string() + " differ");
           }
           return std::vector<TensorSpec>{{ctx.inputs[0].shape, DType::float32}};
         },
         .cpu_kernel = [](KernelContext& c) {
           const float* cond = c.input(0).data<float>();
           const float* a = c.input(1).data<float>();
           const float* b = c.input(2).data<float>();
           float* y = c.output(0).data<float>();
           for (std::int64_t i = 0; i < c.input(0).size(); ++i) y[i] = cond[i] != 0.f ? a[i] : b[i];
         },
         .gradient = [](const Node& n, const std::vector<Output>& g) {
           Output zeros = zeros_like(g[0]);
           return std::vector<Output>{Output{}, select(n.inputs[0], g[0], zeros), select(n.inputs[0], zeros, g[0])};
         },
         .cuda_kernel = STRATA_CUDA_KERNEL(cuda::select)});

  r.add(binary_op("add", [](KernelContext& c) { binary_kernel(c, [](float a, float b) { return a + b; }); },
                  [=](const Node& n, const std::vector<Output>& g) -> std::vector<Output> {
                    return {unbroadcast(g[0], in(n, 0), in(n, 1), n), unbroadcast(g[0], in(n, 1), in(n, 0), n)};
                  },
                  cuda_binary(cuda::BinaryOp::add)));
  r.add(binary_op("sub", [](KernelContext& c) { binary_kernel(c, [](float a, float b) { return a - b; }); },
                  [=](const Node& n, const std::vector<Output>& g) -> std::vector<Output> {
                    return {unbroadcast(g[0], in(n, 0), in(n, 1), n),
                            unbroadcast(neg(g[0]), in(n, 1), in(n, 0), n)};
                  },
                  cuda_binary(cuda::BinaryOp::sub)));
  r.add(binary_op("mul", [](KernelContext& c) { binary_kernel(c, [](float a, float b) { return a * b; }); },
                  [=](const Node& n, const std::vector<Output>& g) -> std::vector<Output> {
                    return {unbroadcast(mul(g[0], in(n, 1)), in(n, 0), in(n, 1), n),
                            unbroadcast(mul(g[0], in(n, 0)), in(n, 1), in(n, 0), n)};
                  },
                  cuda_binary(cuda::BinaryOp::mul)));
  r.add(binary_op("div", [](KernelContext& c) { binary_kernel(c, [](float a, float b) { return a / b; }); },
                  [=](const Node& n, const std::vector<Output>& g) -> std::vector<Output> {
                    Output b = in(n, 1);
                    return {unbroadcast(div(g[0], b), in(n, 0), b, n),
                            unbroadcast(neg(div(mul(g[0], out(n)), b)), b, in(n, 0), n)};
                  },
                  cuda_binary(cuda::BinaryOp::div)));
  r.add(binary_op("maximum",
                  [](KernelContext& c) { binary_kernel(c, [](float a, float b) { return a >= b ? a : b; }); },
                  [=](const Node& n, const std::vector<Output>& g) -> std::vector<Output> {
                    Output mask = greater_equal(in(n, 0), in(n, 1));
                    return {unbroadcast(mul(g[0], mask), in(n, 0), in(n, 1), n),
                            unbroadcast(mul(g[0], sub(1.0f, mask)), in(n, 1), in(n, 0), n)};
                  },
                  cuda_binary(cuda::BinaryOp::maximum)));
  r.add(binary_op("minimum",
                  [](KernelContext& c) { binary_kernel(c, [](float a, float b) { return a <= b ? a : b; }); },
                  [=](const Node& n, const std::vector<Output>& g) -> std::vector<Output> {
                    Output mask = less_equal(in(n, 0), in(n, 1));
                    return {unbroadcast(mul(g[0], mask), in(n, 0), in(n, 1), n),
                            unbroadcast(mul(g[0], sub(1.0f, mask)), in(n, 1), in(n, 0), n)};
                  },
                  cuda_binary(cuda::BinaryOp::minimum)));
  r.add(binary_op("equal", [](KernelContext& c) { binary_kernel(c, [](float a, float b) { return a == b ? 1.f : 0.f; }); }, {},
                  cuda_binary(cuda::BinaryOp::equal)));
  r.add(binary_op("not_equal", [](KernelContext& c) { binary_kernel(c, [](float a, float b) { return a != b ? 1.f : 0.f; }); }, {},
                  cuda_binary(cuda::BinaryOp::not_equal)));
  r.add(binary_op("greater", [](KernelContext& c) { binary_kernel(c, [](float a, float b) { return a > b ? 1.f : 0.f; }); }, {},
                  cuda_binary(cuda::BinaryOp::greater)));
  r.add(binary_op("greater_equal", [](KernelContext& c) { binary_kernel(c, [](float a, float b) { return a >= b ? 1.f : 0.f; }); }, {},
                  cuda_binary(cuda::BinaryOp::greater_equal)));
  r.add(binary_op("less", [](KernelContext& c) { binary_kernel(c, [](float a, float b) { return a < b ? 1.f : 0.f; }); }, {},
                  cuda_binary(cuda::BinaryOp::less)));
  r.add(binary_op("less_equal", [](KernelContext& c) { binary_kernel(c, [](float a, float b) { return a <= b ? 1.f : 0.f; }); }, {},
                  cuda_binary(cuda::BinaryOp::less_equal)));
  r.add(binary_op("relu_grad",
                  [](KernelContext& c) { binary_kernel(c, [](float g, float y) { return y > 0.f ? g : 0.f; }); },
                  [=](const Node& n, const std::vector<Output>& g) -> std::vector<Output> {
                    return {unbroadcast(relu_grad(g[0], in(n, 1)), in(n, 0), in(n, 1), n), Output{}};
                  },
                  cuda_binary(cuda::BinaryOp::relu_grad)));

  r.add(unary_op("neg", [](KernelContext& c) { unary_kernel(c, [](float x) { return -x; }); },
                 [](const Node&, const std::vector<Output>& g) -> std::vector<Output> { return {neg(g[0])}; },
                 cuda_unary(cuda::UnaryOp::neg)));
  r.add(unary_op("exp", [](KernelContext& c) { unary_kernel(c, [](float x) { return std::exp(x); }); },
                 [=](const Node& n, const std::vector<Output>& g) -> std::vector<Output> { return {mul(g[0], out(n))}; },
                 cuda_unary(cuda::UnaryOp::exp)));
  r.add(unary_op("log", [](KernelContext& c) { unary_kernel(c, [](float x) { return std::log(x); }); },
                 [=](const Node& n, const std::vector<Output>& g) -> std::vector<Output> { return {div(g[0], in(n, 0))}; },
                 cuda_unary(cuda::UnaryOp::log)));
  r.add(unary_op("sqrt", [](KernelContext& c) { unary_kernel(c, [](float x) { return std::sqrt(x); }); },
                 [=](const Node& n, const std::vector<Output>& g) -> std::vector<Output> {
                   return {div(mul(g[0], 0.5f), out(n))};
                 },
                 cuda_unary(cuda::UnaryOp::sqrt)));
  r.add(unary_op("square", [](KernelContext& c) { unary_kernel(c, [](float x) { return x * x; }); },
                 [=](const Node& n, const std::vector<Output>& g) -> std::vector<Output> {
                   return {mul(g[0], mul(in(n, 0), 2.0f))};
                 },
                 cuda_unary(cuda::UnaryOp::square)));
  r.add(unary_op("abs", [](KernelContext& c) { unary_kernel(c, [](float x) { return std::fabs(x); }); },
                 [=](const Node& n, const std::vector<Output>& g) -> std::vector<Output> {
                   return {mul(g[0], sign(in(n, 0)))};
                 },
                 cuda_unary(cuda::UnaryOp::abs)));
  r.add(unary_op("sign", [](KernelContext& c) {
                   unary_kernel(c, [](float x) { return x > 0.f ? 1.f : (x < 0.f ? -1.f : 0.f); });
                 }, {},
                 cuda_unary(cuda::UnaryOp::sign)));
  r.add(unary_op("tanh", [](KernelContext& c) { unary_kernel(c, [](float x) { return std::tanh(x); }); },
                 [=](const Node& n, const std::vector<Output>& g) -> std::vector<Output> {
                   return {mul(g[0], sub(1.0f, square(out(n))))};
                 },
                 cuda_unary(cuda::UnaryOp::tanh)));
  r.add(unary_op("sigmoid",
                 [](KernelContext& c) {
                   unary_kernel(c, [](float x) {
                     // Stable on both tails: never exp of a large positive number.
                     if (x >= 0.f) return 1.f / (1.f + std::exp(-x));
                     float e = std::exp(x);
                     return e / (1.f + e);
                   });
                 },
                 [=](const Node& n, const std::vector<Output>& g) -> std::vector<Output> {
                   Output y = out(n);
                   return {mul(g[0], mul(y, sub(1.0f, y)))};
                 },
                 cuda_unary(cuda::UnaryOp::sigmoid)));
  r.add(unary_op("relu", [](KernelContext& c) { unary_kernel(c, [](float x) { return x > 0.f ? x : 0.f; }); },
                 [=](const Node& n, const std::vector<Output>& g) -> std::vector<Output> {
                   return {relu_grad(g[0], out(n))};
                 },
                 cuda_unary(cuda::UnaryOp::relu)));
  r.add(unary_op("erf", [](KernelContext& c) { unary_kernel(c, [](float x) { return std::erf(x); }); },
                 [=](const Node& n, const std::vector<Output>& g) -> std::vector<Output> {
                   Output x = in(n, 0);
                   return {mul(g[0], mul(exp(neg(square(x))), static_cast<float>(2.0 / std::sqrt(M_PI))))};
                 },
                 cuda_unary(cuda::UnaryOp::erf)));
  r.add(unary_op("softplus",
                 [](KernelContext& c) {
                   unary_kernel(c, [](float x) { return std::log1p(std::exp(-std::fabs(x))) + (x > 0.f ? x : 0.f); });
                 },
                 [=](const Node& n, const std::vector<Output>& g) -> std::vector<Output> {
                   return {mul(g[0], sigmoid(in(n, 0)))};
                 },
                 cuda_unary(cuda::UnaryOp::softplus)));
}

// --- builders ----------------------------------------------------------------------------

namespace {
Output binary(const char* op, Output a, Output b) {
  if (!a.valid() || !b.valid()) throw ValueError(std::string(op) + ": undefined input");
  return a.graph->add(op, {a, b});
}
Output unary(const char* op, Output x) {
  if (!x.valid()) throw ValueError(std::string(op) + ": undefined input");
  return x.graph->add(op, {x});
}
}  // namespace

Output add(Output a, Output b) { return binary("add", a, b); }
Output sub(Output a, Output b) { return binary("sub", a, b); }
Output mul(Output a, Output b) { return binary("mul", a, b); }
Output div(Output a, Output b) { return binary("div", a, b); }
Output maximum(Output a, Output b) { return binary("maximum", a, b); }
Output minimum(Output a, Output b) { return binary("minimum", a, b); }
Output add(Output a, float b) { return add(a, constant(*a.graph, b)); }
Output sub(Output a, float b) { return sub(a, constant(*a.graph, b)); }
Output sub(float a, Output b) { return sub(constant(*b.graph, a), b); }
Output mul(Output a, float b) { return mul(a, constant(*a.graph, b)); }
Output div(Output a, float b) { return div(a, constant(*a.graph, b)); }
Output div(float a, Output b) { return div(constant(*b.graph, a), b); }
Output maximum(Output a, float b) { return maximum(a, constant(*a.graph, b)); }
Output minimum(Output a, float b) { return minimum(a, constant(*a.graph, b)); }
Output equal(Output a, Output b) { return binary("equal", a, b); }
Output not_equal(Output a, Output b) { return binary("not_equal", a, b); }
Output greater(Output a, Output b) { return binary("greater", a, b); }
Output greater_equal(Output a, Output b) { return binary("greater_equal", a, b); }
Output less(Output a, Output b) { return binary("less", a, b); }
Output less_equal(Output a, Output b) { return binary("less_equal", a, b); }
Output relu_grad(Output g, Output y) { return binary("relu_grad", g, y); }

Output neg(Output x) { return unary("neg", x); }
Output exp(Output x) { return unary("exp", x); }
Output log(Output x) { return unary("log", x); }
Output sqrt(Output x) { return unary("sqrt", x); }
Output square(Output x) { return unary("square", x); }
Output abs(Output x) { return unary("abs", x); }
Output sign(Output x) { return unary("sign", x); }
Output tanh(Output x) { return unary("tanh", x); }
Output sigmoid(Output x) { return unary("sigmoid", x); }
Output relu(Output x) { return unary("relu", x); }
Output erf(Output x) { return unary("erf", x); }
Output softplus(Output x) { return unary("softplus", x); }
Output select(Output cond, Output a, Output b) { return cond.graph->add("select", {cond, a, b}); }
Output where(Output cond, Output a, Output b) {
  // One shape for all three (NumPy broadcasting); the shape alone is read from `like`.
  Output like = add(add(zeros_like(cond), zeros_like(a)), zeros_like(b));
  return select(broadcast_like(cond, like), broadcast_like(a, like), broadcast_like(b, like));
}
Output clip(Output x, float lo, float hi) { return minimum(maximum(x, lo), hi); }

}  // namespace strata::ops
