#include "losses/loss_utils.h"

#include "core/ops.h"

namespace strata::losses {

namespace {

// Reshapes x to `dims` (static; at most one unknown) or else to like's runtime shape.
Output reshape_to(Output x, const std::vector<std::int64_t>& dims, Output like) {
  int unknown = 0;
  for (auto d : dims) unknown += d == kUnknownDim ? 1 : 0;
  if (unknown <= 1) return ops::reshape(x, dims);
  return ops::reshape_like(x, like);
}

Output expand_last(Output x, Output like) {
  std::vector<std::int64_t> dims = x.shape().dims();
  dims.push_back(1);
  return reshape_to(x, dims, like);
}

}  // namespace

Output squeeze_last(Output x) {
  const auto& d = x.shape().dims();
  if (d.empty() || d.back() != 1) {
    throw ShapeError("cannot squeeze the last axis of a tensor of shape " + x.shape().to_string());
  }
  std::vector<std::int64_t> dims(d.begin(), d.end() - 1);
  int unknown = 0;
  for (auto v : dims) unknown += v == kUnknownDim ? 1 : 0;
  if (unknown <= 1) return ops::reshape(x, dims);
  // Several unknown dims: sum over the size-1 axis has exactly the squeezed shape.
  if (x.dtype() == DType::float32) return ops::reduce_sum(x, {-1});
  return ops::cast(ops::reduce_sum(ops::cast(x, DType::float32), {-1}), x.dtype());
}

std::pair<Output, Output> squeeze_or_expand_to_same_rank(Output x1, Output x2) {
  const int r1 = x1.shape().rank(), r2 = x2.shape().rank();
  if (r1 == r2) return {x1, x2};
  if (r1 == r2 + 1 && x1.shape().dims().back() == 1) {
    if (r2 == 1) {
      x2 = expand_last(x2, x1);
    } else {
      x1 = squeeze_last(x1);
    }
  }
  if (r2 == r1 + 1 && x2.shape().dims().back() == 1) {
    if (r1 == 1) {
      x1 = expand_last(x1, x2);
    } else {
      x2 = squeeze_last(x2);
    }
  }
  return {x1, x2};
}

std::pair<Output, Output> float32_of_same_rank(Output y_true, Output y_pred) {
  y_pred = ops::cast(y_pred, DType::float32);
  y_true = ops::cast(y_true, DType::float32);
  return squeeze_or_expand_to_same_rank(y_true, y_pred);
}

std::vector<std::int64_t> axes_range(int from, int to) {
  std::vector<std::int64_t> axes;
  for (int a = from; a < to; ++a) axes.push_back(a);
  return axes;
}

Output reduce_weighted_values(Output values, Output sample_weight, Reduction reduction) {
  values = ops::cast(values, DType::float32);
  if (sample_weight.valid()) {
    Output w = ops::cast(sample_weight, DType::float32);
    std::tie(values, w) = squeeze_or_expand_to_same_rank(values, w);
    if (w.shape().rank() == 1 && values.shape().rank() > 1) {
      // One weight per sample for per-timestep losses (B, T, ...): broadcast over the rest.
      std::vector<std::int64_t> dims(static_cast<std::size_t>(values.shape().rank()), 1);
      dims[0] = -1;
      w = ops::reshape(w, dims);
    }
    values = ops::mul(values, w);
    sample_weight = w;
  }
  if (reduction == Reduction::none || values.shape().rank() == 0) return values;
  switch (reduction) {
    case Reduction::sum:
      return ops::reduce_sum(values);
    case Reduction::mean_with_sample_weight:
      if (sample_weight.valid()) {
        // divide_no_nan: a zero total weight gives a zero loss.
        Output total = ops::reduce_sum(values);
        Output divisor = ops::reduce_sum(sample_weight);
        Output nonzero = ops::not_equal(divisor, ops::zeros_like(divisor));
        return ops::mul(ops::div(total, ops::add(divisor, ops::sub(1.f, nonzero))), nonzero);
      }
      return ops::reduce_mean(values);
    default:
      return ops::reduce_mean(values);
  }
}

}  // namespace strata::losses
