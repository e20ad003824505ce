// The CPU kernels of matmul and dense (core/ops/matmul.cc): the CPU backend's GEMM
// (core/cpu/gemm.h) on row-major matrices, dense with the bias and a relu applied in one
// pass over the output, and two Dense layers in a row at batch 1 as one kernel (core/cpu/dense_pair.h);
// dense_int8 on the int8 GEMM (core/cpu/int8_gemm.h).
#include <algorithm>
#include <cmath>
#include <cstdint>
#include <limits>
#include <memory>
#include <vector>

#include "core/cpu/aligned_buffer.h"
#include "core/cpu/bf16_gemm.h"
#include "core/cpu/dense_pair.h"
#include "core/cpu/kernels/packed_kernel.h"
#include "core/cpu/gemm.h"
#include "core/cpu/gemv.h"
#include "core/cpu/int8_gemm.h"
#include "core/cpu/kernels/output_rounding.h"
#include "core/cpu/kernels/register.h"
#include "core/cpu/parallel.h"
#include "core/op_registry.h"
#include "core/ops/fused_activation.h"
#include "core/ops/matmul.h"

namespace strata::cpu {

namespace {

// Whether a product's operands are marked bfloat16 values (ops::dense, ops::matmul) and
// the CPU multiplies such values faster than floats (AVX-512 BF16) at this many rows.
bool bf16_operands(const KernelContext& ctx, std::int64_t rows) {
  const std::string* operands = ctx.node.attrs.find<std::string>("operands");
  return operands && *operands == "bfloat16" && bf16_path() == Bf16Path::kAvx512Bf16 && rows >= 2;
}

// A bfloat16 product's B, packed again on every run (a training step's operands change
// every step) in storage kept between runs.
struct Bf16MatmulState final : KernelCache {
  Bf16PackedB packed;
};

// `rounding` on rows × cols of y (row stride cols), the rows split over the threads: for
// the products whose kernels take no epilogue (the bfloat16 GEMM, the matrix-vector one).
void round_rows(float* y, std::int64_t rows, std::int64_t cols, cpu::Rounding rounding) {
  if (rounding == cpu::Rounding::kNone) return;
  parallel_for(rows, [&](std::int64_t first, std::int64_t last) {
    cpu::apply_rounding(y + first * cols, (last - first) * cols, rounding);
  }, threshold_for(cols));
}

void matmul_kernel(KernelContext& ctx) {
  const Tensor& a = ctx.input(0);
  const Tensor& b = ctx.input(1);
  Tensor& out = ctx.output(0);
  auto [ar, ac] = ops::as_matrix(a.shape());
  auto [br, bc] = ops::as_matrix(b.shape());
  bool ta = ctx.node.attrs.get<bool>("transpose_a"), tb = ctx.node.attrs.get<bool>("transpose_b");
  const std::int64_t m = ta ? ac : ar, k = ta ? ar : ac, n = tb ? br : bc;
  if (bf16_operands(ctx, m) && n > 0) {
    if (!ctx.cache || !dynamic_cast<Bf16MatmulState*>(ctx.cache.get())) ctx.cache = std::make_unique<Bf16MatmulState>();
    auto& state = static_cast<Bf16MatmulState&>(*ctx.cache);
    state.packed.pack(k, n, b.data<float>(), bc, tb);
    gemm_bf16(m, a.data<float>(), ac, state.packed, out.data<float>(), n, ta);
    round_rows(out.data<float>(), m, n, output_rounding(ctx.node));
    return;
  }
  cpu::gemm(ta, tb, m, n, k, a.data<float>(), ac, b.data<float>(), bc, out.data<float>(), n,
            cpu::Epilogue{.rounding = output_rounding(ctx.node)});
}

// A dense product marked for the bfloat16 GEMM (core/ops/matmul.cc): its kernel, already
// rounded to bfloat16, packed once per value (in predictions it is computed from
// variables alone, once per change of the weights; in training, again every step).
struct Bf16DenseState final : KernelCache {
  const Bf16PackedB& packed_for(const Tensor& kernel, std::int64_t k, std::int64_t n) {
    const Tensor::Version version = kernel.version();
    if (!packed_once || version != seen || packed.k() != k || packed.n() != n || packed.path() != bf16_path()) {
      packed.pack(k, n, kernel.data<float>(), n);
      seen = version;
      packed_once = true;
    }
    return packed;
  }
  Bf16PackedB packed;
  Tensor::Version seen;
  bool packed_once = false;
};

// act(x · kernel + bias) of bfloat16 operands on the bfloat16 GEMM, where the CPU has
// AVX-512 BF16; false where it does not (the float GEMM computes the same products).
bool dense_bf16(KernelContext& ctx, std::int64_t rows, std::int64_t in, std::int64_t units, const float* bias,
                bool relu, float* y) {
  if (!bf16_operands(ctx, rows)) return false;
  if (!ctx.cache || !dynamic_cast<Bf16DenseState*>(ctx.cache.get())) ctx.cache = std::make_unique<Bf16DenseState>();
  auto& state = static_cast<Bf16DenseState&>(*ctx.cache);
  gemm_bf16(rows, ctx.input(0).data<float>(), in, state.packed_for(ctx.input(1), in, units), y, units);
  const cpu::Rounding rounding = output_rounding(ctx.node);
  if (bias || relu || rounding != cpu::Rounding::kNone) {
    parallel_for(rows, [&](std::int64_t first, std::int64_t last) {
      for (std::int64_t r = first; r < last; ++r) {
        float* out = y + r * units;
        if (bias) {
          for (std::int64_t j = 0; j < units; ++j) out[j] += bias[j];
        }
        if (relu) {
          for (std::int64_t j = 0; j < units; ++j) out[j] = out[j] > 0.f ? out[j] : 0.f;
        }
        cpu::apply_rounding(out, units, rounding);
      }
    }, threshold_for(units));
  }
  return true;
}

void dense_kernel(KernelContext& ctx) {
  const Tensor& x = ctx.input(0);
  const Tensor& kernel = ctx.input(1);
  const float* bias = ctx.inputs.size() == 3 ? ctx.input(2).data<float>() : nullptr;
  const bool relu = ops::fuses_relu(ctx.node);
  auto [rows, in] = ops::as_matrix(x.shape());
  const std::int64_t units = kernel.shape()[1];
  float* y = ctx.output(0).data<float>();
  if (dense_bf16(ctx, rows, in, units, bias, relu, y)) return;
  if (rows == 1 && units * in < cpu::kGemvParallelMacs && cpu::gemv_available()) {
    // A small batch-1 layer (the MLP's 10-class head): one thread, bias and relu on the
    // registers before the store.
    cpu::gemv_row(units, in, x.data<float>(), 1, kernel.data<float>(), units, y, {.bias = bias, .relu = relu});
    round_rows(y, 1, units, output_rounding(ctx.node));
    return;
  }
  // Many rows (a batch, or every position of a sequence or image): the kernel packed once
  // it holds still (packed_kernel.h). Not for one row or one unit, which cpu::gemm gives
  // the matrix-vector kernel: a packed product rounds differently, and a prediction must
  // not change between the run before the pack and the runs after.
  cpu::PackedKernel* cache =
      rows > 1 && rows <= cpu::kPackedProductMaxRows && units > 1 ? cpu::PackedKernel::of(ctx) : nullptr;
  // Bias and relu applied by the GEMM to each tile row of y as it is written
  // (cpu::Epilogue), not in a pass of their own afterwards.
  const cpu::Epilogue epilogue{.bias = bias,
                               .activation = relu ? cpu::Activation::kRelu : cpu::Activation::kNone,
                               .rounding = output_rounding(ctx.node)};
  if (const cpu::PackedB* packed = cache ? cache->for_run(kernel, in, units) : nullptr) {
    cpu::gemm_prepacked(rows, x.data<float>(), in, *packed, y, units, epilogue);
  } else {
    cpu::gemm(false, false, rows, units, in, x.data<float>(), in, kernel.data<float>(), units, y, units, epilogue);
  }
}

// A Dense pair's first kernel packed for batch-1 predictions (cpu::pack_dense_pair_first),
// kept by one execution state. Packing the MLP's 784×256 kernel takes about 20 µs and
// then saves each prediction about 0.3 µs (docs/performance.md), so it pays after some 64
// predictions on unchanged weights. A state packs once the weights have served
// `stable_runs_to_pack` runs unchanged; each time a packed copy is dropped (the weights
// changed) before it paid, that number doubles, so a model trained between short runs of
// predictions soon stops packing. A kernel larger than kMaxPackedBytes is read in place:
// the gain was measured on weights that stay in the cores' caches, and each state holds
// its own copy.
struct PackedDensePair final : KernelCache {
  static constexpr int kRunsToPayBack = 64;
  static constexpr int kMostStableRunsToPack = 4096;
  static constexpr std::size_t kMaxPackedBytes = std::size_t{4} << 20;

