// A product's kernel (a conv2d's or dense's weights) packed as the GEMM reads it
// (cpu::PackedB), kept by one step of one execution state between runs. Packed once the
// kernel has served two runs in a row unchanged (Tensor::version): an inference
// program's weights are packed on its second run and read packed from then on, while a
// training step, whose weights change every step, never pays for a pack the GEMM would
// not repay (its products pack their own blocks, in parallel, as before).
#pragma once

#include <cstdint>
#include <memory>

#include "core/cpu/packed_gemm.h"
#include "core/op_registry.h"
#include "core/tensor.h"

namespace strata::cpu {

// A whole product (a 1x1 convolution's, a Dense layer's) reads the packed kernel only up
// to this many rows: beyond, packing on each call costs under 0.1% of the product, and
// each core packing its own blocks into its own cache measured 2% faster (ConvNeXtTiny
// at batch 32, 100,352 rows a layer) than every core reading one packed copy.
inline constexpr std::int64_t kPackedProductMaxRows = 4096;

struct PackedKernel final : KernelCache {
  // When a changed kernel is packed: once it has held for a run (Dense, Conv2D: a
  // training step's weights change every step and are never packed), or on the run it
  // changed (a recurrent kernel, which every step of the time loop multiplies by, so a
  // run repays its pack; packed on every run, a run's products never change path).
  enum class When { kOnceItHolds, kAtOnce };

  // The packed kernel for this run, or null (read `kernel` in place): `kernel` is op(B),
  // k×n row-major.
  const PackedB* for_run(const Tensor& kernel, std::int64_t k, std::int64_t n, When when = When::kOnceItHolds) {
    const Tensor::Version version = kernel.version();
    // A pack from another path (the kernels' path switched since, in a test) is redone:
    // a product must round as the path of the moment does.
    if (version != seen || packed.k() != k || packed.n() != n || (!packed.empty() && packed.isa() != kernel_isa())) {
      const bool second_run = version == seen && seen_before;
      seen = version;
      seen_before = true;
      if (when == When::kOnceItHolds && !second_run) {
        packed.pack(false, 0, 0, nullptr, 0);  // empty until the weights have held for a run
        return nullptr;
      }
      packed.pack(false, k, n, kernel.data<float>(), n);
    }
    return packed.empty() ? nullptr : &packed;
  }

  // The step's PackedKernel, made on first use; null where the packed GEMM is not built in.
  static PackedKernel* of(KernelContext& ctx) {
    if (!packed_gemm_available()) return nullptr;
    if (auto* cache = dynamic_cast<PackedKernel*>(ctx.cache.get())) return cache;
    ctx.cache = std::make_unique<PackedKernel>();
    return static_cast<PackedKernel*>(ctx.cache.get());
  }

  PackedB packed;
  Tensor::Version seen;
  bool seen_before = false;
};

}  // namespace strata::cpu
