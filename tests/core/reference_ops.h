// Naive reference implementations of the ops, written for clarity, not speed: the
// op tests compare the kernels' forward values with them.
#pragma once

#include <algorithm>
#include <cmath>
#include <functional>
#include <vector>

#include "core/tensor.h"

namespace strata::testing {

using Reference = std::function<Tensor(const std::vector<Tensor>&)>;

// Row-major multi-index of flat position `flat` in `shape`.
inline std::vector<std::int64_t> unravel(std::int64_t flat, const Shape& shape) {
  std::vector<std::int64_t> idx(static_cast<std::size_t>(shape.rank()));
  for (int d = shape.rank() - 1; d >= 0; --d) {
    idx[d] = flat % shape.dims()[d];
    flat /= shape.dims()[d];
  }
  return idx;
}

// Flat position in `small` of the element that NumPy broadcasting reads for `big_idx`.
inline std::int64_t broadcast_source(const std::vector<std::int64_t>& big_idx, const Shape& small) {
  const int lead = static_cast<int>(big_idx.size()) - small.rank();
  std::int64_t flat = 0;
  for (int d = 0; d < small.rank(); ++d) {
    std::int64_t dim = small.dims()[d];
    flat = flat * dim + (dim == 1 ? 0 : big_idx[d + lead]);
  }
  return flat;
}

inline Shape broadcast_shape(const Shape& a, const Shape& b) {
  int rank = std::max(a.rank(), b.rank());
  std::vector<std::int64_t> dims(static_cast<std::size_t>(rank));
  for (int i = 0; i < rank; ++i) {
    int ia = i - (rank - a.rank()), ib = i - (rank - b.rank());
    std::int64_t da = ia >= 0 ? a.dims()[ia] : 1, db = ib >= 0 ? b.dims()[ib] : 1;
    dims[i] = da == 1 ? db : da;
  }
  return Shape(dims);
}

inline Tensor ref_unary(const Tensor& x, const std::function<float(float)>& f) {
  Tensor out(x.shape());
  for (std::int64_t i = 0; i < x.size(); ++i) out.data<float>()[i] = f(x.item(i));
  return out;
}

inline Tensor ref_binary(const Tensor& a, const Tensor& b, const std::function<float(float, float)>& f) {
  Tensor out(broadcast_shape(a.shape(), b.shape()));
  for (std::int64_t i = 0; i < out.size(); ++i) {
    auto idx = unravel(i, out.shape());
    out.data<float>()[i] = f(a.item(broadcast_source(idx, a.shape())), b.item(broadcast_source(idx, b.shape())));
  }
  return out;
}

// src (read with shape `src_shape`, same element count) broadcast to `shape`, times scale.
inline Tensor ref_broadcast(const Tensor& src, const Shape& src_shape, const Shape& shape, float scale = 1.f) {
  Tensor out(shape);
  for (std::int64_t i = 0; i < out.size(); ++i) {
    out.data<float>()[i] = scale * src.item(broadcast_source(unravel(i, shape), src_shape));
  }
  return out;
}

// Sum of x's elements that broadcast from each element of `like`.
inline Tensor ref_sum_to(const Tensor& x, const Shape& like) {
  Tensor out(like);
  for (std::int64_t i = 0; i < x.size(); ++i) {
    out.data<float>()[broadcast_source(unravel(i, x.shape()), like)] += x.item(i);
  }
  return out;
}

enum class ReduceKind { sum, mean, max };

inline Tensor ref_reduce(const Tensor& x, std::vector<std::int64_t> axes, bool keepdims, ReduceKind kind) {
  const Shape& s = x.shape();
  if (axes.empty()) {
    for (int d = 0; d < s.rank(); ++d) axes.push_back(d);
  }
  for (auto& a : axes) a = a < 0 ? a + s.rank() : a;
  auto reduced = [&](int d) { return std::find(axes.begin(), axes.end(), d) != axes.end(); };
  std::vector<std::int64_t> keep_dims, out_dims;
  std::int64_t count = 1;
  for (int d = 0; d < s.rank(); ++d) {
    keep_dims.push_back(reduced(d) ? 1 : s.dims()[d]);
    if (!reduced(d) || keepdims) out_dims.push_back(keep_dims.back());
    if (reduced(d)) count *= s.dims()[d];
  }
  Shape keep(keep_dims);
  Tensor out(keep);
  std::vector<char> seen(static_cast<std::size_t>(out.size()), 0);
  for (std::int64_t i = 0; i < x.size(); ++i) {
    std::int64_t o = broadcast_source(unravel(i, s), keep);
    float& acc = out.data<float>()[o];
    if (kind == ReduceKind::max) {
      acc = seen[o] ? std::max(acc, x.item(i)) : x.item(i);
      seen[o] = 1;
    } else {
      acc += x.item(i);
    }
  }
  if (kind == ReduceKind::mean) {
    for (auto& v : out.values<float>()) v /= static_cast<float>(count);
  }
  return out.reshaped(Shape(out_dims));
}

// a and b viewed as matrices (product of leading dims, last dim), like ops::matmul.
inline Tensor ref_matmul(const Tensor& a, const Tensor& b, bool ta, bool tb) {
  auto rows = [](const Shape& s) { return s.product(0, s.rank() - 1); };
  std::int64_t ar = rows(a.shape()), ac = a.shape()[-1], br = rows(b.shape()), bc = b.shape()[-1];
  std::int64_t m = ta ? ac : ar, k = ta ? ar : ac, n = tb ? br : bc;
  auto at = [&](std::int64_t i, std::int64_t j) { return ta ? a.item(j * ac + i) : a.item(i * ac + j); };
  auto bt = [&](std::int64_t i, std::int64_t j) { return tb ? b.item(j * bc + i) : b.item(i * bc + j); };
  std::vector<std::int64_t> dims;
  if (ta) {
    dims = {m, n};
  } else {
    dims.assign(a.shape().dims().begin(), a.shape().dims().end() - 1);
    dims.push_back(n);
  }
  Tensor out{Shape(dims)};
  for (std::int64_t i = 0; i < m; ++i) {
    for (std::int64_t j = 0; j < n; ++j) {
      double acc = 0;
      for (std::int64_t p = 0; p < k; ++p) acc += static_cast<double>(at(i, p)) * bt(p, j);
      out.data<float>()[i * n + j] = static_cast<float>(acc);
    }
  }
  return out;
}

inline Tensor ref_softmax(const Tensor& x, int axis, bool log_space) {
  const Shape& s = x.shape();
  axis = s.normalize_axis(axis);
  const std::int64_t n = s.dims()[axis], inner = s.product(axis + 1, s.rank()), outer = s.product(0, axis);
  Tensor out(s);
  for (std::int64_t o = 0; o < outer; ++o) {
    for (std::int64_t i = 0; i < inner; ++i) {
      auto at = [&](std::int64_t k) { return (o * n + k) * inner + i; };
      double sum = 0;
      for (std::int64_t k = 0; k < n; ++k) sum += std::exp(static_cast<double>(x.item(at(k))));
      for (std::int64_t k = 0; k < n; ++k) {
        double v = x.item(at(k));
        out.data<float>()[at(k)] = static_cast<float>(log_space ? v - std::log(sum) : std::exp(v) / sum);
      }
    }
  }
  return out;
}

// x (..., C) read at labels (...).
inline Tensor ref_pick(const Tensor& x, const Tensor& labels) {
  Tensor out(labels.shape());
  const std::int64_t classes = x.shape()[-1];
  for (std::int64_t i = 0; i < labels.size(); ++i) {
    out.data<float>()[i] = x.item(i * classes + static_cast<std::int64_t>(labels.item(i)));
  }
  return out;
}

inline Tensor ref_unpick(const Tensor& g, const Tensor& labels, const Shape& like) {
  Tensor out(like);
  const std::int64_t classes = like[-1];
  for (std::int64_t i = 0; i < labels.size(); ++i) {
    out.data<float>()[i * classes + static_cast<std::int64_t>(labels.item(i))] = g.item(i);
  }
  return out;
}

// y = x with its axes permuted: y's axis a is x's axis perm[a].
inline Tensor ref_transpose(const Tensor& x, const std::vector<std::int64_t>& perm) {
  std::vector<std::int64_t> od;
  for (auto p : perm) od.push_back(x.shape().dims()[p]);
  Tensor y{Shape(od)};
  for (std::int64_t i = 0; i < y.size(); ++i) {
    auto oi = unravel(i, y.shape());
    std::vector<std::int64_t> xi(perm.size());
    for (std::size_t a = 0; a < perm.size(); ++a) xi[perm[a]] = oi[a];
    std::int64_t flat = 0;
    for (int a = 0; a < x.rank(); ++a) flat = flat * x.shape().dims()[a] + xi[a];
    y.data<float>()[i] = x.data<float>()[flat];
  }
  return y;
}

}  // namespace strata::testing