  // The packed kernel for this run, or null: read `kernel` in place.
  const float* for_run(const Tensor& kernel, const cpu::DenseRowLayer& first, const cpu::DensePairSplit& split) {
    if (kernel.nbytes() > kMaxPackedBytes) return nullptr;
    const Tensor::Version version = kernel.version();
    if (version != seen || split != split_seen) {
      if (blocks && unchanged_runs < stable_runs_to_pack + kRunsToPayBack) {
        stable_runs_to_pack = std::min(2 * stable_runs_to_pack, kMostStableRunsToPack);
      }
      seen = version;
      split_seen = split;
      unchanged_runs = 0;
      blocks = nullptr;
    }
    if (unchanged_runs < std::numeric_limits<int>::max()) ++unchanged_runs;
    if (blocks || unchanged_runs < stable_runs_to_pack) return blocks;
    float* into = buffer.reserve(static_cast<std::size_t>(kernel.size()));
    cpu::pack_dense_pair_first(first, split, into);
    blocks = into;
    return blocks;
  }

  int stable_runs_to_pack = 16;
  Tensor::Version seen;            // the kernel's version and the split that
  cpu::DensePairSplit split_seen;  // the last runs had, and how many in a row
  int unchanged_runs = 0;
  const float* blocks = nullptr;  // the packed kernel, in `buffer`; null until packed
  cpu::AlignedBuffer buffer;
};

// Two Dense layers in a row for one sample (a batch-1 prediction's hidden layers): both
// products split over the cores with one hand-off, and the first layer's output never
// crosses cores (core/cpu/dense_pair.h). Larger batches run the layers one by one.
bool dense_pair_kernel(KernelContext& first, KernelContext& second) {
  const Tensor& x = first.input(0);
  if (ops::as_matrix(x.shape()).first != 1) return false;
  auto layer = [](const KernelContext& ctx) {
    const Tensor& kernel = ctx.input(1);
    return cpu::DenseRowLayer{.kernel = kernel.data<float>(),
                              .bias = ctx.inputs.size() == 3 ? ctx.input(2).data<float>() : nullptr,
                              .inputs = kernel.shape()[0],
                              .units = kernel.shape()[1]};
  };
  cpu::DenseRowLayer one = layer(first), two = layer(second);
  const cpu::DensePairSplit split = cpu::dense_pair_split(one, two, cpu::num_threads());
  if (!split) return false;
  // Only now: a pair too small to split (a small model's every prediction) looks up no
  // attribute before its layers run one by one.
  // Emulated bfloat16 layers (their outputs rounded by their kernels, so back to back) run
  // one by one: the pair computes in float32 and rounds nothing.
  if (output_rounding(first.node) != cpu::Rounding::kNone || output_rounding(second.node) != cpu::Rounding::kNone) {
    return false;
  }
  one.relu = ops::fuses_relu(first.node);
  two.relu = ops::fuses_relu(second.node);
  // The step's cache is a PackedKernel while it runs alone on batches (dense_kernel):
  // replaced, as the step's one cache, when it runs paired.
  auto* pair_cache = dynamic_cast<PackedDensePair*>(first.cache.get());
  if (!pair_cache) {
    first.cache = std::make_unique<PackedDensePair>();
    pair_cache = static_cast<PackedDensePair*>(first.cache.get());
  }
  const float* packed = pair_cache->for_run(first.input(1), one, split);
  cpu::dense_pair_run(split, one, packed, two, x.data<float>(), first.output(0).data<float>(),
                      second.output(0).data<float>());
  return true;
}

// dense_int8's kernel packed as the int8 GEMM reads it, and the rows' scales of the last
// run, kept by one step of one execution state. The kernel
// (int8 values held in float32) is packed on the run it changed: an int8 layer's kernel
// is not trained, so that is once.
struct DenseInt8State final : KernelCache {
  const Int8PackedB& packed_for(const Tensor& kernel, std::int64_t k, std::int64_t n) {
    const Tensor::Version version = kernel.version();
    if (!packed_once || version != seen || packed.k() != k || packed.n() != n || packed.path() != int8_path()) {
      std::vector<std::int8_t> values(static_cast<std::size_t>(k * n));
      const float* w = kernel.data<float>();
      // In [-127, 127] as Keras's int8 kernel; anything else saturates as a cast to int8
      // would not, but stays defined.
      for (std::size_t i = 0; i < values.size(); ++i) {
        const float v = std::isnan(w[i]) ? 0.f : std::clamp(std::nearbyint(w[i]), -128.f, 127.f);
        values[i] = static_cast<std::int8_t>(v);
      }
      packed = Int8PackedB(k, n, values.data(), n);
      seen = version;
      packed_once = true;
    }
    return packed;
  }

