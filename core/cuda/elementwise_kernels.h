// The CUDA kernels of the elementwise ops (registered by register_*_kernels, below;
// the CPU kernels are in core/cpu/kernels/elementwise.cc) and of dense's bias and relu.
// register_elementwise_kernels binds the integer ops' kernels too (core/cuda/integer.cu:
// core/integer_math.h's arithmetic, the CPU's bit for bit).
// Defined only in a build with STRATA_WITH_CUDA; this header is plain C++ and compiles in
// every build.
//
// Each computes what the CPU kernel computes, with the same expressions: NumPy
// broadcasting, comparisons giving 1 or 0, maximum/minimum picking as `a >= b ? a : b`
// and `a <= b ? a : b` do (so NaN handling matches), a sigmoid and a softplus that never
// take exp of a large positive number. nvcc compiles them without fast math: IEEE
// division and square root, denormals kept; exp, log, tanh and erf are CUDA's, within
// 2 ulp of the CPU's.
#pragma once

namespace strata {
struct KernelContext;
class OpRegistry;
}

namespace strata::cuda {

enum class BinaryOp {
  add, sub, mul, div, maximum, minimum,
  equal, not_equal, greater, greater_equal, less, less_equal,
  relu_grad,  // (g, y): g where y > 0, else 0
};

enum class UnaryOp {
  neg, exp, log, sqrt, square, abs, sign, tanh, sigmoid, silu, gelu, relu, relu6, erf, softplus,
  sin, cos, tan, asin, acos, atan, sinh, cosh, asinh, acosh, atanh, log1p, expm1, floor, ceil, round, trunc,
  round_to_bfloat16, round_to_float16, round_to_float8_e4m3fn
};

// out = op(a, b) with broadcasting: a fast path when each operand is either the whole
// output or one element, and a strided-index path for the rest.
void binary(KernelContext& ctx, BinaryOp op);
void unary(KernelContext& ctx, UnaryOp op);
// select(cond, a, b): a where cond != 0, else b (one shape for all three).
void select(KernelContext& ctx);

// Binds the ops these kernels serve in the op table (core/cuda/register_kernels.cc calls it).
void register_elementwise_kernels(OpRegistry& registry);

}  // namespace strata::cuda
