// Elementwise ops: NumPy-broadcasting binary arithmetic, comparisons, and unary math on
// float32; and the integer ops of core/ops/integer_ops.h (bitwise, shifts, gcd, lcm on int32
// or int64, no gradient). Gradients are built from other ops, so they are differentiable again.
#include <cmath>

#include "core/op_registry.h"
#include "core/ops.h"
#include "core/ops/integer_ops.h"
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

OpDef binary_op(std::string name, GradFn grad) {
  OpDef def;
  def.name = std::move(name);
  def.infer = infer_binary;
  def.differentiable = static_cast<bool>(grad);
  def.gradient = std::move(grad);
  return def;
}

OpDef unary_op(std::string name, GradFn grad) {
  OpDef def = binary_op(std::move(name), std::move(grad));
  def.infer = infer_unary;
  return def;
}

}  // namespace

// --- integer ops (core/ops/integer_ops.h): bitwise, shifts, gcd, lcm ------------------------
namespace {

bool is_integer_dtype(DType dtype) { return dtype == DType::int32 || dtype == DType::int64; }

void expect_integer_inputs(const InferContext& ctx) {
  for (std::size_t i = 0; i < ctx.inputs.size(); ++i) {
    if (!is_integer_dtype(ctx.inputs[i].dtype))
      throw ValueError(ctx.op + ": input " + std::to_string(i) + " has dtype " + to_string(ctx.inputs[i].dtype) +
                       ", expected int32 or int64 (the integer ops compute on integers only)");
  }
  if (ctx.inputs.size() == 2 && ctx.inputs[0].dtype != ctx.inputs[1].dtype)
    throw ValueError(ctx.op + ": inputs of dtypes " + to_string(ctx.inputs[0].dtype) + " and " +
                     to_string(ctx.inputs[1].dtype) + " differ; cast them to one integer dtype first");
}

OpDef integer_binary_def(std::string name) {
  return {.name = std::move(name),
          .infer = [](const InferContext& ctx) {
            expect_inputs(ctx, 2);
            expect_integer_inputs(ctx);
            return std::vector<TensorSpec>{
                {broadcast_shapes(ctx.op, ctx.inputs[0].shape, ctx.inputs[1].shape), ctx.inputs[0].dtype}};
          },
          .differentiable = false};
}

Output integer_binary_node(const char* op, Output a, Output b) {
  if (!a.valid() || !b.valid()) throw ValueError(std::string(op) + ": undefined input");
  return a.graph->add(op, {a, b});
}

void register_integer_ops_into(OpRegistry& r) {
  for (const char* name : {"bitwise_and", "bitwise_or", "bitwise_xor", "left_shift", "right_shift", "gcd", "lcm"})
    r.add(integer_binary_def(name));
  r.add({.name = "bitwise_not",
         .infer = [](const InferContext& ctx) {
           expect_inputs(ctx, 1);
           expect_integer_inputs(ctx);
           return std::vector<TensorSpec>{ctx.inputs[0]};
         },
         .differentiable = false});
  // bitcast(x, dtype): x's bytes read as `dtype` (keras.ops.view, tf.bitcast): the shape kept
  // between types of one size; the last axis doubled from 8 bytes to 4, halved from 4 to 8.
  // TensorFlow registers no gradient for Bitcast: one asked through a float input is refused
  // by name; an integer input carries none (as TensorFlow's tape, which records no op on one).
  r.add({.name = "bitcast",
         .infer = [](const InferContext& ctx) {
           expect_inputs(ctx, 1);
           const TensorSpec& x = ctx.inputs[0];
           const DType to = parse_dtype(ctx.attrs.get<std::string>("dtype"));
           if (to == DType::string || x.dtype == DType::string)
             throw ValueError("bitcast: strings have no bytes to view (" + to_string(x.dtype) + " as " + to_string(to) + ")");
           const std::size_t from_size = size_of(x.dtype), to_size = size_of(to);
           if (from_size == to_size) return std::vector<TensorSpec>{{x.shape, to}};
           std::vector<std::int64_t> dims = x.shape.dims();
           if (dims.empty())
             throw ShapeError("bitcast: a scalar " + to_string(x.dtype) + " cannot be viewed as " + to_string(to));
           std::int64_t& last = dims.back();
           if (last != kUnknownDim) {
             if (from_size < to_size && last % static_cast<std::int64_t>(to_size / from_size) != 0)
               throw ShapeError("bitcast: the last axis of " + x.shape.to_string() + " (" + to_string(x.dtype) +
                                ") does not hold a whole number of " + to_string(to) + " elements");
             last = from_size > to_size ? last * static_cast<std::int64_t>(from_size / to_size)
                                        : last / static_cast<std::int64_t>(to_size / from_size);
           }
           return std::vector<TensorSpec>{{Shape(dims), to}};
         },
         .gradient = [](const Node& n, const std::vector<Output>&) -> std::vector<Output> {
           if (n.inputs[0].dtype() != DType::float32) return {Output{}};
           throw NotImplementedError("bitcast (keras.ops.view) of node '" + n.name +
                                     "' has no gradient: TensorFlow registers none for Bitcast, so Keras cannot "
                                     "differentiate through it either");
         }});
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
         .gradient = [](const Node& n, const std::vector<Output>& g) {
           Output zeros = zeros_like(g[0]);
           return std::vector<Output>{Output{}, select(n.inputs[0], g[0], zeros), select(n.inputs[0], zeros, g[0])};
         }});

  r.add(binary_op("add", [=](const Node& n, const std::vector<Output>& g) -> std::vector<Output> {
    return {unbroadcast(g[0], in(n, 0), in(n, 1), n), unbroadcast(g[0], in(n, 1), in(n, 0), n)};
  }));
  r.add(binary_op("sub", [=](const Node& n, const std::vector<Output>& g) -> std::vector<Output> {
    return {unbroadcast(g[0], in(n, 0), in(n, 1), n), unbroadcast(neg(g[0]), in(n, 1), in(n, 0), n)};
  }));
  r.add(binary_op("mul", [=](const Node& n, const std::vector<Output>& g) -> std::vector<Output> {
    return {unbroadcast(mul(g[0], in(n, 1)), in(n, 0), in(n, 1), n),
            unbroadcast(mul(g[0], in(n, 0)), in(n, 1), in(n, 0), n)};
  }));
  r.add(binary_op("div", [=](const Node& n, const std::vector<Output>& g) -> std::vector<Output> {
    Output b = in(n, 1);
    return {unbroadcast(div(g[0], b), in(n, 0), b, n), unbroadcast(neg(div(mul(g[0], out(n)), b)), b, in(n, 0), n)};
  }));
  r.add(binary_op("maximum", [=](const Node& n, const std::vector<Output>& g) -> std::vector<Output> {
    Output mask = greater_equal(in(n, 0), in(n, 1));
    return {unbroadcast(mul(g[0], mask), in(n, 0), in(n, 1), n),
            unbroadcast(mul(g[0], sub(1.0f, mask)), in(n, 1), in(n, 0), n)};
  }));
  r.add(binary_op("minimum", [=](const Node& n, const std::vector<Output>& g) -> std::vector<Output> {
    Output mask = less_equal(in(n, 0), in(n, 1));
    return {unbroadcast(mul(g[0], mask), in(n, 0), in(n, 1), n),
            unbroadcast(mul(g[0], sub(1.0f, mask)), in(n, 1), in(n, 0), n)};
  }));
  r.add(binary_op("equal", {}));
  r.add(binary_op("not_equal", {}));
  r.add(binary_op("greater", {}));
  r.add(binary_op("greater_equal", {}));
  r.add(binary_op("less", {}));
  r.add(binary_op("less_equal", {}));
  r.add(binary_op("relu_grad", [=](const Node& n, const std::vector<Output>& g) -> std::vector<Output> {
    return {unbroadcast(relu_grad(g[0], in(n, 1)), in(n, 0), in(n, 1), n), Output{}};
  }));

  r.add(unary_op("neg", [](const Node&, const std::vector<Output>& g) -> std::vector<Output> { return {neg(g[0])}; }));
  r.add(unary_op("exp", [=](const Node& n, const std::vector<Output>& g) -> std::vector<Output> {
    return {mul(g[0], out(n))};
  }));
  r.add(unary_op("log", [=](const Node& n, const std::vector<Output>& g) -> std::vector<Output> {
    return {div(g[0], in(n, 0))};
  }));
  r.add(unary_op("sqrt", [=](const Node& n, const std::vector<Output>& g) -> std::vector<Output> {
    return {div(mul(g[0], 0.5f), out(n))};
  }));
  r.add(unary_op("square", [=](const Node& n, const std::vector<Output>& g) -> std::vector<Output> {
    return {mul(g[0], mul(in(n, 0), 2.0f))};
  }));
  r.add(unary_op("abs", [=](const Node& n, const std::vector<Output>& g) -> std::vector<Output> {
    return {mul(g[0], sign(in(n, 0)))};
  }));
  r.add(unary_op("sign", {}));
  r.add(unary_op("tanh", [=](const Node& n, const std::vector<Output>& g) -> std::vector<Output> {
    return {mul(g[0], sub(1.0f, square(out(n))))};
  }));
  r.add(unary_op("sigmoid", [=](const Node& n, const std::vector<Output>& g) -> std::vector<Output> {
    Output y = out(n);
    return {mul(g[0], mul(y, sub(1.0f, y)))};
  }));
  r.add(unary_op("relu", [=](const Node& n, const std::vector<Output>& g) -> std::vector<Output> {
    return {relu_grad(g[0], out(n))};
  }));
  r.add(unary_op("relu6", [=](const Node& n, const std::vector<Output>& g) -> std::vector<Output> {
    Output x = in(n, 0);
    Output inside = mul(greater(x, constant(*x.graph, 0.f)), less(x, constant(*x.graph, 6.f)));
    return {mul(g[0], inside)};
  }));
  r.add(unary_op("silu", [=](const Node& n, const std::vector<Output>& g) -> std::vector<Output> {
    // d/dx x·s(x) = s + x·s·(1 − s) = s·(1 + x·(1 − s)).
    Output x = in(n, 0);
    Output s = sigmoid(x);
    return {mul(g[0], mul(s, add(mul(x, sub(1.0f, s)), 1.0f)))};
  }));
  r.add(unary_op("gelu", [=](const Node& n, const std::vector<Output>& g) -> std::vector<Output> {
    // d/dx x·Φ(x) = Φ(x) + x·φ(x), φ(x) = e^(−x²/2) / √(2π).
    Output x = in(n, 0);
    Output cdf = mul(add(erf(mul(x, static_cast<float>(M_SQRT1_2))), 1.0f), 0.5f);
    Output pdf = mul(exp(mul(square(x), -0.5f)), static_cast<float>(0.5 * M_2_SQRTPI * M_SQRT1_2));
    return {mul(g[0], add(cdf, mul(x, pdf)))};
  }));
  r.add(unary_op("erf", [=](const Node& n, const std::vector<Output>& g) -> std::vector<Output> {
    Output x = in(n, 0);
    return {mul(g[0], mul(exp(neg(square(x))), static_cast<float>(2.0 / std::sqrt(M_PI))))};
  }));
  r.add(unary_op("softplus", [=](const Node& n, const std::vector<Output>& g) -> std::vector<Output> {
    return {mul(g[0], sigmoid(in(n, 0)))};
  }));

  // Trigonometric and hyperbolic functions, differentiated as TensorFlow does.
  r.add(unary_op("sin", [=](const Node& n, const std::vector<Output>& g) -> std::vector<Output> {
    return {mul(g[0], cos(in(n, 0)))};
  }));
  r.add(unary_op("cos", [=](const Node& n, const std::vector<Output>& g) -> std::vector<Output> {
    return {neg(mul(g[0], sin(in(n, 0))))};
  }));
  r.add(unary_op("tan", [=](const Node& n, const std::vector<Output>& g) -> std::vector<Output> {
    return {mul(g[0], add(square(out(n)), 1.0f))};  // sec² = 1 + tan²
  }));
  r.add(unary_op("asin", [=](const Node& n, const std::vector<Output>& g) -> std::vector<Output> {
    return {div(g[0], sqrt(sub(1.0f, square(in(n, 0)))))};
  }));
  r.add(unary_op("acos", [=](const Node& n, const std::vector<Output>& g) -> std::vector<Output> {
    return {neg(div(g[0], sqrt(sub(1.0f, square(in(n, 0))))))};
  }));
  r.add(unary_op("atan", [=](const Node& n, const std::vector<Output>& g) -> std::vector<Output> {
    return {div(g[0], add(square(in(n, 0)), 1.0f))};
  }));
  r.add(unary_op("sinh", [=](const Node& n, const std::vector<Output>& g) -> std::vector<Output> {
    return {mul(g[0], cosh(in(n, 0)))};
  }));
  r.add(unary_op("cosh", [=](const Node& n, const std::vector<Output>& g) -> std::vector<Output> {
    return {mul(g[0], sinh(in(n, 0)))};
  }));
  r.add(unary_op("asinh", [=](const Node& n, const std::vector<Output>& g) -> std::vector<Output> {
    return {div(g[0], cosh(out(n)))};
  }));
  r.add(unary_op("acosh", [=](const Node& n, const std::vector<Output>& g) -> std::vector<Output> {
    return {div(g[0], sinh(out(n)))};
  }));
  r.add(unary_op("atanh", [=](const Node& n, const std::vector<Output>& g) -> std::vector<Output> {
    return {div(g[0], sub(1.0f, square(in(n, 0))))};
  }));
  r.add(unary_op("log1p", [=](const Node& n, const std::vector<Output>& g) -> std::vector<Output> {
    return {div(g[0], add(in(n, 0), 1.0f))};
  }));
  r.add(unary_op("expm1", [=](const Node& n, const std::vector<Output>& g) -> std::vector<Output> {
    return {mul(g[0], exp(in(n, 0)))};
  }));
  for (const char* name : {"floor", "ceil", "round", "trunc"}) r.add(unary_op(name, {}));
  // A rounding op stands where Keras casts to its compute dtype, whose gradient casts back
  // (exact), and after each op computed in that dtype, whose gradient TensorFlow computes
  // in it too: the gradient arriving is rounded the same way, so the gradients of an
  // emulated bfloat16 / float16 layer are those dtype's values, as Keras's (and float16's
  // small gradients underflow without loss scaling, as they do there). float8's rounding
  // passes the gradient through (float8 training is not emulated).
  r.add(unary_op("round_to_bfloat16", [](const Node&, const std::vector<Output>& g) -> std::vector<Output> {
    return {g[0].graph->rounded(g[0], ComputePrecision::bfloat16)};
  }));
  r.add(unary_op("round_to_float16", [](const Node&, const std::vector<Output>& g) -> std::vector<Output> {
    return {g[0].graph->rounded(g[0], ComputePrecision::float16)};
  }));
  r.add(unary_op("round_to_float8_e4m3fn",
                 [](const Node&, const std::vector<Output>& g) -> std::vector<Output> { return {g[0]}; }));
  register_integer_ops_into(r);
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
Output relu6(Output x) { return unary("relu6", x); }
Output silu(Output x) { return unary("silu", x); }
Output gelu(Output x) { return unary("gelu", x); }
Output erf(Output x) { return unary("erf", x); }
Output softplus(Output x) { return unary("softplus", x); }
Output sin(Output x) { return unary("sin", x); }
Output cos(Output x) { return unary("cos", x); }
Output tan(Output x) { return unary("tan", x); }
Output asin(Output x) { return unary("asin", x); }
Output acos(Output x) { return unary("acos", x); }
Output atan(Output x) { return unary("atan", x); }
Output sinh(Output x) { return unary("sinh", x); }
Output cosh(Output x) { return unary("cosh", x); }
Output asinh(Output x) { return unary("asinh", x); }
Output acosh(Output x) { return unary("acosh", x); }
Output atanh(Output x) { return unary("atanh", x); }
Output log1p(Output x) { return unary("log1p", x); }
Output expm1(Output x) { return unary("expm1", x); }
Output floor(Output x) { return unary("floor", x); }
Output ceil(Output x) { return unary("ceil", x); }
Output round(Output x) { return unary("round", x); }
Output round_to_bfloat16(Output x) { return unary("round_to_bfloat16", x); }
Output round_to_float16(Output x) { return unary("round_to_float16", x); }
Output round_to_float8_e4m3fn(Output x) { return unary("round_to_float8_e4m3fn", x); }
Output trunc(Output x) { return unary("trunc", x); }
Output select(Output cond, Output a, Output b) { return cond.graph->add("select", {cond, a, b}); }
Output where(Output cond, Output a, Output b) {
  // One shape for all three (NumPy broadcasting); the shape alone is read from `like`.
  Output like = add(add(zeros_like(cond), zeros_like(a)), zeros_like(b));
  return select(broadcast_like(cond, like), broadcast_like(a, like), broadcast_like(b, like));
}
Output clip(Output x, float lo, float hi) { return minimum(maximum(x, lo), hi); }

// The integer ops' builders (core/ops/integer_ops.h).
Output bitwise_and(Output a, Output b) { return integer_binary_node("bitwise_and", a, b); }
Output bitwise_or(Output a, Output b) { return integer_binary_node("bitwise_or", a, b); }
Output bitwise_xor(Output a, Output b) { return integer_binary_node("bitwise_xor", a, b); }
Output left_shift(Output a, Output b) { return integer_binary_node("left_shift", a, b); }
Output right_shift(Output a, Output b) { return integer_binary_node("right_shift", a, b); }
Output gcd(Output a, Output b) { return integer_binary_node("gcd", a, b); }
Output lcm(Output a, Output b) { return integer_binary_node("lcm", a, b); }
Output bitwise_not(Output x) {
  if (!x.valid()) throw ValueError("bitwise_not: undefined input");
  return x.graph->add("bitwise_not", {x});
}
Output bitcast(Output x, DType dtype) {
  if (!x.valid()) throw ValueError("bitcast: undefined input");
  return x.graph->add("bitcast", {x}, Attrs{{"dtype", to_string(dtype)}});
}

}  // namespace strata::ops