  Int8PackedB packed;
  Tensor::Version seen;
  bool packed_once = false;
  std::vector<float> row_scales;
};

// Keras's arithmetic, in its order: scale = 127 / (max |x| + 1e-7) per row, values =
// clip(round_half_even(x · scale), -127, 127) (quantize_row.h, as the int8 GEMM packs the
// rows), the product in int32, then
// float(sum) / (kernel_scale · scale), plus the bias, then relu, as dense's. A row with NaN
// or an infinity has NaN outputs, as in Keras.
void dense_int8_kernel(KernelContext& ctx) {
  const Tensor& x = ctx.input(0);
  const Tensor& kernel = ctx.input(1);
  const float* kernel_scale = ctx.input(2).data<float>();
  const float* bias = ctx.inputs.size() == 4 ? ctx.input(3).data<float>() : nullptr;
  const bool relu = ops::fuses_relu(ctx.node);
  auto [rows, in] = ops::as_matrix(x.shape());
  const std::int64_t units = kernel.shape()[1];
  float* y = ctx.output(0).data<float>();
  if (rows == 0 || units == 0) return;
  if (!ctx.cache || !dynamic_cast<DenseInt8State*>(ctx.cache.get())) ctx.cache = std::make_unique<DenseInt8State>();
  auto& state = static_cast<DenseInt8State&>(*ctx.cache);
  const Int8PackedB& packed = state.packed_for(kernel, in, units);
  state.row_scales.resize(static_cast<std::size_t>(rows));
  // The rescale, bias and relu happen in the int8 kernel's store (int8_gemm.h).
  gemm_s8_quantizing_rows(rows, x.data<float>(), in, packed, state.row_scales.data(),
                          Int8Rescale{.column_scales = kernel_scale, .bias = bias, .relu = relu}, y, units);
}

}  // namespace

void register_matmul_kernels(OpRegistry& r) {
  r.add_kernel("dense", DeviceType::cpu, {.run = dense_kernel, .pair = dense_pair_kernel});
  r.add_kernel("matmul", DeviceType::cpu, {.run = matmul_kernel});
  r.add_kernel("dense_int8", DeviceType::cpu, {.run = dense_int8_kernel});
}

}  // namespace strata::cpu
