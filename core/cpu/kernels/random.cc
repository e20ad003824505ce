// The CPU kernels of the random ops (core/ops/random_ops.h): random_normal_like,
// random_uniform_rows and tf_stateless_normal_like.
#include <cstdint>

#include "core/cpu/kernels/register.h"
#include "core/cpu/parallel.h"
#include "core/op_registry.h"
#include "core/rng.h"
#include "core/tf_stateless_random.h"

namespace strata::cpu {

namespace {

void random_normal_like_kernel(KernelContext& ctx) {
  const Tensor& like = ctx.input(0);
  Tensor& out = ctx.output(0);
  float* po = out.data<float>();
  // Keyed on (seed, step) as dropout's masks: draws of different steps never overlap.
  const Philox rng(mix_seed(static_cast<std::uint64_t>(ctx.node.attrs.get<std::int64_t>("seed")),
                            static_cast<std::uint64_t>(ctx.step)),
                   static_cast<std::uint64_t>(ctx.node.attrs.get<std::int64_t>("stream")));
  // Elements are numbered in the step's global batch: a data-parallel shard starting at
  // sample_offset draws what a single process would for its samples.
  const std::int64_t first =
      like.rank() > 0 && like.shape()[0] > 0 ? ctx.sample_offset * (like.size() / like.shape()[0]) : 0;
  // Element g is normal(g), one Philox block each, so the draws do not depend on how the
  // range is split; sixteen blocks at a time (bits16) where the range allows.
  cpu::parallel_for(out.size(), [&](std::int64_t b, std::int64_t e) {
    std::int64_t i = b;
    Philox::Words16 words;
    for (; i + 16 <= e; i += 16) {
      rng.bits16(static_cast<std::uint64_t>(first + i), words);
      for (std::size_t j = 0; j < 16; ++j) {
        po[i + static_cast<std::int64_t>(j)] = Philox::to_normal(words[0][j], words[1][j]);
      }
    }
    for (; i < e; ++i) po[i] = rng.normal(static_cast<std::uint64_t>(first + i));
  }, cpu::threshold_for(64));
}

void tf_stateless_normal_like_kernel(KernelContext& ctx) {
  const Tensor& like = ctx.input(0);
  Tensor& out = ctx.output(0);
  float* po = out.data<float>();
  const TfStatelessNormal draws(ctx.node.attrs.get<std::int64_t>("seed0"), ctx.node.attrs.get<std::int64_t>("seed1"));
  const std::int64_t first =
      like.rank() > 0 && like.shape()[0] > 0 ? ctx.sample_offset * (like.size() / like.shape()[0]) : 0;
  // Element g of the global batch is draw g, four to a Philox block.
  cpu::parallel_for(out.size(), [&](std::int64_t b, std::int64_t e) {
    float block[4];
    std::uint64_t drawn = ~std::uint64_t{0};
    for (std::int64_t i = b; i < e; ++i) {
      const auto g = static_cast<std::uint64_t>(first + i);
      if (g / 4 != drawn) draws.draw_block(drawn = g / 4, block);
      po[i] = block[g % 4];
    }
  }, cpu::threshold_for(64));
}

void random_uniform_rows_kernel(KernelContext& ctx) {
  Tensor& out = ctx.output(0);
  float* po = out.data<float>();
  const Attrs& a = ctx.node.attrs;
  const auto seed = static_cast<std::uint64_t>(a.get<std::int64_t>("seed"));
  const Philox rng(mix_seed(seed, static_cast<std::uint64_t>(ctx.step)),
                   static_cast<std::uint64_t>(a.get<std::int64_t>("stream")));
  // Per-sample rows are numbered in the step's global batch; the batch's one row is the
  // same on every shard.
  const std::int64_t first = a.get<bool>("per_sample") ? ctx.sample_offset * a.get<std::int64_t>("columns") : 0;
  for (std::int64_t i = 0; i < out.size(); ++i) po[i] = rng.uniform(static_cast<std::uint64_t>(first + i));
}

}  // namespace

void register_random_kernels(OpRegistry& r) {
  r.add_kernel("random_normal_like", DeviceType::cpu, {.run = random_normal_like_kernel});
  r.add_kernel("random_uniform_rows", DeviceType::cpu, {.run = random_uniform_rows_kernel});
  r.add_kernel("tf_stateless_normal_like", DeviceType::cpu, {.run = tf_stateless_normal_like_kernel});
}

}  // namespace strata::cpu
