// The elementwise CUDA kernels: one grid-stride kernel per shape of access (flat, strided
// broadcast), templated on the op's functor. The functors hold the CPU kernels' exact
// expressions (core/cpu/kernels/elementwise.cc).
#include <cuda_runtime.h>

#include <algorithm>

#include "core/cuda/elementwise_launch.h"
#include "core/cuda/grid_stride.cuh"
#include "core/precision_rounding.h"

namespace strata::cuda {

namespace {

// --- binary ops ---------------------------------------------------------------------

struct Add { __device__ float operator()(float a, float b) const { return a + b; } };
struct Sub { __device__ float operator()(float a, float b) const { return a - b; } };
struct Mul { __device__ float operator()(float a, float b) const { return a * b; } };
struct Div { __device__ float operator()(float a, float b) const { return a / b; } };
struct Maximum { __device__ float operator()(float a, float b) const { return a >= b ? a : b; } };
struct Minimum { __device__ float operator()(float a, float b) const { return a <= b ? a : b; } };
struct Equal { __device__ float operator()(float a, float b) const { return a == b ? 1.f : 0.f; } };
struct NotEqual { __device__ float operator()(float a, float b) const { return a != b ? 1.f : 0.f; } };
struct Greater { __device__ float operator()(float a, float b) const { return a > b ? 1.f : 0.f; } };
struct GreaterEqual { __device__ float operator()(float a, float b) const { return a >= b ? 1.f : 0.f; } };
struct Less { __device__ float operator()(float a, float b) const { return a < b ? 1.f : 0.f; } };
struct LessEqual { __device__ float operator()(float a, float b) const { return a <= b ? 1.f : 0.f; } };
struct ReluGrad { __device__ float operator()(float g, float y) const { return y > 0.f ? g : 0.f; } };

template <typename Launch>
void with_binary(BinaryOp op, Launch launch) {
  switch (op) {
    case BinaryOp::add: return launch(Add{});
    case BinaryOp::sub: return launch(Sub{});
    case BinaryOp::mul: return launch(Mul{});
    case BinaryOp::div: return launch(Div{});
    case BinaryOp::maximum: return launch(Maximum{});
    case BinaryOp::minimum: return launch(Minimum{});
    case BinaryOp::equal: return launch(Equal{});
    case BinaryOp::not_equal: return launch(NotEqual{});
    case BinaryOp::greater: return launch(Greater{});
    case BinaryOp::greater_equal: return launch(GreaterEqual{});
    case BinaryOp::less: return launch(Less{});
    case BinaryOp::less_equal: return launch(LessEqual{});
    case BinaryOp::relu_grad: return launch(ReluGrad{});
  }
}

// Each operand is the whole output (step 1) or one element (step 0).
template <typename F>
__global__ void binary_flat(F f, const float* a, std::int64_t a_step, const float* b, std::int64_t b_step,
                            float* out, std::int64_t n) {
  for (std::int64_t i = first_index(); i < n; i += grid_stride()) out[i] = f(a[i * a_step], b[i * b_step]);
}

template <typename F>
__global__ void binary_strided(F f, const float* a, const float* b, float* out, std::int64_t n, BroadcastIndex index) {
  for (std::int64_t i = first_index(); i < n; i += grid_stride()) {
    std::int64_t rem = i, offset_a = 0, offset_b = 0;
    for (int d = index.rank - 1; d >= 0; --d) {
      const std::int64_t k = rem % index.dims[d];
      rem /= index.dims[d];
      offset_a += k * index.a_strides[d];
      offset_b += k * index.b_strides[d];
    }
    out[i] = f(a[offset_a], b[offset_b]);
  }
}

// --- unary ops ----------------------------------------------------------------------

struct Neg { __device__ float operator()(float x) const { return -x; } };
struct Exp { __device__ float operator()(float x) const { return expf(x); } };
struct Log { __device__ float operator()(float x) const { return logf(x); } };
struct Sqrt { __device__ float operator()(float x) const { return sqrtf(x); } };
struct Square { __device__ float operator()(float x) const { return x * x; } };
struct Abs { __device__ float operator()(float x) const { return fabsf(x); } };
struct Sign { __device__ float operator()(float x) const { return x > 0.f ? 1.f : (x < 0.f ? -1.f : 0.f); } };
struct Tanh { __device__ float operator()(float x) const { return tanhf(x); } };
struct Sigmoid {
  __device__ float operator()(float x) const {
    // Stable on both tails: never exp of a large positive number.
    if (x >= 0.f) return 1.f / (1.f + expf(-x));
    const float e = expf(x);
    return e / (1.f + e);
  }
};
struct Relu { __device__ float operator()(float x) const { return x > 0.f ? x : 0.f; } };
// As the CPU's: NaN stays NaN.
struct Relu6 {
  __device__ float operator()(float x) const { return x != x ? x : (x > 0.f ? (x < 6.f ? x : 6.f) : 0.f); }
};
struct Erf { __device__ float operator()(float x) const { return erff(x); } };
// x / (1 + e^−x), as the CPU's: e^−x overflows to +inf far below 0, giving −0.
// x/2 · erfc(−x/√2), as the CPU's.
struct Gelu { __device__ float operator()(float x) const { return 0.5f * x * erfcf(-x * 0.70710678118654752f); } };
struct Silu { __device__ float operator()(float x) const { return x / (1.f + expf(-x)); } };
struct Softplus {
  __device__ float operator()(float x) const { return log1pf(expf(-fabsf(x))) + (x > 0.f ? x : 0.f); }
};

// CUDA's functions of the same names (within a few ulps of glibc's); round is rintf, half
// to even as the CPU's nearbyint.
struct Sin { __device__ float operator()(float x) const { return sinf(x); } };
struct Cos { __device__ float operator()(float x) const { return cosf(x); } };
struct Tan { __device__ float operator()(float x) const { return tanf(x); } };
struct Asin { __device__ float operator()(float x) const { return asinf(x); } };
struct Acos { __device__ float operator()(float x) const { return acosf(x); } };
struct Atan { __device__ float operator()(float x) const { return atanf(x); } };
struct Sinh { __device__ float operator()(float x) const { return sinhf(x); } };
struct Cosh { __device__ float operator()(float x) const { return coshf(x); } };
struct Asinh { __device__ float operator()(float x) const { return asinhf(x); } };
struct Acosh { __device__ float operator()(float x) const { return acoshf(x); } };
struct Atanh { __device__ float operator()(float x) const { return atanhf(x); } };
struct Log1p { __device__ float operator()(float x) const { return log1pf(x); } };
struct Expm1 { __device__ float operator()(float x) const { return expm1f(x); } };
struct Floor { __device__ float operator()(float x) const { return floorf(x); } };
struct Ceil { __device__ float operator()(float x) const { return ceilf(x); } };
struct Round { __device__ float operator()(float x) const { return rintf(x); } };
struct Trunc { __device__ float operator()(float x) const { return truncf(x); } };
struct RoundToBfloat16 { __device__ float operator()(float x) const { return round_to_bfloat16(x); } };
struct RoundToFloat16 { __device__ float operator()(float x) const { return round_to_float16(x); } };
struct RoundToFloat8E4m3fn { __device__ float operator()(float x) const { return round_to_float8_e4m3fn(x); } };

template <typename Launch>
void with_unary(UnaryOp op, Launch launch) {
  switch (op) {
    case UnaryOp::neg: return launch(Neg{});
    case UnaryOp::exp: return launch(Exp{});
    case UnaryOp::log: return launch(Log{});
    case UnaryOp::sqrt: return launch(Sqrt{});
    case UnaryOp::square: return launch(Square{});
    case UnaryOp::abs: return launch(Abs{});
    case UnaryOp::sign: return launch(Sign{});
    case UnaryOp::tanh: return launch(Tanh{});
    case UnaryOp::sigmoid: return launch(Sigmoid{});
    case UnaryOp::relu: return launch(Relu{});
    case UnaryOp::relu6: return launch(Relu6{});
    case UnaryOp::silu: return launch(Silu{});
    case UnaryOp::gelu: return launch(Gelu{});
    case UnaryOp::erf: return launch(Erf{});
    case UnaryOp::softplus: return launch(Softplus{});
    case UnaryOp::sin: return launch(Sin{});
    case UnaryOp::cos: return launch(Cos{});
    case UnaryOp::tan: return launch(Tan{});
    case UnaryOp::asin: return launch(Asin{});
    case UnaryOp::acos: return launch(Acos{});
    case UnaryOp::atan: return launch(Atan{});
    case UnaryOp::sinh: return launch(Sinh{});
    case UnaryOp::cosh: return launch(Cosh{});
    case UnaryOp::asinh: return launch(Asinh{});
    case UnaryOp::acosh: return launch(Acosh{});
    case UnaryOp::atanh: return launch(Atanh{});
    case UnaryOp::log1p: return launch(Log1p{});
    case UnaryOp::expm1: return launch(Expm1{});
    case UnaryOp::floor: return launch(Floor{});
    case UnaryOp::ceil: return launch(Ceil{});
    case UnaryOp::round: return launch(Round{});
    case UnaryOp::trunc: return launch(Trunc{});
    case UnaryOp::round_to_bfloat16: return launch(RoundToBfloat16{});
    case UnaryOp::round_to_float16: return launch(RoundToFloat16{});
    case UnaryOp::round_to_float8_e4m3fn: return launch(RoundToFloat8E4m3fn{});
  }
}

template <typename F>
__global__ void unary_flat(F f, const float* x, float* out, std::int64_t n) {
  for (std::int64_t i = first_index(); i < n; i += grid_stride()) out[i] = f(x[i]);
}

__global__ void select_flat(const float* cond, const float* a, const float* b, float* out, std::int64_t n) {
  for (std::int64_t i = first_index(); i < n; i += grid_stride()) out[i] = cond[i] != 0.f ? a[i] : b[i];
}

__global__ void bias_relu_flat(float* y, const float* bias, bool relu, std::int64_t units, std::int64_t n) {
  for (std::int64_t i = first_index(); i < n; i += grid_stride()) {
    float v = y[i];
    if (bias) v += bias[i % units];
    if (relu) v = v > 0.f ? v : 0.f;
    y[i] = v;
  }
}

}  // namespace

void launch_binary(BinaryOp op, const float* a, bool a_full, const float* b, bool b_full, float* out,
                   std::int64_t n, CUstream_st* stream) {
  if (n == 0) return;
  with_binary(op, [&](auto f) {
    binary_flat<<<blocks_for(n), kThreads, 0, stream>>>(f, a, a_full ? 1 : 0, b, b_full ? 1 : 0, out, n);
  });
}

void launch_binary_broadcast(BinaryOp op, const float* a, const float* b, float* out, std::int64_t n,
                             const BroadcastIndex& index, CUstream_st* stream) {
  if (n == 0) return;
  with_binary(op, [&](auto f) { binary_strided<<<blocks_for(n), kThreads, 0, stream>>>(f, a, b, out, n, index); });
}

void launch_unary(UnaryOp op, const float* x, float* out, std::int64_t n, CUstream_st* stream) {
  if (n == 0) return;
  with_unary(op, [&](auto f) { unary_flat<<<blocks_for(n), kThreads, 0, stream>>>(f, x, out, n); });
}

void launch_select(const float* cond, const float* a, const float* b, float* out, std::int64_t n,
                   CUstream_st* stream) {
  if (n == 0) return;
  select_flat<<<blocks_for(n), kThreads, 0, stream>>>(cond, a, b, out, n);
}

void launch_bias_relu(float* y, const float* bias, bool relu, std::int64_t rows, std::int64_t units,
                      CUstream_st* stream) {
  const std::int64_t n = rows * units;
  if (n == 0 || (!bias && !relu)) return;
  bias_relu_flat<<<blocks_for(n), kThreads, 0, stream>>>(y, bias, relu, units, n);
}

}  // namespace strata::cuda
