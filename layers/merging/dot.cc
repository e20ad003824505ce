#include "layers/merging/dot.h"

#include "core/error.h"
#include "core/ops.h"
#include "core/ops/array_ops.h"
#include "core/ops/batch_matmul.h"

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

// Keras's normalize (keras.ops.normalize, order 2): x · min(rsqrt(Σx²), 1/ε) along the last
// axis, ε = 1e-7, which is x / sqrt(max(Σx², ε²)).
Output l2_normalize(Output x) {
  Output sq = ops::reduce_sum(ops::square(x), {-1}, true);
  return ops::mul(x, ops::div(1.f, ops::sqrt(ops::maximum(sq, 1e-14f))));
}

std::int64_t product(const std::vector<std::int64_t>& dims, std::size_t from, std::size_t to) {
  std::int64_t p = 1;
  for (std::size_t i = from; i < to; ++i) p *= dims[i];
  return p;
}

}  // namespace

DotImpl::DotImpl(IntPair axes_, DotOptions o) : LayerImpl("Dot", o.name), axes(axes_), options(o) {}

// Keras's batch_dot: the output's axes are a's less the contracted one, then b's less its
// batch axis and the contracted one; (batch, 1) when only the batch axis is left. Each
// input is brought to (batch, rest, k), so that one batched product does every rank.
std::vector<Output> DotImpl::call(Graph&, const std::vector<Output>& inputs) {
  Output a = inputs[0], b = inputs[1];
  const std::string where = "Dot '" + name + "'";
  if (a.shape().rank() < 2 || b.shape().rank() < 2) {
    throw ShapeError(where + " needs inputs of rank 2 or more, got " + a.shape().to_string() + " and " +
                     b.shape().to_string());
  }
  const int axis_a = a.shape().normalize_axis(static_cast<int>(axes.first));
  const int axis_b = b.shape().normalize_axis(static_cast<int>(axes.second));
  if (axis_a == 0 || axis_b == 0) throw ValueError(where + " cannot contract the batch axis (axes 0)");
  const std::int64_t ka = a.shape().dims()[axis_a], kb = b.shape().dims()[axis_b];
  if (ka != kb) {
    throw ShapeError(where + ": dimension incompatibility: " + a.shape().to_string() + " axis " +
                     std::to_string(axis_a) + " has " + std::to_string(ka) + " but " + b.shape().to_string() +
                     " axis " + std::to_string(axis_b) + " has " + std::to_string(kb));
  }
  a = move_last(a, axis_a);
  b = move_last(b, axis_b);
  if (options.normalize) {
    a = l2_normalize(a);
    b = l2_normalize(b);
  }
  const std::vector<std::int64_t> da = a.shape().dims(), db = b.shape().dims();
  for (const auto* dims : {&da, &db}) {
    for (std::size_t i = 1; i < dims->size(); ++i) {
      if ((*dims)[i] == kUnknownDim) {
        throw ShapeError(where + " needs every axis but the batch known, got " + inputs[0].shape().to_string() +
                         " and " + inputs[1].shape().to_string());
      }
    }
  }
  const std::int64_t m = product(da, 1, da.size() - 1), n = product(db, 1, db.size() - 1);
  Output y = ops::batch_matmul(ops::reshape(a, {-1, m, ka}), ops::reshape(b, {-1, n, ka}), false, true);
  std::vector<std::int64_t> out{-1};
  out.insert(out.end(), da.begin() + 1, da.end() - 1);
  out.insert(out.end(), db.begin() + 1, db.end() - 1);
  if (out.size() == 1) out.push_back(1);
  return {ops::reshape(y, out)};
}

Dot::Dot(IntPair axes, DotOptions o) : Layer(std::make_shared<DotImpl>(axes, std::move(o))) {}

namespace {
// axes: one int for both inputs or a pair; 1-based non-batch axes, negative from the end.
const bool dot_registered = register_keras_class(
    describe_layer<Dot>("Dot", &DotImpl::options, keras_field("axes", &DotImpl::axes, Spelling::compact)));
}  // namespace

}  // namespace strata::layers
