// The NumPy-broadcasting walk of the CPU's binary kernels: out = f(a, b) element by element,
// split over the cores, with fast paths for the common layouts (same shapes, a scalar, a
// bias row, a column). Shared by the elementwise kernels (float32,
// core/cpu/kernels/elementwise.cc) and the integer ones (int32 and int64,
// core/cpu/kernels/integer.cc).
#pragma once

#include <cstdint>

#include "core/cpu/parallel.h"
#include "core/op_registry.h"
#include "core/ops/shape_util.h"

namespace strata::cpu {

// True when `small` (leading 1s aside) equals the trailing dims of `big`, so that `small`
// repeats along big's leading dims with the same memory layout.
inline bool is_suffix(const Shape& small, const Shape& big) {
  int lead = 0;
  while (lead < small.rank() && small.dims()[lead] == 1) ++lead;
  int n = small.rank() - lead;
  if (n == 0 || n > big.rank()) return false;
  for (int i = 0; i < n; ++i) {
    if (small.dims()[lead + i] != big.dims()[big.rank() - n + i]) return false;
  }
  return true;
}

// out[i] = f(a[ia], b[ib]) with broadcasting, elements of type T (float for the elementwise
// ops, int32 or int64 for the integer ones); fast paths for the common layouts.
template <typename T, typename F>
void binary_kernel(KernelContext& ctx, F f) {
  const Tensor& a = ctx.input(0);
  const Tensor& b = ctx.input(1);
  Tensor& out = ctx.output(0);
  const T* pa = a.data<T>();
  const T* pb = b.data<T>();
  T* po = out.data<T>();
  const std::int64_t n = out.size();
  if (a.size() == n && b.size() == n) {
    cpu::parallel_for(n, [&](std::int64_t s, std::int64_t e) {
      for (std::int64_t i = s; i < e; ++i) po[i] = f(pa[i], pb[i]);
    });
    return;
  }
  if (b.size() == 1 && a.size() == n) {
    const T vb = pb[0];
    cpu::parallel_for(n, [&](std::int64_t s, std::int64_t e) {
      for (std::int64_t i = s; i < e; ++i) po[i] = f(pa[i], vb);
    });
    return;
  }
  if (a.size() == 1 && b.size() == n) {
    const T va = pa[0];
    cpu::parallel_for(n, [&](std::int64_t s, std::int64_t e) {
      for (std::int64_t i = s; i < e; ++i) po[i] = f(va, pb[i]);
    });
    return;
  }
  const Shape& os = out.shape();
  // One operand repeated along the leading dims (a bias): a row loop, no index math.
  if (a.size() == n && is_suffix(b.shape(), os)) {
    const std::int64_t inner = b.size();
    cpu::parallel_for(n / inner, [&](std::int64_t s, std::int64_t e) {
      for (std::int64_t r = s; r < e; ++r) {
        const T* arow = pa + r * inner;
        T* orow = po + r * inner;
        for (std::int64_t j = 0; j < inner; ++j) orow[j] = f(arow[j], pb[j]);
      }
    }, cpu::threshold_for(inner));
    return;
  }
  if (b.size() == n && is_suffix(a.shape(), os)) {
    const std::int64_t inner = a.size();
    cpu::parallel_for(n / inner, [&](std::int64_t s, std::int64_t e) {
      for (std::int64_t r = s; r < e; ++r) {
        const T* brow = pb + r * inner;
        T* orow = po + r * inner;
        for (std::int64_t j = 0; j < inner; ++j) orow[j] = f(pa[j], brow[j]);
      }
    }, cpu::threshold_for(inner));
    return;
  }
  if (n == 0) return;
  // Rows of the collapsed walk: a [n, h, w, 1] operand against [n, 1, 1, 1] walks n rows of
  // h * w, not n * h * w rows of one element with the index math of each.
  ops::Strides sa = ops::broadcast_strides(a.shape(), os);
  ops::Strides sb = ops::broadcast_strides(b.shape(), os);
  const ops::Strides dims = ops::collapse_dims(os, sa, sb);
  const int rank = static_cast<int>(dims.size());
  const std::int64_t inner = dims[dims.size() - 1];
  const std::int64_t rows = n / inner;
  const std::int64_t ia_step = sa[dims.size() - 1], ib_step = sb[dims.size() - 1];
  cpu::parallel_for_rows(rows, inner, [&](std::int64_t row, std::int64_t begin, std::int64_t end) {
    std::int64_t rem = row, oa = 0, ob = 0;
    for (int d = rank - 2; d >= 0; --d) {
      const auto at = static_cast<std::size_t>(d);
      std::int64_t idx = rem % dims[at];
      rem /= dims[at];
      oa += idx * sa[at];
      ob += idx * sb[at];
    }
    T* orow = po + row * inner;
    const T* ra = pa + oa;
    const T* rb = pb + ob;
    // The common steps get loops the compiler vectorizes: both operands along the row,
    // or one of them a column held for the row (a keepdims reduction, a norm).
    if (ia_step == 1 && ib_step == 1) {
      for (std::int64_t j = begin; j < end; ++j) orow[j] = f(ra[j], rb[j]);
    } else if (ia_step == 1 && ib_step == 0) {
      const T vb = *rb;
      for (std::int64_t j = begin; j < end; ++j) orow[j] = f(ra[j], vb);
    } else if (ia_step == 0 && ib_step == 1) {
      const T va = *ra;
      for (std::int64_t j = begin; j < end; ++j) orow[j] = f(va, rb[j]);
    } else {
      for (std::int64_t j = begin; j < end; ++j) orow[j] = f(ra[j * ia_step], rb[j * ib_step]);
    }
  });
}

}  // namespace strata::cpu
