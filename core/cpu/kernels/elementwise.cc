// CPU kernels of the elementwise ops (core/ops/elementwise.cc): NumPy-broadcasting binary
// arithmetic and comparisons, select, and unary math, split over the cores; and of the
// integer ops (bitwise, shifts, gcd, lcm on int32 or int64), each element as
// core/integer_math.h computes it (TensorFlow's rules).
#include <algorithm>
#include <cmath>
#include <cstdint>
#include <cstring>

#include "core/cpu/kernels/binary.h"
#include "core/cpu/kernels/register.h"
#include "core/cpu/parallel.h"
#include "core/cpu/vector_math.h"
#include "core/integer_math.h"
#include "core/precision_rounding.h"
#include "core/op_registry.h"
#include "core/ops/shape_util.h"

namespace strata::cpu {

namespace {

template <typename F>
void unary_kernel(KernelContext& ctx, F f) {
  const float* px = ctx.input(0).data<float>();
  float* po = ctx.output(0).data<float>();
  cpu::parallel_for(ctx.output(0).size(), [&](std::int64_t s, std::int64_t e) {
    for (std::int64_t i = s; i < e; ++i) po[i] = f(px[i]);
  });
}

// The kernel of a binary op computing f(a, b) / a unary op computing f(x) per element.
template <typename F>
DeviceKernel binary(F f) {
  return {.run = [f](KernelContext& c) { binary_kernel<float>(c, f); }};
}
template <typename F>
DeviceKernel unary(F f) {
  return {.run = [f](KernelContext& c) { unary_kernel(c, f); }};
}
// A unary op computing f on 16 floats at a time (core/cpu/vector_math.h): for the
// functions whose scalar form calls libm per element.
template <typename F>
DeviceKernel unary_vectors(F f) {
  return {.run = [f](KernelContext& c) {
    const float* px = c.input(0).data<float>();
    float* po = c.output(0).data<float>();
    cpu::parallel_for(c.output(0).size(), [&](std::int64_t s, std::int64_t e) { simd::apply(px + s, po + s, e - s, f); });
  }};
}

void select_kernel(KernelContext& c) {
  const float* cond = c.input(0).data<float>();
  const float* a = c.input(1).data<float>();
  const float* b = c.input(2).data<float>();
  float* y = c.output(0).data<float>();
  for (std::int64_t i = 0; i < c.input(0).size(); ++i) y[i] = cond[i] != 0.f ? a[i] : b[i];
}

}  // namespace

// --- the integer ops (core/ops/integer_ops.h): int32 or int64, core/integer_math.h's rules ---
namespace {

using integer_math::IntegerOp;

template <IntegerOp op>
void integer_binary_kernel(KernelContext& ctx) {
  if (ctx.output(0).dtype() == DType::int32) {
    binary_kernel<std::int32_t>(ctx, [](std::int32_t a, std::int32_t b) { return integer_math::apply(op, a, b); });
  } else {
    binary_kernel<std::int64_t>(ctx, [](std::int64_t a, std::int64_t b) { return integer_math::apply(op, a, b); });
  }
}

template <typename T>
void bitwise_not_values(KernelContext& ctx) {
  const T* x = ctx.input(0).data<T>();
  T* y = ctx.output(0).data<T>();
  cpu::parallel_for(ctx.output(0).size(), [&](std::int64_t s, std::int64_t e) {
    for (std::int64_t i = s; i < e; ++i) y[i] = static_cast<T>(~x[i]);
  });
}

void bitwise_not_kernel(KernelContext& ctx) {
  if (ctx.output(0).dtype() == DType::int32) bitwise_not_values<std::int32_t>(ctx);
  else bitwise_not_values<std::int64_t>(ctx);
}

void register_integer_kernels_into(OpRegistry& r) {
  r.add_kernel("bitwise_and", DeviceType::cpu, {.run = integer_binary_kernel<IntegerOp::bitwise_and>});
  r.add_kernel("bitwise_or", DeviceType::cpu, {.run = integer_binary_kernel<IntegerOp::bitwise_or>});
  r.add_kernel("bitwise_xor", DeviceType::cpu, {.run = integer_binary_kernel<IntegerOp::bitwise_xor>});
  r.add_kernel("left_shift", DeviceType::cpu, {.run = integer_binary_kernel<IntegerOp::left_shift>});
  r.add_kernel("right_shift", DeviceType::cpu, {.run = integer_binary_kernel<IntegerOp::right_shift>});
  r.add_kernel("gcd", DeviceType::cpu, {.run = integer_binary_kernel<IntegerOp::gcd>});
  r.add_kernel("lcm", DeviceType::cpu, {.run = integer_binary_kernel<IntegerOp::lcm>});
  r.add_kernel("bitwise_not", DeviceType::cpu, {.run = bitwise_not_kernel});
  // The same bytes, relabelled: the input's and the output's sizes in bytes agree by inference.
  r.add_kernel("bitcast", DeviceType::cpu, {.run = [](KernelContext& c) {
                 std::memcpy(c.output(0).raw_data(), c.input(0).raw_data(), c.input(0).nbytes());
               }});
}

}  // namespace

void register_elementwise_kernels(OpRegistry& r) {
  r.add_kernel("select", DeviceType::cpu, {.run = select_kernel});

  r.add_kernel("add", DeviceType::cpu, binary([](float a, float b) { return a + b; }));
  r.add_kernel("sub", DeviceType::cpu, binary([](float a, float b) { return a - b; }));
  r.add_kernel("mul", DeviceType::cpu, binary([](float a, float b) { return a * b; }));
  r.add_kernel("div", DeviceType::cpu, binary([](float a, float b) { return a / b; }));
  r.add_kernel("maximum", DeviceType::cpu, binary([](float a, float b) { return a >= b ? a : b; }));
  r.add_kernel("minimum", DeviceType::cpu, binary([](float a, float b) { return a <= b ? a : b; }));
  r.add_kernel("equal", DeviceType::cpu, binary([](float a, float b) { return a == b ? 1.f : 0.f; }));
  r.add_kernel("not_equal", DeviceType::cpu, binary([](float a, float b) { return a != b ? 1.f : 0.f; }));
  r.add_kernel("greater", DeviceType::cpu, binary([](float a, float b) { return a > b ? 1.f : 0.f; }));
  r.add_kernel("greater_equal", DeviceType::cpu, binary([](float a, float b) { return a >= b ? 1.f : 0.f; }));
  r.add_kernel("less", DeviceType::cpu, binary([](float a, float b) { return a < b ? 1.f : 0.f; }));
  r.add_kernel("less_equal", DeviceType::cpu, binary([](float a, float b) { return a <= b ? 1.f : 0.f; }));
  r.add_kernel("relu_grad", DeviceType::cpu, binary([](float g, float y) { return y > 0.f ? g : 0.f; }));

  r.add_kernel("neg", DeviceType::cpu, unary([](float x) { return -x; }));
  r.add_kernel("exp", DeviceType::cpu, unary([](float x) { return std::exp(x); }));
  r.add_kernel("log", DeviceType::cpu, unary([](float x) { return std::log(x); }));
  r.add_kernel("sqrt", DeviceType::cpu, unary([](float x) { return std::sqrt(x); }));
  r.add_kernel("square", DeviceType::cpu, unary([](float x) { return x * x; }));
  r.add_kernel("abs", DeviceType::cpu, unary([](float x) { return std::fabs(x); }));
  r.add_kernel("sign", DeviceType::cpu, unary([](float x) { return x > 0.f ? 1.f : (x < 0.f ? -1.f : 0.f); }));
  r.add_kernel("tanh", DeviceType::cpu, unary([](float x) { return std::tanh(x); }));
  r.add_kernel("sigmoid", DeviceType::cpu, unary_vectors([](simd::Vec x) { return simd::sigmoid(x); }));
  r.add_kernel("silu", DeviceType::cpu, unary_vectors([](simd::Vec x) { return simd::silu(x); }));
  r.add_kernel("gelu", DeviceType::cpu, unary_vectors([](simd::Vec x) { return simd::gelu(x); }));
  r.add_kernel("relu", DeviceType::cpu, unary([](float x) { return x > 0.f ? x : 0.f; }));
  // NaN stays NaN (max and min return their first operand when it does not compare).
  r.add_kernel("relu6", DeviceType::cpu, unary([](float x) { return std::min(std::max(x, 0.f), 6.f); }));
  r.add_kernel("erf", DeviceType::cpu, unary([](float x) { return std::erf(x); }));
  r.add_kernel("softplus", DeviceType::cpu,
               unary([](float x) { return std::log1p(std::exp(-std::fabs(x))) + (x > 0.f ? x : 0.f); }));
  r.add_kernel("sin", DeviceType::cpu, unary([](float x) { return std::sin(x); }));
  r.add_kernel("cos", DeviceType::cpu, unary([](float x) { return std::cos(x); }));
  r.add_kernel("tan", DeviceType::cpu, unary([](float x) { return std::tan(x); }));
  r.add_kernel("asin", DeviceType::cpu, unary([](float x) { return std::asin(x); }));
  r.add_kernel("acos", DeviceType::cpu, unary([](float x) { return std::acos(x); }));
  r.add_kernel("atan", DeviceType::cpu, unary([](float x) { return std::atan(x); }));
  r.add_kernel("sinh", DeviceType::cpu, unary([](float x) { return std::sinh(x); }));
  r.add_kernel("cosh", DeviceType::cpu, unary([](float x) { return std::cosh(x); }));
  r.add_kernel("asinh", DeviceType::cpu, unary([](float x) { return std::asinh(x); }));
  r.add_kernel("acosh", DeviceType::cpu, unary([](float x) { return std::acosh(x); }));
  r.add_kernel("atanh", DeviceType::cpu, unary([](float x) { return std::atanh(x); }));
  r.add_kernel("log1p", DeviceType::cpu, unary([](float x) { return std::log1p(x); }));
  r.add_kernel("expm1", DeviceType::cpu, unary([](float x) { return std::expm1(x); }));
  r.add_kernel("floor", DeviceType::cpu, unary([](float x) { return std::floor(x); }));
  r.add_kernel("ceil", DeviceType::cpu, unary([](float x) { return std::ceil(x); }));
  // Half to even, as NumPy's round: the default rounding mode's nearest integer.
  r.add_kernel("round", DeviceType::cpu, unary([](float x) { return std::nearbyint(x); }));
  r.add_kernel("trunc", DeviceType::cpu, unary([](float x) { return std::trunc(x); }));
  r.add_kernel("round_to_bfloat16", DeviceType::cpu, unary([](float x) { return round_to_bfloat16(x); }));
  r.add_kernel("round_to_float16", DeviceType::cpu, unary([](float x) { return round_to_float16(x); }));
  r.add_kernel("round_to_float8_e4m3fn", DeviceType::cpu, unary([](float x) { return round_to_float8_e4m3fn(x); }));
  register_integer_kernels_into(r);
}

}  // namespace strata::cpu
