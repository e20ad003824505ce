// Gradient all-reduce as graph nodes, for data-parallel training (distribution/).
//
// all_reduce_start(batch, values) packs `values` (float tensors of known shapes: one
// bucket of gradients) into one flat buffer, each scaled by this process's sample count
// (dim 0 of `batch`, any fed input of the step), appends the count, and hands the buffer
// to the run's Collective to sum over every process; it returns without waiting.
// all_reduce_wait(started, like) waits for that sum and splits it back into tensors
// shaped like `like`, each divided by the summed count. So every process ends with
//   sum_p n_p * g_p / sum_p n_p,
// the gradient of the mean loss over the global batch, however unevenly it was split
// (a process with no samples contributes zeros, never 0 * NaN).
//
// The Program runs a start as soon as its values exist (Schedule::early) and a wait just
// before the first node that reads its results (Schedule::late): buckets travel while
// the backward pass computes the next ones. Neither is differentiable. Their CPU kernels
// are in core/cpu/kernels/collective.cc; both have a CUDA kernel too
// (core/cuda/collective_kernels.h), with the same arithmetic.
#pragma once

#include <vector>

#include "core/graph.h"

namespace strata {
class Collective;
struct KernelContext;
}  // namespace strata

namespace strata::ops {

// For the kernels of both ops: the run's communicator (RunOptions::collective). Throws
// strata::Error naming the node when the run has none.
Collective& collective_of(const KernelContext& ctx);

Output all_reduce_start(Output batch, const std::vector<Output>& values);
std::vector<Output> all_reduce_wait(Output started, const std::vector<Output>& like);

}  // namespace strata::ops
