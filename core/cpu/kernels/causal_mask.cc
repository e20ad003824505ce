// The CPU kernel of causal_mask (core/ops/causal_mask.h): the (Tq, Tv) mask of 1 where
// query i may see key j (i >= j), 0 elsewhere.
#include "core/cpu/kernels/register.h"
#include "core/op_registry.h"

namespace strata::cpu {

namespace {

void causal_mask_kernel(KernelContext& ctx) {
  Tensor& out = ctx.output(0);
  const std::int64_t rows = out.shape()[0], cols = out.shape()[1];
  float* v = out.data<float>();
  for (std::int64_t i = 0; i < rows; ++i) {
    for (std::int64_t j = 0; j < cols; ++j) v[i * cols + j] = i >= j ? 1.f : 0.f;
  }
}

}  // namespace

void register_causal_mask_kernels(OpRegistry& r) {
  r.add_kernel("causal_mask", DeviceType::cpu, {.run = causal_mask_kernel});
}

}  // namespace strata::cpu
