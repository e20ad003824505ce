// Host side of the all-reduce ops' CUDA kernels: packing and unpacking launches
// (core/cuda/collective.cu) around the communicator's sum, on the device or staged
// through host memory.
#include "core/cuda/collective_kernels.h"

#include <cuda_runtime_api.h>

#include <cstddef>

#include "core/collective.h"
#include "core/cuda/check.h"
#include "core/cuda/collective_launch.h"
#include "core/cuda/device_floats.h"
#include "core/cuda/kernel_registration.h"
#include "core/cuda/run_context.h"
#include "core/error.h"
#include "core/op_registry.h"
#include "core/ops/collective_ops.h"

namespace strata::cuda {

void all_reduce_start(KernelContext& ctx) {
  RunContext& run = run_context(ctx);
  CUstream_st* stream = run.stream().get();
  Collective& collective = ops::collective_of(ctx);
  const auto samples = static_cast<float>(ctx.input(0).shape()[0]);
  float* flat = floats(ctx.output(0));
  std::int64_t pos = 0;
  for (std::size_t i = 1; i < ctx.inputs.size(); ++i) {
    const Tensor& value = *ctx.inputs[i];
    launch_pack_scaled(floats(value), flat + pos, value.size(), samples, stream);
    pos += value.size();
  }
  launch_store(flat + pos, samples, stream);
  check_launch(ctx);
  const std::int64_t count = pos + 1;
  if (collective.reduces_cuda_memory(run.device())) {
    collective.start_cuda_all_reduce(flat, count, stream);
    return;
  }
  const std::size_t bytes = static_cast<std::size_t>(count) * sizeof(float);
  void* host = run.host_staging().buffer_for(ctx.node.id, bytes);
  check(cudaMemcpyAsync(host, flat, bytes, cudaMemcpyDeviceToHost, stream), ctx,
        "cudaMemcpyAsync (a gradient bucket to host memory)");
  run.synchronize();  // the transport reads the host copy at once
  collective.start_all_reduce(static_cast<float*>(host), count);
}

void all_reduce_wait(KernelContext& ctx) {
  RunContext& run = run_context(ctx);
  CUstream_st* stream = run.stream().get();
  Collective& collective = ops::collective_of(ctx);
  // The sum lands in place, in the start's output, which this node reads.
  float* flat = const_cast<float*>(floats(ctx.input(0)));
  const std::int64_t total = ctx.input(0).size();
  if (collective.reduces_cuda_memory(run.device())) {
    collective.wait_cuda_all_reduce(flat, stream);
  } else {
    // The start that made this buffer staged it under its own node.
    void* host = run.host_staging().find(ctx.node.inputs.at(0).node);
    if (!host) {
      throw Error("CUDA kernel of op '" + ctx.node.op + "' (node '" + ctx.node.name +
                  "'): waits for an all-reduce that this execution state never started");
    }
    collective.wait_all_reduce(static_cast<float*>(host));
    check(cudaMemcpyAsync(flat, host, static_cast<std::size_t>(total) * sizeof(float), cudaMemcpyHostToDevice, stream),
          ctx, "cudaMemcpyAsync (a summed gradient bucket to the device)");
  }
  std::int64_t pos = 0;
  for (Tensor* out : ctx.outputs) {
    launch_unpack_scaled(flat + pos, floats(*out), out->size(), flat + total - 1, stream);
    pos += out->size();
  }
  check_launch(ctx);
}

// The collectives call the communicator from the host.
void register_collective_kernels(OpRegistry& r) {
  const auto host_call = [](const Node&) -> std::string { return "calls the communicator from the host"; };
  add_host_reading_kernel(r, "all_reduce_start", all_reduce_start, host_call);
  add_host_reading_kernel(r, "all_reduce_wait", all_reduce_wait, host_call);
}

}  // namespace strata::cuda
