// Symbolic op builders: each adds one node to the graph of its inputs and returns its
// output. Shapes broadcast like NumPy. Axes may be negative. Scalars passed as `float`
// become scalar constant nodes (never data: datasets are always fed).
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "core/graph.h"

namespace strata::ops {

// --- sources -----------------------------------------------------------------------
Output constant(Graph& graph, float value);          // a scalar
Output fill_like(Output like, float value);          // like's runtime shape, float32
// like's runtime shape with each of `collapsed_axes` 1: a mask shared along those axes, made
// from x's shape alone (a reduction of x would compute a value only for its shape).
Output fill_like(Output like, float value, const std::vector<std::int64_t>& collapsed_axes);
Output zeros_like(Output like);
Output ones_like(Output like);
Output identity(Output x);
Output stop_gradient(Output x);
Output cast(Output x, DType dtype);

// --- elementwise, broadcasting ------------------------------------------------------
Output add(Output a, Output b);
Output sub(Output a, Output b);
Output mul(Output a, Output b);
Output div(Output a, Output b);
Output maximum(Output a, Output b);
Output minimum(Output a, Output b);
Output add(Output a, float b);
Output sub(Output a, float b);
Output sub(float a, Output b);
Output mul(Output a, float b);
Output div(Output a, float b);
Output div(float a, Output b);
Output maximum(Output a, float b);
Output minimum(Output a, float b);
// Comparisons return float32 0/1 and carry no gradient.
Output equal(Output a, Output b);
Output not_equal(Output a, Output b);
Output greater(Output a, Output b);
Output greater_equal(Output a, Output b);
Output less(Output a, Output b);
Output less_equal(Output a, Output b);

Output neg(Output x);
Output exp(Output x);
Output log(Output x);
Output sqrt(Output x);
Output square(Output x);
Output abs(Output x);
Output sign(Output x);
Output tanh(Output x);
Output sigmoid(Output x);
Output relu(Output x);
// min(max(x, 0), 6); its gradient passes only strictly inside (0, 6), as TensorFlow's.
Output relu6(Output x);
// x·sigmoid(x) (Keras's silu and swish) in one pass.
Output silu(Output x);
// x·Φ(x) = x/2·(1 + erf(x/√2)), Keras's gelu (approximate=False), in one pass.
Output gelu(Output x);
Output erf(Output x);
Output softplus(Output x);
// Trigonometric and hyperbolic functions and their inverses, as keras.ops (NaN outside
// their domains, as NumPy's).
Output sin(Output x);
Output cos(Output x);
Output tan(Output x);
Output asin(Output x);
Output acos(Output x);
Output atan(Output x);
Output sinh(Output x);
Output cosh(Output x);
Output asinh(Output x);
Output acosh(Output x);
Output atanh(Output x);
// log(1 + x) and e^x - 1, exact near 0 where the plain forms lose x to rounding.
Output log1p(Output x);
Output expm1(Output x);
// Rounding to whole numbers (round: half to even, as NumPy's). Not differentiable: the
// gradient through them is zero almost everywhere, and TensorFlow's passes none.
Output floor(Output x);
Output ceil(Output x);
Output round(Output x);
Output trunc(Output x);
// x rounded to the nearest bfloat16 / float16 and back to float32 (core/precision_rounding.h):
// the emulation of Keras's bfloat16 and float16 compute dtypes (docs/precision.md). The
// gradient arriving is rounded the same way: TensorFlow computes the gradient of an op in
// its dtype too (a cast's gradient casts back, exactly).
Output round_to_bfloat16(Output x);
Output round_to_float16(Output x);
// x unchanged, its gradient rounded to `precision` (an "identity" with the attr
// "gradient_rounding", which inference programs drop): where Strata computes in float32
// a step whose gradient TensorFlow computes in bfloat16 / float16 (the activation of a
// fused bfloat16 Dense: TensorFlow's ReluGrad / TanhGrad round theirs).
Output round_gradient(Output x, ComputePrecision precision);
// x rounded to the nearest float8_e4m3fn (core/precision_rounding.h), as Keras's float8
// layers' quantize_and_dequantize casts it; NaN beyond the format's range (464).
Output round_to_float8_e4m3fn(Output x);
Output clip(Output x, float lo, float hi);
// a where cond != 0, else b (same shapes); where() broadcasts the three first. Only the
// chosen branch's values pass (an inf in the other does not become NaN).
Output select(Output cond, Output a, Output b);
Output where(Output cond, Output a, Output b);

// --- shapes ---------------------------------------------------------------------------
// `shape` may hold one -1 (inferred from the size); other dims are taken literally.
Output reshape(Output x, const std::vector<std::int64_t>& shape);
Output reshape_like(Output x, Output like);          // like's runtime shape
Output broadcast_like(Output x, Output like);        // NumPy broadcast to like's shape
Output sum_to_like(Output x, Output like);           // sums broadcast dims away

// --- reductions -------------------------------------------------------------------------
// Empty `axes` means all axes.
Output reduce_sum(Output x, std::vector<std::int64_t> axes = {}, bool keepdims = false);
Output reduce_mean(Output x, std::vector<std::int64_t> axes = {}, bool keepdims = false);
Output reduce_max(Output x, std::vector<std::int64_t> axes = {}, bool keepdims = false);
// Broadcasts a reduction's result `g` back to `like`'s shape (divided by the number of
// reduced elements when `mean`): the gradient of reduce_sum / reduce_mean.
Output expand_to(Output g, Output like, std::vector<std::int64_t> axes, bool mean);

// --- linear algebra ---------------------------------------------------------------------
// a is viewed as a matrix (product of leading dims, last dim); so is b. Without
// transpose_a the result keeps a's leading dims: (..., k) x (k, n) -> (..., n).
Output matmul(Output a, Output b, bool transpose_a = false, bool transpose_b = false);
// act(x · kernel + bias) in one op (Dense's forward): x (..., in), kernel (in, units),
// bias (units) or none; activation "" (linear) or "relu", applied in the same pass.
// `gradient_rounding` (an emulated bfloat16 Dense, layers/core/low_precision_product.h):
// its gradient rounds the activation's gradient to that precision before the product's
// and the bias's gradients read it, as TensorFlow's gradient of its fused kernel does,
// and its kernel rounds its output (the layer's result) as it writes it.
Output dense(Output x, Output kernel, Output bias = {}, const std::string& activation = "",
             ComputePrecision gradient_rounding = ComputePrecision::float32);
// Keras's int8 Dense product (QuantizedDTypePolicy "int8"): each row of x (..., in)
// quantized as Keras's AbsMaxQuantizer does (scale = 127 / (max |x| + 1e-7), values =
// clip(round_half_even(x · scale), -127, 127)), multiplied by `kernel` (in, units; int8
// values held as float32 integers in [-127, 127]) in int32, exactly, and divided by
// kernel_scale (units) times the row's scale; then, as dense's, plus `bias` (units) or
// none, and activation "" (linear) or "relu", in the same pass. No gradient (Keras's int8
// layers give their input the float product's: layers/core/int8_quantization.h); at most
// kDenseInt8MaxDepth inputs.
Output dense_int8(Output x, Output kernel, Output kernel_scale, Output bias = {}, const std::string& activation = "");
inline constexpr std::int64_t kDenseInt8MaxDepth = (std::int64_t{1} << 17) - 1;

// --- neural network ---------------------------------------------------------------------
Output softmax(Output x, int axis = -1);
Output log_softmax(Output x, int axis = -1);
// Sparsemax: the projection onto the probability simplex along `axis` (sparse softmax).
Output sparsemax(Output x, int axis = -1);
// x (..., C), labels (...) integer or float: out[...] = x[..., labels[...]].
// Throws ValueError at run time for a label outside [0, C).
Output pick(Output x, Output labels);
// The adjoint of pick: zeros shaped like `like` with g scattered at the labels.
Output unpick(Output g, Output labels, Output like);
Output argmax(Output x, int axis = -1);  // int64
// Inverted dropout, active only when the program runs in training mode. The mask is a
// pure function of (seed, stream, step, element) so the gradient regenerates it.
Output dropout(Output x, float rate, std::uint64_t seed, std::uint64_t stream);
Output relu_grad(Output g, Output y);  // g where y > 0

// --- variable updates (stateful; run after every read of the step) ---------------------
Output assign(Output variable, Output value);
Output assign_add(Output variable, Output delta);

}  // namespace strata::ops
