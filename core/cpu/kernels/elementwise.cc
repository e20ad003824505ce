// CPU kernels of the elementwise ops (core/ops/elementwise.cc): NumPy-broadcasting binary
// arithmetic and comparisons, select, and unary math, split over the cores.
#include <algorithm>
#include <cmath>
#include <cstdint>

#include "core/cpu/kernels/register.h"
#include "core/cpu/parallel.h"
#include "core/cpu/vector_math.h"
#include "core/op_registry.h"
#include "core/ops/shape_util.h"

namespace strata::cpu {

namespace {

using ops::broadcast_strides;
using ops::Strides;

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
  if (n == 0) return;
  // Rows of the collapsed walk: a [n, h, w, 1] operand against [n, 1, 1, 1] walks n rows of
  // h * w, not n * h * w rows of one element with the index math of each.
  Strides sa = broadcast_strides(a.shape(), os);
  Strides sb = broadcast_strides(b.shape(), os);
  const Strides dims = ops::collapse_dims(os, sa, sb);
  const int rank = static_cast<int>(dims.size());
  const std::int64_t inner = dims[dims.size() - 1];
  const std::int64_t rows = n / inner;
  const std::int64_t ia_step = sa[dims.size() - 1], ib_step = sb[dims.size() - 1];
  cpu::parallel_for_rows(rows, inner, [&](std::int64_t row, std::int64_t begin, std::int64_t end) {
    std::int64_t rem = row, oa = 0, ob = 0;
    for (int d = rank - 2; d >= 0; --d) {
      const auto at = static_cast<std::size_t>(d);
      std::int64_t idx = rem % dims[at];
      rem /= dims[at];
      oa += idx * sa[at];
      ob += idx * sb[at];
    }
    float* orow = po + row * inner;
    const float* ra = pa + oa;
    const float* rb = pb + ob;
    // The common steps get loops the compiler vectorizes: both operands along the row,
    // or one of them a column held for the row (a keepdims reduction, a norm).
    if (ia_step == 1 && ib_step == 1) {
      for (std::int64_t j = begin; j < end; ++j) orow[j] = f(ra[j], rb[j]);
    } else if (ia_step == 1 && ib_step == 0) {
      const float vb = *rb;
      for (std::int64_t j = begin; j < end; ++j) orow[j] = f(ra[j], vb);
    } else if (ia_step == 0 && ib_step == 1) {
      const float va = *ra;
      for (std::int64_t j = begin; j < end; ++j) orow[j] = f(va, rb[j]);
    } else {
      for (std::int64_t j = begin; j < end; ++j) orow[j] = f(ra[j * ia_step], rb[j * ib_step]);
    }
  });
}

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
  return {.run = [f](KernelContext& c) { binary_kernel(c, f); }};
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
}

}  // namespace strata::cpu
