// The CUDA kernels of the gradient all-reduce (core/ops/collective_ops.h), registered by
// register_collective_kernels (below), with the CPU kernels' arithmetic
// (core/cpu/kernels/collective.cc): the start packs the bucket, each value times this
// process's sample count, and the count into the flat buffer; the wait divides the sum by
// the summed count as it unpacks. Between the two, the run's communicator sums the
// buffer: in device memory when it can (NCCL, Collective::reduces_cuda_memory), else
// through a pinned host copy (the run context's HostStaging): the start copies the bucket
// out and waits for the stream before the transport sees it, the wait copies the sum
// back. Defined only in a build with STRATA_WITH_CUDA; this header is plain C++ and
// compiles in every build.
#pragma once

namespace strata {
struct KernelContext;
class OpRegistry;
}

namespace strata::cuda {

// all_reduce_start(batch, values...) -> flat buffer of every value and the count.
void all_reduce_start(KernelContext& ctx);
// all_reduce_wait(started) -> the values, summed over every process and divided by the
// summed sample count.
void all_reduce_wait(KernelContext& ctx);

// Binds the ops these kernels serve in the op table (core/cuda/register_kernels.cc calls it).
void register_collective_kernels(OpRegistry& registry);

}  // namespace strata::cuda
