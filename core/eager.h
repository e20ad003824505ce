// Eager ops: the ops:: functions on concrete Tensors, as keras.ops runs on arrays, for
// preparing data outside a model:
//
//   Tensor x = ops::div(images, 255.f);            // or images / 255.f
//   Tensor y = ops::one_hot(labels, 10);
//   Tensor z = (x - ops::mean(x, {0}, true)) / ops::std(x, {0}, true);
//
// Each call builds the op (or the few ops of a composite such as std) on a scratch graph
// and runs it on the CPU through the same registered kernels a model runs, so results
// match what the op computes inside a model. Comparisons give float32 0 / 1 (Strata's
// masks), where keras.ops gives booleans. Errors are the graph ops' (ShapeError for
// shapes that do not broadcast, ValueError for a dtype an op does not take).
#pragma once

#include <cstdint>
#include <vector>

#include "core/dtype.h"
#include "core/tensor.h"

namespace strata::ops {

// Arithmetic, NumPy broadcasting (float32).
Tensor add(const Tensor& a, const Tensor& b);
Tensor sub(const Tensor& a, const Tensor& b);
Tensor mul(const Tensor& a, const Tensor& b);
Tensor div(const Tensor& a, const Tensor& b);
Tensor maximum(const Tensor& a, const Tensor& b);
Tensor minimum(const Tensor& a, const Tensor& b);
Tensor add(const Tensor& a, float b);
Tensor sub(const Tensor& a, float b);
Tensor sub(float a, const Tensor& b);
Tensor mul(const Tensor& a, float b);
Tensor div(const Tensor& a, float b);
Tensor div(float a, const Tensor& b);
Tensor maximum(const Tensor& a, float b);  // maximum(x, 0.f) clamps below, as keras.ops
Tensor minimum(const Tensor& a, float b);

// Comparisons: float32 1 where true, 0 where false.
Tensor equal(const Tensor& a, const Tensor& b);
Tensor not_equal(const Tensor& a, const Tensor& b);
Tensor greater(const Tensor& a, const Tensor& b);
Tensor greater_equal(const Tensor& a, const Tensor& b);
Tensor less(const Tensor& a, const Tensor& b);
Tensor less_equal(const Tensor& a, const Tensor& b);
Tensor equal(const Tensor& a, float b);
Tensor not_equal(const Tensor& a, float b);
Tensor greater(const Tensor& a, float b);
Tensor greater_equal(const Tensor& a, float b);
Tensor less(const Tensor& a, float b);
Tensor less_equal(const Tensor& a, float b);
// a where cond != 0, else b (broadcast).
Tensor where(const Tensor& cond, const Tensor& a, const Tensor& b);

Tensor neg(const Tensor& x);
Tensor exp(const Tensor& x);
Tensor log(const Tensor& x);
Tensor sqrt(const Tensor& x);
Tensor square(const Tensor& x);
Tensor abs(const Tensor& x);
Tensor tanh(const Tensor& x);
Tensor sigmoid(const Tensor& x);
Tensor relu(const Tensor& x);
Tensor clip(const Tensor& x, float lo, float hi);

// Shapes (any dtype for reshape, slice, concatenate and expand_dims; transpose float32).
Tensor reshape(const Tensor& x, const std::vector<std::int64_t>& shape);  // one -1 allowed
Tensor transpose(const Tensor& x, const std::vector<std::int64_t>& perm);
Tensor expand_dims(const Tensor& x, int axis);
// keras.ops.slice: `shape` elements from `start` on each axis (-1: to the end).
Tensor slice(const Tensor& x, const std::vector<std::int64_t>& start, const std::vector<std::int64_t>& shape);
Tensor concatenate(const std::vector<Tensor>& xs, int axis = 0);

// Reductions over `axes` (all when empty); std is the population standard deviation.
Tensor sum(const Tensor& x, const std::vector<std::int64_t>& axes = {}, bool keepdims = false);
Tensor mean(const Tensor& x, const std::vector<std::int64_t>& axes = {}, bool keepdims = false);
Tensor max(const Tensor& x, const std::vector<std::int64_t>& axes = {}, bool keepdims = false);
Tensor std(const Tensor& x, const std::vector<std::int64_t>& axes = {}, bool keepdims = false);
Tensor argmax(const Tensor& x, int axis = -1);  // int64

Tensor one_hot(const Tensor& indices, std::int64_t num_classes);
Tensor cast(const Tensor& x, DType dtype);

}  // namespace strata::ops

namespace strata {

// Arithmetic operators on Tensors, as on NumPy arrays (the ops above).
Tensor operator+(const Tensor& a, const Tensor& b);
Tensor operator-(const Tensor& a, const Tensor& b);
Tensor operator*(const Tensor& a, const Tensor& b);
Tensor operator/(const Tensor& a, const Tensor& b);
Tensor operator+(const Tensor& a, float b);
Tensor operator-(const Tensor& a, float b);
Tensor operator*(const Tensor& a, float b);
Tensor operator/(const Tensor& a, float b);
Tensor operator+(float a, const Tensor& b);
Tensor operator-(float a, const Tensor& b);
Tensor operator*(float a, const Tensor& b);
Tensor operator/(float a, const Tensor& b);
Tensor operator-(const Tensor& x);

}  // namespace strata
