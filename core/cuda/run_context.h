// What CUDA kernels run with (built only with STRATA_WITH_CUDA): one device, a stream on
// it, a cuBLAS handle bound to that stream, a cuDNN handle bound to it too (made on first
// use, in a build with cuDNN), a scratch workspace that only grows, and the record through
// which kernels report bad input (core/cuda/fault_report.h). A CUDA kernel finds it through
// KernelContext::device_run (run_context(ctx)) and only enqueues work on its stream; the
// work runs later, in order. Each execution state of a Program on a GPU owns one, made by
// the CUDA backend as the state's DeviceRun (core/device_run.h), so several runs of one
// plan proceed on their own streams (docs/gpu.md).
#pragma once

#include <memory>

#include "core/cuda/cublas_handle.h"
#include "core/cuda/fault_report.h"
#include "core/cuda/host_staging.h"
#include "core/cuda/philox.h"
#include "core/cuda/stream.h"
#include "core/cuda/workspace.h"
#include "core/device_run.h"

namespace strata {
struct KernelContext;
}

namespace strata::cuda {

class CudnnHandle;    // core/cuda/cudnn_handle.h
class ConvPlanCache;  // core/cuda/cudnn_conv_plan_cache.h
class DenseEpilogue;  // core/cuda/dense_epilogue.h
class CudnnRnnCache;  // core/cuda/cudnn_rnn.cc

class RunContext final : public DeviceRun {
 public:
  // Throws ValueError when this process has no CUDA device `device`.
  explicit RunContext(int device);
  ~RunContext() override;  // waits for the stream, then frees the run scalars' block
  RunContext(const RunContext&) = delete;
  RunContext& operator=(const RunContext&) = delete;

  int device() const { return stream_.device(); }
  // The stream kernels enqueue on: the context's own, or its capture stream while a CUDA
  // graph is captured (core/cuda/graph.h).
  const Stream& stream() const { return *active_stream_; }
  const CublasHandle& blas() const { return blas_; }
  // The cuDNN handle bound to the stream, created by the first call: cudnnCreate takes
  // time and device memory (and loads cuDNN's kernels), which a Program without
  // convolutions need not pay, nor each execution state before its first convolution. Defined only in a build with cuDNN (core/cuda/cudnn_handle.cc),
  // where only the cuDNN kernels call it; throws strata::Error when cuDNN fails.
  CudnnHandle& cudnn();
  // The cuDNN convolution plans of this context's kernels (descriptors and algorithm per
  // geometry, core/cuda/cudnn_conv_plan_cache.h), made by the first call; defined, like
  // cudnn(), only in a build with cuDNN.
  ConvPlanCache& conv_plans();
  // The recurrent ops' cuDNN RNN plans and the reserve spaces their forward passes keep
  // for their gradients (core/cuda/cudnn_rnn.h), made by the first call; defined, like
  // cudnn(), only in a build with cuDNN.
  CudnnRnnCache& cudnn_rnns();
  // Dense's cuBLASLt handle and plans, for products with the bias and relu in their
  // epilogue (core/cuda/dense_epilogue.h), made by the first call.
  DenseEpilogue& dense_epilogue();
  // Scratch device memory for the kernels on this stream (core/cuda/workspace.h).
  Workspace& workspace() { return workspace_; }
  // Where kernels report bad input that their CPU kernels would throw on.
  FaultReport& faults() { return faults_; }
  // Pinned host buffers standing for device buffers that a host-only transport reads
  // and writes (the all-reduce staged through host memory, core/cuda/collective_kernels.h).
  HostStaging& host_staging() { return host_staging_; }
  // The run's step and sample offset on the device, for kernels that read them there
  // (dropout): as `ctx` has them. Written on the stream when they differ from what was
  // written last (the block is made by the first call); throws strata::Error when CUDA
  // fails, or when they differ while a graph is captured (the capture is abandoned).
  const RunScalars* run_scalars(const KernelContext& ctx);
  // Before a graph replays: the replayed kernels read this run's values. Writes only
  // when a kernel ever asked for the block and the values changed.
  void update_run_scalars(const RunScalars& values);

  // DeviceRun, for the execution state that owns the context: feeds copied in on the
  // stream, the run scalars before a replay, the launches that check their input, and a
  // run recorded into a CUDA graph (StreamCapture) that replays on the stream.
  void copy_in(void* dst, const void* src, std::size_t bytes, bool src_on_device) override;
  void set_run_scalars(std::int64_t step, std::int64_t sample_offset) override {
    update_run_scalars({step, sample_offset});
  }
  std::int64_t checking_launches() const override { return faults_.armed_launches(); }
  std::unique_ptr<DeviceGraph> record(const std::function<void()>& enqueue) override;

  // CUDA graph capture (core/cuda/graph.h, StreamCapture): kernels, cuBLAS and cuDNN go
  // to a non-blocking capture stream of the device (made at the first capture), and the
  // workspace refuses to grow; end_capture_redirect() undoes it and says whether the
  // captured work was all on the capture stream (false when the cuDNN handle was made
  // during the capture, bound to the context's own stream).
  CUstream_st* begin_capture_redirect();
  bool end_capture_redirect();  // throws strata::Error when rebinding the handles fails
  bool capturing() const { return active_stream_ != &stream_; }
  // Whether cuBLAS or cuDNN could not be bound back to the context's own stream after a
  // capture: then run_context() refuses the context (its products would run unordered).
  bool handles_astray() const { return handles_astray_; }
  // Waits for every kernel enqueued so far; throws strata::Error when one failed, and
  // the CPU kernel's ValueError when one reported bad input (FaultReport).
  void synchronize() override {
    faults_.enqueue_read_back();
    stream_.synchronize();
    faults_.throw_if_reported();
  }

 private:
  void bind_handles(const Stream& stream);  // cuBLAS and (when made) cuDNN
  void rebind_own_stream() noexcept;         // bind_handles(stream_), noting a failure

  Stream stream_;       // declared first: destroyed after the handles bound to it
  CublasHandle blas_;
  // A shared_ptr, whose deleter is bound where the handle is made: this header and its
  // destructor compile in a build without cuDNN, where the handle's code does not exist.
  std::shared_ptr<CudnnHandle> cudnn_;
  std::shared_ptr<ConvPlanCache> conv_plans_;  // a shared_ptr for the same reason
  std::shared_ptr<CudnnRnnCache> cudnn_rnns_;  // and here
  std::shared_ptr<DenseEpilogue> dense_epilogue_;  // and here to keep cublasLt.h out of this header
  FaultReport faults_;
  HostStaging host_staging_;
  std::unique_ptr<Stream> capture_stream_;  // non-blocking; made at the first capture
  const Stream* active_stream_ = &stream_;
  RunScalars* run_scalars_ = nullptr;  // a caching allocator block, made at first use
  RunScalars written_scalars_;         // what the stream last wrote into it
  Workspace workspace_;  // destroyed first: it waits for the stream
  bool had_cudnn_at_capture_ = false;
  bool handles_astray_ = false;
};

// For CUDA kernels: the run context of `ctx` (its device_run), with its device made
// current on the calling thread. Throws strata::Error naming the op when `ctx` has no CUDA
// run context or one of its inputs or outputs is not on that device (a kernel would read
// host memory otherwise).
// Not const: a kernel may create the context's cuDNN handle or grow its workspace (one
// execution state, and so one thread, uses a run context at a time).
RunContext& run_context(const KernelContext& ctx);

}  // namespace strata::cuda
