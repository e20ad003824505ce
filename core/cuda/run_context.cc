#include "core/cuda/run_context.h"

#include <cuda_runtime_api.h>

#include <string>

#include "core/cuda/check.h"
#include "core/op_registry.h"

namespace strata::cuda {

namespace {

// Validates the device before anything is created on it.
int available(int device) {
  require_available(Device{DeviceType::cuda, device, ""});
  return device;
}

void expect_on(const Tensor& t, const Device& device, const KernelContext& ctx, const char* what, std::size_t i) {
  if (t.is_on(device)) return;
  throw Error("CUDA kernel of op '" + ctx.node.op + "' (node '" + ctx.node.name + "') runs on " + to_string(device) +
              ", but its " + what + " " + std::to_string(i) + " is on " + to_string(t.device()) +
              " (Tensor::to moves it)");
}

}  // namespace

RunContext::RunContext(int device)
    : stream_(available(device)),
      blas_(stream_),
      faults_(stream_.device(), stream_.get()),
      workspace_(stream_.device(), stream_.get()) {}

RunContext& run_context(const KernelContext& ctx) {
  if (!ctx.cuda) {
    throw Error("CUDA kernel of op '" + ctx.node.op + "' (node '" + ctx.node.name +
                "') was run without a CUDA run context (KernelContext::cuda is null)");
  }
  const Device device{DeviceType::cuda, ctx.cuda->device(), ""};
  for (std::size_t i = 0; i < ctx.inputs.size(); ++i) expect_on(*ctx.inputs[i], device, ctx, "input", i);
  for (std::size_t i = 0; i < ctx.outputs.size(); ++i) expect_on(*ctx.outputs[i], device, ctx, "output", i);
  int current = -1;
  check(cudaGetDevice(&current), ctx, "cudaGetDevice");
  if (current != device.index) check(cudaSetDevice(device.index), ctx, "cudaSetDevice");
  return *ctx.cuda;
}

}  // namespace strata::cuda
