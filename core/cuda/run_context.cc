#include "core/cuda/run_context.h"

#include <cuda_runtime_api.h>

#include <string>

#include "core/cuda/caching_allocator.h"
#include "core/cuda/check.h"
#include "core/cuda/device_scope.h"
#include "core/cuda/graph.h"
#include "core/error.h"
#include "core/op_registry.h"

#if defined(STRATA_WITH_CUDNN)
#include <cudnn.h>

#include "core/cuda/cudnn_check.h"
#include "core/cuda/cudnn_handle.h"
#endif

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
      host_staging_(stream_.device(), stream_.get()),
      workspace_(stream_.device(), stream_.get()) {}

RunContext::~RunContext() {
  if (!run_scalars_) return;
  DeviceScope scope(device(), std::nothrow);
  cudaStreamSynchronize(stream_.get());  // a kernel may still read the block
  caching_allocator(device()).deallocate(run_scalars_, sizeof(RunScalars));
}

const RunScalars* RunContext::run_scalars(const KernelContext& ctx) {
  const RunScalars wanted{ctx.step, ctx.sample_offset};
  if (run_scalars_ && wanted.step == written_scalars_.step && wanted.sample_offset == written_scalars_.sample_offset) {
    return run_scalars_;
  }
  if (capturing()) {
    // A captured launch would read whatever the block holds at replay: the run writes
    // the values before capturing, so a difference here is a run this code does not
    // expect. Abandon the capture rather than bake in a stale step.
    throw Error("CUDA kernel of op '" + ctx.node.op + "' (node '" + ctx.node.name +
                "') reads the run's step on the device, which was not written before the CUDA graph capture");
  }
  if (!run_scalars_) {
    // Zeroed on the legacy stream, which the context's blocking stream is ordered with.
    run_scalars_ = static_cast<RunScalars*>(caching_allocator(device()).allocate(sizeof(RunScalars)));
  }
  written_scalars_ = wanted;
  // From pageable memory: the call returns once the bytes are staged, so the member may
  // change for the next run while the copy is still queued.
  check(cudaMemcpyAsync(run_scalars_, &written_scalars_, sizeof(RunScalars), cudaMemcpyHostToDevice, stream_.get()),
        ctx, "cudaMemcpyAsync (the run's step)");
  return run_scalars_;
}

void RunContext::update_run_scalars(const RunScalars& values) {
  if (!run_scalars_ || (values.step == written_scalars_.step && values.sample_offset == written_scalars_.sample_offset)) {
    return;
  }
  DeviceScope scope(device());
  written_scalars_ = values;
  check(cudaMemcpyAsync(run_scalars_, &written_scalars_, sizeof(RunScalars), cudaMemcpyHostToDevice, stream_.get()),
        "cudaMemcpyAsync (the run's step)");
}

void RunContext::bind_handles(const Stream& stream) {
  DeviceScope scope(device());
  blas_.bind(stream.get());
#if defined(STRATA_WITH_CUDNN)
  if (cudnn_) check(cudnnSetStream(cudnn_->get(), stream.get()), "cudnnSetStream");
#endif
}

CUstream_st* RunContext::begin_capture_redirect() {
  if (!capture_stream_) capture_stream_ = std::make_unique<Stream>(device(), Stream::Kind::non_blocking);
  had_cudnn_at_capture_ = cudnn_ != nullptr;
  try {
    bind_handles(*capture_stream_);
  } catch (...) {
    rebind_own_stream();  // none half-bound to the capture stream
    throw;
  }
  active_stream_ = capture_stream_.get();
  workspace_.set_growth_refused(true);
  return capture_stream_->get();
}

bool RunContext::end_capture_redirect() {
  workspace_.set_growth_refused(false);
  active_stream_ = &stream_;
  rebind_own_stream();
  if (handles_astray_) throw Error("cuBLAS or cuDNN could not be bound back to its run context's stream");
  return had_cudnn_at_capture_ || !cudnn_;
}

void RunContext::rebind_own_stream() noexcept {
  try {
    bind_handles(stream_);
    handles_astray_ = false;
  } catch (...) {
    // Left on the capture stream, cuBLAS and cuDNN would run unordered with the
    // context's own kernels: run_context() refuses this context from now on.
    handles_astray_ = true;
  }
}

void RunContext::copy_in(void* dst, const void* src, std::size_t bytes, bool src_on_device) {
  copy_async(dst, src, bytes, true, src_on_device, stream().get());
}

std::unique_ptr<DeviceGraph> RunContext::record(const std::function<void()>& enqueue) {
  const CapturedGraph graph = [&] {
    StreamCapture capture(*this);  // ends the capture, dropping what it holds, if enqueue throws
    enqueue();
    return capture.end();
  }();
  return std::make_unique<RecordedRun>(*this, graph);
}

RunContext& run_context(const KernelContext& ctx) {
  auto* run = dynamic_cast<RunContext*>(ctx.device_run);
  if (!run) {
    throw Error("CUDA kernel of op '" + ctx.node.op + "' (node '" + ctx.node.name +
                "') was run without a CUDA run context (KernelContext::device_run is " +
                (ctx.device_run ? "another device's)" : "null)"));
  }
  if (run->handles_astray()) {
    throw Error("CUDA kernel of op '" + ctx.node.op + "' (node '" + ctx.node.name +
                "'): its run context's cuBLAS or cuDNN handle could not be bound back to the context's stream "
                "after a CUDA graph capture, so its products would run unordered with its kernels");
  }
  const Device device{DeviceType::cuda, run->device(), ""};
  for (std::size_t i = 0; i < ctx.inputs.size(); ++i) expect_on(*ctx.inputs[i], device, ctx, "input", i);
  for (std::size_t i = 0; i < ctx.outputs.size(); ++i) expect_on(*ctx.outputs[i], device, ctx, "output", i);
  int current = -1;
  check(cudaGetDevice(&current), ctx, "cudaGetDevice");
  if (current != device.index) check(cudaSetDevice(device.index), ctx, "cudaSetDevice");
  return *run;
}

}  // namespace strata::cuda
