#include "core/ops/shape_util.h"

#include <algorithm>
#include <cstring>

namespace strata::ops {

Shape broadcast_shapes(const std::string& op, const Shape& a, const Shape& b) {
  int rank = std::max(a.rank(), b.rank());
  std::vector<std::int64_t> out(static_cast<std::size_t>(rank));
  for (int i = 0; i < rank; ++i) {
    int ia = a.rank() - rank + i, ib = b.rank() - rank + i;
    std::int64_t da = ia >= 0 ? a.dims()[ia] : 1;
    std::int64_t db = ib >= 0 ? b.dims()[ib] : 1;
    if (da == 1) {
      out[i] = db;
    } else if (db == 1) {
      out[i] = da;
    } else if (da == kUnknownDim || db == kUnknownDim) {
      out[i] = da == kUnknownDim ? db : da;
    } else if (da == db) {
      out[i] = da;
    } else {
      throw ShapeError(op + ": shapes " + a.to_string() + " and " + b.to_string() +
                       " cannot be broadcast together");
    }
  }
  return Shape(std::move(out));
}

Strides broadcast_strides(const Shape& in, const Shape& out) {
  Strides strides;
  for (int i = 0; i < out.rank(); ++i) strides.push_back(0);
  std::int64_t stride = 1;
  for (int i = in.rank() - 1; i >= 0; --i) {
    int o = out.rank() - in.rank() + i;
    strides[o] = in.dims()[i] == 1 ? 0 : stride;
    stride *= in.dims()[i];
  }
  return strides;
}

Strides reduced_strides(const Shape& shape, const Axes& axes) {
  Strides strides;
  for (int i = 0; i < shape.rank(); ++i) strides.push_back(0);
  std::int64_t stride = 1;
  for (int d = shape.rank() - 1; d >= 0; --d) {
    if (std::find(axes.begin(), axes.end(), d) != axes.end()) continue;
    strides[static_cast<std::size_t>(d)] = stride;
    stride *= shape.dims()[d];
  }
  return strides;
}

Axes broadcast_axes(const Shape& small, const Shape& big) {
  Axes axes;
  const int lead = big.rank() - small.rank();
  for (int d = 0; d < big.rank(); ++d) {
    if (d < lead || (small.dims()[d - lead] == 1 && big.dims()[d] != 1)) axes.push_back(d);
  }
  return axes;
}

Axes reduction_axes(const std::string& op, const std::vector<std::int64_t>& axes, int rank) {
  Axes out;
  if (axes.empty()) {
    for (int i = 0; i < rank; ++i) out.push_back(i);
    return out;
  }
  for (auto a : axes) {
    int n = static_cast<int>(a < 0 ? a + rank : a);
    if (n < 0 || n >= rank) {
      throw ShapeError(op + ": axis " + std::to_string(a) + " is out of range for rank " +
                       std::to_string(rank));
    }
    out.push_back(n);
  }
  std::sort(out.begin(), out.end());
  Axes unique;
  for (int a : out) {
    if (unique.empty() || unique.back() != a) unique.push_back(a);
  }
  return unique;
}

Shape reduced_shape(const Shape& shape, const Axes& axes, bool keepdims) {
  std::vector<std::int64_t> dims;
  for (int i = 0; i < shape.rank(); ++i) {
    bool reduced = std::find(axes.begin(), axes.end(), i) != axes.end();
    if (!reduced) {
      dims.push_back(shape.dims()[i]);
    } else if (keepdims) {
      dims.push_back(1);
    }
  }
  return Shape(std::move(dims));
}

void expect_inputs(const InferContext& ctx, std::size_t n) {
  if (ctx.inputs.size() != n) {
    throw ValueError("op '" + ctx.op + "' takes " + std::to_string(n) + " inputs, got " +
                     std::to_string(ctx.inputs.size()));
  }
}

void expect_float_input(const InferContext& ctx, std::size_t i, const std::string& what) {
  if (ctx.inputs.at(i).dtype != DType::float32) {
    throw ValueError(ctx.op + ": " + what + " has dtype " + to_string(ctx.inputs[i].dtype) +
                     ", expected float32 (cast it first)");
  }
}

}  // namespace strata::ops
