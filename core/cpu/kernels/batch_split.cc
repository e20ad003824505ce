// The CPU kernel of batch_split (core/ops/batch_split.h): each part a contiguous block of x.
#include <algorithm>
#include <cstdint>
#include <cstring>

#include "core/cpu/kernels/register.h"
#include "core/op_registry.h"

namespace strata::cpu {

namespace {

void batch_split_kernel(KernelContext& ctx) {
  const Tensor& x = ctx.input(0);
  const std::size_t parts = ctx.outputs.size();
  const std::size_t bytes = x.size() * size_of(x.dtype()) / std::max<std::size_t>(parts, 1);
  const auto* from = static_cast<const char*>(x.raw_data());
  for (std::size_t p = 0; p < parts; ++p) {
    if (bytes > 0) std::memcpy(ctx.output(static_cast<int>(p)).raw_data(), from + p * bytes, bytes);
  }
}

}  // namespace

void register_batch_split_kernel(OpRegistry& r) {
  r.add_kernel("batch_split", DeviceType::cpu, {.run = batch_split_kernel});
}

}  // namespace strata::cpu
