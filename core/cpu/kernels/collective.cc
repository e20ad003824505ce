// The CPU kernels of the gradient all-reduce ops (core/ops/collective_ops.h): pack and
// scale a bucket, hand it to the run's communicator, then unpack the sum.
#include <algorithm>

#include "core/collective.h"
#include "core/cpu/kernels/register.h"
#include "core/op_registry.h"
#include "core/ops/collective_ops.h"

namespace strata::cpu {
namespace {

using ops::collective_of;

void all_reduce_start_kernel(KernelContext& ctx) {
  Collective& collective = collective_of(ctx);
  const auto samples = static_cast<float>(ctx.input(0).shape()[0]);
  float* flat = ctx.output(0).data<float>();
  std::int64_t pos = 0;
  for (std::size_t i = 1; i < ctx.inputs.size(); ++i) {
    const Tensor& v = *ctx.inputs[i];
    const float* p = v.data<float>();
    // No samples: the local loss is a mean over nothing; contribute zeros.
    if (samples == 0.f) std::fill_n(flat + pos, v.size(), 0.f);
    else for (std::int64_t j = 0; j < v.size(); ++j) flat[pos + j] = p[j] * samples;
    pos += v.size();
  }
  flat[pos] = samples;
  collective.start_all_reduce(flat, pos + 1);
}

void all_reduce_wait_kernel(KernelContext& ctx) {
  Collective& collective = collective_of(ctx);
  // The buffer was summed in place: the start's output, which this node reads.
  float* flat = const_cast<float*>(ctx.input(0).data<float>());
  collective.wait_all_reduce(flat);
  const std::int64_t total = ctx.input(0).size();
  const float samples = flat[total - 1];
  const float scale = samples > 0.f ? 1.f / samples : 0.f;
  std::int64_t pos = 0;
  for (auto* out : ctx.outputs) {
    float* o = out->data<float>();
    for (std::int64_t j = 0; j < out->size(); ++j) o[j] = flat[pos + j] * scale;
    pos += out->size();
  }
}

}  // namespace

void register_collective_kernels(OpRegistry& r) {
  r.add_kernel("all_reduce_start", DeviceType::cpu, {.run = all_reduce_start_kernel});
  r.add_kernel("all_reduce_wait", DeviceType::cpu, {.run = all_reduce_wait_kernel});
}

}  // namespace strata::cpu
