// The CPU kernels of the scan ops (core/ops/scan_ops.h): cumsum, cumprod and its
// gradient, reverse, argsort (a stable sort of each lane's positions). The tensor is seen
// as (outer, n, inner) around the axis; each (outer, inner) lane is scanned in order, a row
// of `inner` lanes at a time so that the inner loop runs over contiguous memory.
#include <algorithm>
#include <cmath>
#include <cstdint>
#include <numeric>
#include <vector>

#include "core/cpu/kernels/register.h"
#include "core/cpu/parallel.h"
#include "core/cpu/scratch.h"
#include "core/op_registry.h"
#include "core/ops/scan_ops.h"

namespace strata::cpu {

namespace {

using Lanes = ops::ScanLanes;
Lanes lanes_of(const KernelContext& ctx) { return ops::scan_lanes(ctx.input(0).shape(), ctx.node.attrs); }

// out = the running `combine` of x along the axis from its start (or its end), with
// `identity` before the first element.
template <typename Combine>
void scan(KernelContext& ctx, float identity, bool reverse, Combine combine) {
  const Lanes l = lanes_of(ctx);
  const float* x = ctx.input(0).data<float>();
  float* y = ctx.output(0).data<float>();
  cpu::parallel_for(l.outer, [&](std::int64_t s, std::int64_t e) {
    float* acc = scratch(0, static_cast<std::size_t>(l.inner));  // the thread's: a step allocates nothing
    for (std::int64_t o = s; o < e; ++o) {
      std::fill_n(acc, l.inner, identity);
      for (std::int64_t step = 0; step < l.n; ++step) {
        const std::int64_t k = reverse ? l.n - 1 - step : step;
        const std::int64_t base = (o * l.n + k) * l.inner;
        for (std::int64_t i = 0; i < l.inner; ++i) y[base + i] = acc[i] = combine(acc[i], x[base + i]);
      }
    }
  }, cpu::threshold_for(l.n * l.inner));
}

void cumsum_kernel(KernelContext& ctx) {
  scan(ctx, 0.f, ctx.node.attrs.get<bool>("reverse"), [](float a, float b) { return a + b; });
}

void cumprod_kernel(KernelContext& ctx) {
  scan(ctx, 1.f, false, [](float a, float b) { return a * b; });
}

// dx_i = E_i · R_i with E_i = Π_{k<i} x_k and R_i = g_i + x_{i+1}·R_{i+1}: R from the end
// into dx, then E from the start multiplied in. No division, so zeros in x are exact.
void cumprod_grad_kernel(KernelContext& ctx) {
  const Lanes l = lanes_of(ctx);
  const float* x = ctx.input(0).data<float>();
  const float* g = ctx.input(1).data<float>();
  float* dx = ctx.output(0).data<float>();
  cpu::parallel_for(l.outer, [&](std::int64_t s, std::int64_t e) {
    float* acc = scratch(0, static_cast<std::size_t>(l.inner));  // the thread's: a step allocates nothing
    for (std::int64_t o = s; o < e; ++o) {
      const std::int64_t first = o * l.n * l.inner;
      std::fill_n(acc, l.inner, 0.f);
      for (std::int64_t k = l.n - 1; k >= 0; --k) {
        const std::int64_t base = first + k * l.inner;
        for (std::int64_t i = 0; i < l.inner; ++i) {
          const float next = k + 1 < l.n ? x[base + l.inner + i] : 0.f;
          dx[base + i] = acc[i] = g[base + i] + next * acc[i];
        }
      }
      std::fill_n(acc, l.inner, 1.f);
      for (std::int64_t k = 0; k < l.n; ++k) {
        const std::int64_t base = first + k * l.inner;
        for (std::int64_t i = 0; i < l.inner; ++i) {
          dx[base + i] *= acc[i];
          acc[i] *= x[base + i];
        }
      }
    }
  }, cpu::threshold_for(l.n * l.inner));
}

void reverse_kernel(KernelContext& ctx) {
  const Lanes l = lanes_of(ctx);
  const float* x = ctx.input(0).data<float>();
  float* y = ctx.output(0).data<float>();
  cpu::parallel_for(l.outer, [&](std::int64_t s, std::int64_t e) {
    for (std::int64_t o = s; o < e; ++o) {
      for (std::int64_t k = 0; k < l.n; ++k) {
        const float* from = x + (o * l.n + k) * l.inner;
        std::copy(from, from + l.inner, y + (o * l.n + (l.n - 1 - k)) * l.inner);
      }
    }
  }, cpu::threshold_for(l.n * l.inner));
}

// a comes before b: smaller (larger when descending), NaN the largest.
bool sorts_before(float a, float b, bool descending) {
  const bool nan_a = std::isnan(a), nan_b = std::isnan(b);
  if (nan_a || nan_b) return descending ? nan_a && !nan_b : !nan_a && nan_b;
  return descending ? a > b : a < b;
}

void argsort_kernel(KernelContext& ctx) {
  const Lanes l = lanes_of(ctx);
  const bool descending = ctx.node.attrs.get<bool>("descending");
  const float* x = ctx.input(0).data<float>();
  std::int32_t* y = ctx.output(0).data<std::int32_t>();
  cpu::parallel_for(l.outer * l.inner, [&](std::int64_t s, std::int64_t e) {
    thread_local std::vector<std::int32_t> order;  // grows only: a step allocates nothing
    order.resize(static_cast<std::size_t>(l.n));
    for (std::int64_t lane = s; lane < e; ++lane) {
      const std::int64_t o = lane / l.inner, i = lane - o * l.inner;
      const float* v = x + o * l.n * l.inner + i;
      std::iota(order.begin(), order.end(), 0);
      std::stable_sort(order.begin(), order.end(), [&](std::int32_t a, std::int32_t b) {
        return sorts_before(v[a * l.inner], v[b * l.inner], descending);
      });
      for (std::int64_t k = 0; k < l.n; ++k) y[(o * l.n + k) * l.inner + i] = order[static_cast<std::size_t>(k)];
    }
  }, cpu::threshold_for(l.n * 8));
}

}  // namespace

void register_scan_kernels(OpRegistry& r) {
  r.add_kernel("cumsum", DeviceType::cpu, {.run = cumsum_kernel});
  r.add_kernel("cumprod", DeviceType::cpu, {.run = cumprod_kernel});
  r.add_kernel("cumprod_grad", DeviceType::cpu, {.run = cumprod_grad_kernel});
  r.add_kernel("reverse", DeviceType::cpu, {.run = reverse_kernel});
  r.add_kernel("argsort", DeviceType::cpu, {.run = argsort_kernel});
}

}  // namespace strata::cpu
