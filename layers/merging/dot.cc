#include "layers/merging/dot.h"

#include "core/error.h"
#include "core/ops.h"
#include "core/ops/array_ops.h"

namespace strata::layers {

namespace {

// x with axis `axis` moved last.
Output move_last(Output x, int axis) {
  const int rank = x.shape().rank();
  if (axis == rank - 1) return x;
  std::vector<std::int64_t> perm;
  for (int i = 0; i < rank; ++i) {
    if (i != axis) perm.push_back(i);
  }
  perm.push_back(axis);
  return ops::transpose(x, perm);
}

Output l2_normalize(Output x) {
  Output sq = ops::reduce_sum(ops::square(x), {-1}, true);
  return ops::mul(x, ops::div(1.f, ops::sqrt(ops::maximum(sq, 1e-12f))));
}

}  // namespace

DotImpl::DotImpl(IntPair axes_, DotOptions o) : LayerImpl("Dot", o.name), axes(axes_), options(o) {}

std::vector<Output> DotImpl::call(Graph&, const std::vector<Output>& inputs) {
  Output a = inputs[0], b = inputs[1];
  const int ra = a.shape().rank(), rb = b.shape().rank();
  if (ra < 2 || ra > 3 || rb < 2 || rb > 3) {
    throw NotImplementedError("Dot supports inputs of rank 2 or 3, got " + a.shape().to_string() + " and " +
                              b.shape().to_string());
  }
  const int axis_a = a.shape().normalize_axis(static_cast<int>(axes.first));
  const int axis_b = b.shape().normalize_axis(static_cast<int>(axes.second));
  if (axis_a == 0 || axis_b == 0) throw ValueError("Dot cannot contract the batch axis");
  const std::int64_t ka = a.shape().dims()[axis_a], kb = b.shape().dims()[axis_b];
  if (ka != kb) {
    throw ShapeError("dimension incompatibility: " + a.shape().to_string() + " axis " + std::to_string(axis_a) +
                     " has " + std::to_string(ka) + " but " + b.shape().to_string() + " axis " +
                     std::to_string(axis_b) + " has " + std::to_string(kb));
  }
  a = move_last(a, axis_a);
  b = move_last(b, axis_b);
  if (options.normalize) {
    a = l2_normalize(a);
    b = l2_normalize(b);
  }
  // (B, m, k) and (B, n, k) -> (B, m, 1, k) * (B, 1, n, k), summed over k.
  const std::int64_t m = ra == 3 ? a.shape()[1] : 1, n = rb == 3 ? b.shape()[1] : 1;
  Output pa = ops::reshape(a, {-1, m, 1, ka});
  Output pb = ops::reshape(b, {-1, 1, n, ka});
  Output y = ops::reduce_sum(ops::mul(pa, pb), {-1});  // (B, m, n)
  std::vector<std::int64_t> out{-1};
  if (ra == 3) out.push_back(m);
  if (rb == 3) out.push_back(n);
  if (out.size() == 1) out.push_back(1);
  return {ops::reshape(y, out)};
}

Dot::Dot(IntPair axes, DotOptions o) : Layer(std::make_shared<DotImpl>(axes, std::move(o))) {}

namespace {
// axes: one int for both inputs or a pair; 1-based non-batch axes, negative from the end.
const bool registered = register_keras_class(
    describe_layer<Dot>("Dot", &DotImpl::options, keras_field("axes", &DotImpl::axes, Spelling::compact)));
}  // namespace

}  // namespace strata::layers
