// Host side of the embedding CUDA kernels: the table's shape, the ids' type, a fault site
// naming the node (with the CPU kernel's message), then the launches
// (core/cuda/embedding.cu).
#include "core/cuda/embedding_kernels.h"

#include <cuda_runtime_api.h>

#include "core/cuda/check.h"
#include "core/cuda/device_floats.h"
#include "core/cuda/embedding_launch.h"
#include "core/cuda/kernel_registration.h"
#include "core/cuda/run_context.h"
#include "core/op_registry.h"
#include "core/ops/sequence_ops.h"

namespace strata::cuda {

namespace {

// The CPU kernel's message for what the kernel found: (id, index, vocab).
std::string token_id_out_of_range(const Node& node, const FaultRecord& found) {
  return ops::token_id_out_of_range(node, found.values[0], found.values[1], found.values[2]);
}

EmbeddingShape shape_of(const Tensor& ids, const Shape& table) {
  return {.ids = ids.size(), .vocab = table[0], .dim = table[1]};
}

}  // namespace

void embedding_lookup(KernelContext& ctx) {
  RunContext& run = run_context(ctx);
  const Tensor& table = ctx.input(0);
  const Tensor& ids = ctx.input(1);
  const ElementType id_type = element_type(ids.dtype(), ctx.node.name);
  const EmbeddingShape s = shape_of(ids, table.shape());
  if (s.ids * s.dim == 0) return;
  launch_embedding_lookup(floats(table), ids.device_data(), id_type, floats(ctx.output(0)), s,
                          run.faults().arm(ctx.node, token_id_out_of_range), run.stream().get());
  check_launch(ctx);
}

void embedding_lookup_grad(KernelContext& ctx) {
  RunContext& run = run_context(ctx);
  const Tensor& g = ctx.input(0);
  const Tensor& ids = ctx.input(1);
  Tensor& out = ctx.output(0);
  const ElementType id_type = element_type(ids.dtype(), ctx.node.name);
  const EmbeddingShape s = shape_of(ids, out.shape());
  if (g.size() != s.ids * s.dim) {
    throw ShapeError("embedding_lookup_grad '" + ctx.node.name + "': gradient " + g.shape().to_string() +
                     " does not match " + std::to_string(s.ids) + " ids of " + std::to_string(s.dim) + " columns");
  }
  const std::size_t scratch_bytes = embedding_grad_scratch_bytes(s);
  void* scratch = scratch_bytes > 0 ? run.workspace().get(scratch_bytes) : nullptr;
  const FaultSite fault = s.ids > 0 ? run.faults().arm(ctx.node, token_id_out_of_range) : FaultSite{};
  const int status = launch_embedding_grad(floats(g), ids.device_data(), id_type, floats(out), s, scratch,
                                           scratch_bytes, fault, run.stream().get());
  check(static_cast<cudaError_t>(status), ctx, "cub::DeviceRadixSort::SortPairs");
  check_launch(ctx);
}

void register_embedding_kernels(OpRegistry& r) {
  add_kernel(r, "embedding_lookup", embedding_lookup);
  add_kernel(r, "embedding_lookup_grad", embedding_lookup_grad);
}

}  // namespace strata::cuda
