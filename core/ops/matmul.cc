// matmul: the CPU backend's GEMM (core/cpu/gemm.h) on row-major matrices; dense: the
// same product with the bias and a relu applied in one pass over the output, and two of
// them in a row at batch 1 as one kernel on the CPU (core/cpu/dense_pair.h). On CUDA
// devices both run through cuBLAS (core/cuda/matmul_kernels.h).
#include <algorithm>
#include <limits>

#include "core/cpu/aligned_buffer.h"
#include "core/cpu/dense_pair.h"
#include "core/cpu/gemm.h"
#include "core/cpu/gemv.h"
#include "core/cpu/parallel.h"
#include "core/cuda/matmul_kernels.h"
#include "core/op_registry.h"
#include "core/ops.h"
#include "core/ops/cuda_kernel.h"
#include "core/ops/fused_relu.h"
#include "core/ops/shape_util.h"

namespace strata::ops {

namespace {

// (rows, cols) of a tensor read as a matrix: product of leading dims, last dim.
std::pair<std::int64_t, std::int64_t> as_matrix(const Shape& s) {
  if (s.rank() < 1) return {1, 1};
  return {s.product(0, s.rank() - 1), s.dims()[s.rank() - 1]};
}

std::string describe(const Shape& a, const Shape& b, bool ta, bool tb) {
  return "matmul: shapes " + a.to_string() + (ta ? "ᵀ" : "") + " and " + b.to_string() + (tb ? "ᵀ" : "") +
         " cannot be multiplied";
}

std::vector<TensorSpec> infer_matmul(const InferContext& ctx) {
  expect_inputs(ctx, 2);
  const Shape& a = ctx.inputs[0].shape;
  const Shape& b = ctx.inputs[1].shape;
  bool ta = ctx.attrs.get<bool>("transpose_a"), tb = ctx.attrs.get<bool>("transpose_b");
  if (ctx.inputs[0].dtype != DType::float32 || ctx.inputs[1].dtype != DType::float32) {
    throw ValueError("matmul: expects float32 inputs");
  }
  if (a.rank() < 2 || b.rank() < 2) throw ShapeError(describe(a, b, ta, tb) + " (both need rank >= 2)");
  auto [ar, ac] = as_matrix(a);
  auto [br, bc] = as_matrix(b);
  std::int64_t inner_a = ta ? ar : ac, inner_b = tb ? bc : br;
  if (inner_a >= 0 && inner_b >= 0 && inner_a != inner_b) throw ShapeError(describe(a, b, ta, tb));
  std::int64_t n = tb ? br : bc;
  if (ta) return {{Shape{ac, n}, DType::float32}};
  return {{a.with_dim(a.rank() - 1, n), DType::float32}};
}

void matmul_kernel(KernelContext& ctx) {
  const Tensor& a = ctx.input(0);
  const Tensor& b = ctx.input(1);
  Tensor& out = ctx.output(0);
  auto [ar, ac] = as_matrix(a.shape());
  auto [br, bc] = as_matrix(b.shape());
  bool ta = ctx.node.attrs.get<bool>("transpose_a"), tb = ctx.node.attrs.get<bool>("transpose_b");
  const std::int64_t m = ta ? ac : ar, k = ta ? ar : ac, n = tb ? br : bc;
  cpu::gemm(ta, tb, m, n, k, a.data<float>(), ac, b.data<float>(), bc, out.data<float>(), n);
}

// Reshapes a gradient computed in matrix form back to the input's shape when the input
// was N-D (its leading dims were flattened).
Output to_input_shape(Output grad, Output input) {
  return grad.shape() == input.shape() ? grad : reshape_like(grad, input);
}

std::vector<TensorSpec> infer_dense(const InferContext& ctx) {
  if (ctx.inputs.size() != 2 && ctx.inputs.size() != 3) {
    throw ValueError("dense: expects 2 or 3 inputs (x, kernel[, bias]), got " + std::to_string(ctx.inputs.size()));
  }
  for (const auto& in : ctx.inputs) {
    if (in.dtype != DType::float32) throw ValueError("dense: expects float32 inputs");
  }
  const Shape& x = ctx.inputs[0].shape;
  const Shape& k = ctx.inputs[1].shape;
  if (x.rank() < 2 || k.rank() != 2) {
    throw ShapeError("dense: input " + x.to_string() + " needs rank >= 2 and kernel " + k.to_string() + " rank 2");
  }
  const std::int64_t in = x.dims().back();
  if (in != kUnknownDim && k.dims()[0] != kUnknownDim && in != k.dims()[0]) {
    throw ShapeError("dense: input " + x.to_string() + " and kernel " + k.to_string() + " cannot be multiplied");
  }
  const std::int64_t units = k.dims()[1];
  if (ctx.inputs.size() == 3 && ctx.inputs[2].shape != Shape{units}) {
    throw ShapeError("dense: bias " + ctx.inputs[2].shape.to_string() + " does not match " + std::to_string(units) +
                     " units");
  }
  const std::string act = ctx.attrs.get_or<std::string>("activation", "");
  if (!act.empty() && act != "relu") throw ValueError("dense: fused activation must be '' or 'relu', got '" + act + "'");
  return {{x.with_dim(x.rank() - 1, units), DType::float32}};
}

void dense_kernel(KernelContext& ctx) {
  const Tensor& x = ctx.input(0);
  const Tensor& kernel = ctx.input(1);
  const float* bias = ctx.inputs.size() == 3 ? ctx.input(2).data<float>() : nullptr;
  const bool relu = fuses_relu(ctx.node);
  auto [rows, in] = as_matrix(x.shape());
  const std::int64_t units = kernel.shape()[1];
  float* y = ctx.output(0).data<float>();
  if (rows == 1 && units * in < cpu::kGemvParallelMacs && cpu::gemv_available()) {
    // A small batch-1 layer (the MLP's 10-class head): one thread, bias and relu on the
    // registers before the store.
    cpu::gemv_row(units, in, x.data<float>(), 1, kernel.data<float>(), units, y, {.bias = bias, .relu = relu});
    return;
  }
  cpu::gemm(false, false, rows, units, in, x.data<float>(), in, kernel.data<float>(), units, y, units);
  if (!bias && !relu) return;
  // One pass for bias and relu; the rows just written are still in cache at batch sizes
  // where it matters, and a batch-1 call runs two ops fewer.
  cpu::parallel_for(rows, [&](std::int64_t r0, std::int64_t r1) {
    for (std::int64_t r = r0; r < r1; ++r) {
      float* row = y + r * units;
      if (bias) {
        for (std::int64_t j = 0; j < units; ++j) row[j] += bias[j];
      }
      if (relu) {
        for (std::int64_t j = 0; j < units; ++j) row[j] = row[j] > 0.f ? row[j] : 0.f;
      }
    }
  }, cpu::threshold_for(units));
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
  if (as_matrix(x.shape()).first != 1) return false;
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
  one.relu = fuses_relu(first.node);
  two.relu = fuses_relu(second.node);
  if (!first.cache) first.cache = std::make_unique<PackedDensePair>();
  const float* packed = static_cast<PackedDensePair&>(*first.cache).for_run(first.input(1), one, split);
  cpu::dense_pair_run(split, one, packed, two, x.data<float>(), first.output(0).data<float>(),
                      second.output(0).data<float>());
  return true;
}

}  // namespace

void register_matmul_ops(OpRegistry& r) {
  r.add({.name = "dense", .infer = infer_dense, .cpu_kernel = dense_kernel,
         // y = act(x · k + b): dz = relu_grad(dy, y) (or dy), then matmul's adjoints and
         // the sum over every axis but the last for the bias.
         .gradient = [](const Node& n, const std::vector<Output>& g) {
           Output x = n.inputs[0], k = n.inputs[1];
           Output dz = g[0];
           if (fuses_relu(n)) dz = relu_grad(dz, Output{x.graph, n.id, 0});
           std::vector<Output> grads{matmul(dz, k, false, true), matmul(x, dz, true, false)};
           if (n.inputs.size() == 3) {
             std::vector<std::int64_t> leading(static_cast<std::size_t>(x.shape().rank() - 1));
             for (std::size_t i = 0; i < leading.size(); ++i) leading[i] = static_cast<std::int64_t>(i);
             grads.push_back(reduce_sum(dz, leading));
           }
           return grads;
         },
         .cuda_kernel = STRATA_CUDA_KERNEL(cuda::dense),
         .cpu_pair_kernel = dense_pair_kernel});
  r.add({.name = "matmul", .infer = infer_matmul, .cpu_kernel = matmul_kernel,
         .gradient = [](const Node& n, const std::vector<Output>& grads) {
           Output a = n.inputs[0], b = n.inputs[1], g = grads[0];
           bool ta = n.attrs.get<bool>("transpose_a"), tb = n.attrs.get<bool>("transpose_b");
           Output da, db;
           if (!ta && !tb) {
             da = matmul(g, b, false, true);
             db = matmul(a, g, true, false);
           } else if (!ta && tb) {
             da = matmul(g, b, false, false);
             db = matmul(g, a, true, false);
           } else if (ta && !tb) {
             da = matmul(b, g, false, true);
             db = matmul(a, g, false, false);
           } else {
             da = matmul(b, g, true, true);
             db = matmul(g, a, true, true);
           }
           return std::vector<Output>{to_input_shape(da, a), to_input_shape(db, b)};
         },
         .cuda_kernel = STRATA_CUDA_KERNEL(cuda::matmul)});
}

Output dense(Output x, Output kernel, Output bias, const std::string& activation) {
  Attrs attrs;
  if (!activation.empty()) attrs.set("activation", activation);
  std::vector<Output> inputs{x, kernel};
  if (bias.valid()) inputs.push_back(bias);
  return x.graph->add("dense", inputs, std::move(attrs));
}

Output matmul(Output a, Output b, bool transpose_a, bool transpose_b) {
  return a.graph->add("matmul", {a, b}, Attrs{{"transpose_a", transpose_a}, {"transpose_b", transpose_b}});
}

}  // namespace strata::ops
