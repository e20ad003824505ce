// The CPU kernels of the sequence ops (core/ops/sequence_ops.cc): concat_last /
// split_last, embedding lookups and their gradient, repeat_vector and unfold_time.
#include <algorithm>
#include <cstdint>

#include "core/cpu/kernels/register.h"
#include "core/op_registry.h"
#include "core/ops/sequence_ops.h"

namespace strata::cpu {

namespace {

std::int64_t id_at(const Tensor& ids, std::int64_t i) {
  switch (ids.dtype()) {
    case DType::float32: return static_cast<std::int64_t>(ids.data<float>()[i]);
    case DType::int32: return ids.data<std::int32_t>()[i];
    case DType::int64: return ids.data<std::int64_t>()[i];
    case DType::string: throw ValueError("token ids must be numbers, got strings (use StringLookup first)");
  }
  return 0;
}

std::int64_t checked_id(const KernelContext& ctx, const Tensor& ids, std::int64_t i, std::int64_t vocab) {
  std::int64_t v = id_at(ids, i);
  if (v < 0 || v >= vocab) throw ValueError(ops::token_id_out_of_range(ctx.node, v, i, vocab));
  return v;
}

// The product of every dim but the last (counted from the shape: a part of width 0 has
// rows too, which the other part's copy needs).
std::int64_t rows_of(const Shape& s) { return s.product(0, s.rank() - 1); }

void concat_last_kernel(KernelContext& ctx) {
  const std::int64_t na = ctx.input(0).shape()[-1], nb = ctx.input(1).shape()[-1];
  const std::int64_t rows = rows_of(ctx.output(0).shape());
  const float* a = ctx.input(0).data<float>();
  const float* b = ctx.input(1).data<float>();
  float* o = ctx.output(0).data<float>();
  for (std::int64_t r = 0; r < rows; ++r) {
    std::copy_n(a + r * na, na, o + r * (na + nb));
    std::copy_n(b + r * nb, nb, o + r * (na + nb) + na);
  }
}

void split_last_kernel(KernelContext& ctx) {
  const std::int64_t na = ctx.output(0).shape()[-1], nb = ctx.output(1).shape()[-1];
  const std::int64_t rows = rows_of(ctx.output(0).shape());
  const float* g = ctx.input(0).data<float>();
  float* a = ctx.output(0).data<float>();
  float* b = ctx.output(1).data<float>();
  for (std::int64_t r = 0; r < rows; ++r) {
    std::copy_n(g + r * (na + nb), na, a + r * na);
    std::copy_n(g + r * (na + nb) + na, nb, b + r * nb);
  }
}

void embedding_lookup_kernel(KernelContext& ctx) {
  const Tensor& table = ctx.input(0);
  const Tensor& ids = ctx.input(1);
  const std::int64_t V = table.shape()[0], D = table.shape()[1];
  const float* t = table.data<float>();
  float* o = ctx.output(0).data<float>();
  for (std::int64_t i = 0; i < ids.size(); ++i) std::copy_n(t + checked_id(ctx, ids, i, V) * D, D, o + i * D);
}

void embedding_lookup_grad_kernel(KernelContext& ctx) {
  const Tensor& ids = ctx.input(1);
  Tensor& out = ctx.output(0);
  const std::int64_t V = out.shape()[0], D = out.shape()[1];
  const float* g = ctx.input(0).data<float>();
  float* o = out.data<float>();
  std::fill_n(o, out.size(), 0.f);
  for (std::int64_t i = 0; i < ids.size(); ++i) {
    float* row = o + checked_id(ctx, ids, i, V) * D;
    for (std::int64_t d = 0; d < D; ++d) row[d] += g[i * D + d];
  }
}

void repeat_vector_kernel(KernelContext& ctx) {
  const std::int64_t B = ctx.input(0).shape()[0], F = ctx.input(0).shape()[1];
  const std::int64_t n = ctx.node.attrs.get<std::int64_t>("n");
  const float* x = ctx.input(0).data<float>();
  float* o = ctx.output(0).data<float>();
  for (std::int64_t b = 0; b < B; ++b)
    for (std::int64_t k = 0; k < n; ++k) std::copy_n(x + b * F, F, o + (b * n + k) * F);
}

// The same elements in the same order: a reshape's copy.
void unfold_time_kernel(KernelContext& ctx) {
  std::copy_n(static_cast<const char*>(ctx.input(0).raw_data()), ctx.input(0).nbytes(),
              static_cast<char*>(ctx.output(0).raw_data()));
}

}  // namespace

void register_sequence_kernels(OpRegistry& r) {
  r.add_kernel("concat_last", DeviceType::cpu, {.run = concat_last_kernel});
  r.add_kernel("split_last", DeviceType::cpu, {.run = split_last_kernel});
  r.add_kernel("embedding_lookup", DeviceType::cpu, {.run = embedding_lookup_kernel});
  r.add_kernel("embedding_lookup_grad", DeviceType::cpu, {.run = embedding_lookup_grad_kernel});
  r.add_kernel("repeat_vector", DeviceType::cpu, {.run = repeat_vector_kernel});
  r.add_kernel("unfold_time", DeviceType::cpu, {.run = unfold_time_kernel});
}

}  // namespace strata::cpu
