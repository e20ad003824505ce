#include "core/eager.h"

#include <functional>

#include "core/error.h"
#include "core/graph.h"
#include "core/ops.h"
#include "core/ops/array_ops.h"
#include "core/ops/one_hot.h"
#include "core/program.h"

namespace strata::ops {

namespace {

using Build = std::function<Output(Graph&, const std::vector<Output>&)>;

// Runs `build` on placeholders shaped like `inputs` and returns its one output.
Tensor run_eagerly(const std::vector<Tensor>& inputs, const Build& build) {
  Graph graph;
  std::vector<Output> feeds;
  for (const Tensor& t : inputs) {
    if (!t.defined()) throw ValueError("an eager op was given an undefined Tensor");
    feeds.push_back(graph.placeholder({t.shape(), t.dtype()}));
  }
  const Output y = build(graph, feeds);
  return Program(graph, feeds, {y}).run(inputs)[0];
}

template <class Op>
Tensor binary(const Tensor& a, const Tensor& b, Op op) {
  return run_eagerly({a, b}, [&](Graph&, const std::vector<Output>& in) { return op(in[0], in[1]); });
}

template <class Op>
Tensor unary(const Tensor& x, Op op) {
  return run_eagerly({x}, [&](Graph&, const std::vector<Output>& in) { return op(in[0]); });
}

// x against the scalar b, as a constant of the graph.
template <class Op>
Tensor with_scalar(const Tensor& x, float b, Op op) {
  return run_eagerly({x}, [&](Graph& g, const std::vector<Output>& in) { return op(in[0], constant(g, b)); });
}

}  // namespace

Tensor add(const Tensor& a, const Tensor& b) { return binary(a, b, [](Output x, Output y) { return add(x, y); }); }
Tensor sub(const Tensor& a, const Tensor& b) { return binary(a, b, [](Output x, Output y) { return sub(x, y); }); }
Tensor mul(const Tensor& a, const Tensor& b) { return binary(a, b, [](Output x, Output y) { return mul(x, y); }); }
Tensor div(const Tensor& a, const Tensor& b) { return binary(a, b, [](Output x, Output y) { return div(x, y); }); }
Tensor maximum(const Tensor& a, const Tensor& b) {
  return binary(a, b, [](Output x, Output y) { return maximum(x, y); });
}
Tensor minimum(const Tensor& a, const Tensor& b) {
  return binary(a, b, [](Output x, Output y) { return minimum(x, y); });
}
Tensor add(const Tensor& a, float b) { return unary(a, [b](Output x) { return add(x, b); }); }
Tensor sub(const Tensor& a, float b) { return unary(a, [b](Output x) { return sub(x, b); }); }
Tensor sub(float a, const Tensor& b) { return unary(b, [a](Output x) { return sub(a, x); }); }
Tensor mul(const Tensor& a, float b) { return unary(a, [b](Output x) { return mul(x, b); }); }
Tensor div(const Tensor& a, float b) { return unary(a, [b](Output x) { return div(x, b); }); }
Tensor div(float a, const Tensor& b) { return unary(b, [a](Output x) { return div(a, x); }); }
Tensor maximum(const Tensor& a, float b) {
  return with_scalar(a, b, [](Output x, Output y) { return maximum(x, y); });
}
Tensor minimum(const Tensor& a, float b) {
  return with_scalar(a, b, [](Output x, Output y) { return minimum(x, y); });
}

Tensor equal(const Tensor& a, const Tensor& b) { return binary(a, b, [](Output x, Output y) { return equal(x, y); }); }
Tensor not_equal(const Tensor& a, const Tensor& b) {
  return binary(a, b, [](Output x, Output y) { return not_equal(x, y); });
}
Tensor greater(const Tensor& a, const Tensor& b) {
  return binary(a, b, [](Output x, Output y) { return greater(x, y); });
}
Tensor greater_equal(const Tensor& a, const Tensor& b) {
  return binary(a, b, [](Output x, Output y) { return greater_equal(x, y); });
}
Tensor less(const Tensor& a, const Tensor& b) { return binary(a, b, [](Output x, Output y) { return less(x, y); }); }
Tensor less_equal(const Tensor& a, const Tensor& b) {
  return binary(a, b, [](Output x, Output y) { return less_equal(x, y); });
}
Tensor equal(const Tensor& a, float b) { return with_scalar(a, b, [](Output x, Output y) { return equal(x, y); }); }
Tensor greater(const Tensor& a, float b) {
  return with_scalar(a, b, [](Output x, Output y) { return greater(x, y); });
}
Tensor less(const Tensor& a, float b) { return with_scalar(a, b, [](Output x, Output y) { return less(x, y); }); }
Tensor not_equal(const Tensor& a, float b) {
  return with_scalar(a, b, [](Output x, Output y) { return not_equal(x, y); });
}
Tensor greater_equal(const Tensor& a, float b) {
  return with_scalar(a, b, [](Output x, Output y) { return greater_equal(x, y); });
}
Tensor less_equal(const Tensor& a, float b) {
  return with_scalar(a, b, [](Output x, Output y) { return less_equal(x, y); });
}
Tensor where(const Tensor& cond, const Tensor& a, const Tensor& b) {
  return run_eagerly({cond, a, b}, [](Graph&, const std::vector<Output>& in) { return where(in[0], in[1], in[2]); });
}

Tensor neg(const Tensor& x) { return unary(x, [](Output v) { return neg(v); }); }
Tensor exp(const Tensor& x) { return unary(x, [](Output v) { return exp(v); }); }
Tensor log(const Tensor& x) { return unary(x, [](Output v) { return log(v); }); }
Tensor sqrt(const Tensor& x) { return unary(x, [](Output v) { return sqrt(v); }); }
Tensor square(const Tensor& x) { return unary(x, [](Output v) { return square(v); }); }
Tensor abs(const Tensor& x) { return unary(x, [](Output v) { return abs(v); }); }
Tensor tanh(const Tensor& x) { return unary(x, [](Output v) { return tanh(v); }); }
Tensor sigmoid(const Tensor& x) { return unary(x, [](Output v) { return sigmoid(v); }); }
Tensor relu(const Tensor& x) { return unary(x, [](Output v) { return relu(v); }); }
Tensor clip(const Tensor& x, float lo, float hi) { return unary(x, [=](Output v) { return clip(v, lo, hi); }); }

Tensor reshape(const Tensor& x, const std::vector<std::int64_t>& shape) {
  return unary(x, [&](Output v) { return reshape(v, shape); });
}
Tensor transpose(const Tensor& x, const std::vector<std::int64_t>& perm) {
  return unary(x, [&](Output v) { return transpose(v, perm); });
}
Tensor expand_dims(const Tensor& x, int axis) { return unary(x, [=](Output v) { return expand_dims(v, axis); }); }

Tensor slice(const Tensor& x, const std::vector<std::int64_t>& start, const std::vector<std::int64_t>& shape) {
  const Shape& s = x.shape();
  if (static_cast<int>(start.size()) != s.rank() || static_cast<int>(shape.size()) != s.rank()) {
    throw ValueError("slice: start " + Shape(start).to_string() + " and shape " + Shape(shape).to_string() +
                     " need one entry per axis of " + s.to_string());
  }
  std::vector<std::int64_t> before(start), after;
  for (int i = 0; i < s.rank(); ++i) {
    const std::int64_t size = shape[i] == -1 ? s[i] - start[i] : shape[i];
    if (start[i] < 0 || size < 0 || start[i] + size > s[i]) {
      throw ShapeError("slice: " + std::to_string(size) + " elements from " + std::to_string(start[i]) +
                       " do not fit axis " + std::to_string(i) + " of " + s.to_string());
    }
    after.push_back(s[i] - start[i] - size);
  }
  return unary(x, [&](Output v) { return crop(v, before, after); });
}

Tensor concatenate(const std::vector<Tensor>& xs, int axis) {
  if (xs.empty()) throw ValueError("concatenate: needs at least one tensor");
  return run_eagerly(xs, [axis](Graph&, const std::vector<Output>& in) { return concat(in, axis); });
}

Tensor sum(const Tensor& x, const std::vector<std::int64_t>& axes, bool keepdims) {
  return unary(x, [&](Output v) { return reduce_sum(v, axes, keepdims); });
}
Tensor mean(const Tensor& x, const std::vector<std::int64_t>& axes, bool keepdims) {
  return unary(x, [&](Output v) { return reduce_mean(v, axes, keepdims); });
}
Tensor max(const Tensor& x, const std::vector<std::int64_t>& axes, bool keepdims) {
  return unary(x, [&](Output v) { return reduce_max(v, axes, keepdims); });
}
Tensor std(const Tensor& x, const std::vector<std::int64_t>& axes, bool keepdims) {
  return unary(x, [&](Output v) {
    Output centered = ops::sub(v, reduce_mean(v, axes, true));
    return ops::sqrt(reduce_mean(ops::square(centered), axes, keepdims));
  });
}
Tensor argmax(const Tensor& x, int axis) { return unary(x, [=](Output v) { return argmax(v, axis); }); }

Tensor one_hot(const Tensor& indices, std::int64_t num_classes) {
  return unary(indices, [=](Output v) { return one_hot(v, num_classes); });
}
Tensor cast(const Tensor& x, DType dtype) { return unary(x, [=](Output v) { return cast(v, dtype); }); }

}  // namespace strata::ops

namespace strata {

Tensor operator+(const Tensor& a, const Tensor& b) { return ops::add(a, b); }
Tensor operator-(const Tensor& a, const Tensor& b) { return ops::sub(a, b); }
Tensor operator*(const Tensor& a, const Tensor& b) { return ops::mul(a, b); }
Tensor operator/(const Tensor& a, const Tensor& b) { return ops::div(a, b); }
Tensor operator+(const Tensor& a, float b) { return ops::add(a, b); }
Tensor operator-(const Tensor& a, float b) { return ops::sub(a, b); }
Tensor operator*(const Tensor& a, float b) { return ops::mul(a, b); }
Tensor operator/(const Tensor& a, float b) { return ops::div(a, b); }
Tensor operator+(float a, const Tensor& b) { return ops::add(b, a); }
Tensor operator-(float a, const Tensor& b) { return ops::sub(a, b); }
Tensor operator*(float a, const Tensor& b) { return ops::mul(b, a); }
Tensor operator/(float a, const Tensor& b) { return ops::div(a, b); }
Tensor operator-(const Tensor& x) { return ops::neg(x); }

}  // namespace strata
