// What CUDA kernels run with (built only with STRATA_WITH_CUDA): one device, a stream on
// it, a cuBLAS handle bound to that stream, a cuDNN handle bound to it too (made on first
// use, in a build with cuDNN), a scratch workspace that only grows, and the record through
// which kernels report bad input (core/cuda/fault_report.h). A CUDA kernel finds it through
// KernelContext::cuda and only enqueues work on its stream; the work runs later, in
// order. Each execution state of a Program on a GPU owns one (core/execution_state.h), so
// several runs of one plan proceed on their own streams (docs/gpu.md).
#pragma once

#include <memory>

#include "core/cuda/cublas_handle.h"
#include "core/cuda/fault_report.h"
#include "core/cuda/stream.h"
#include "core/cuda/workspace.h"

namespace strata {
struct KernelContext;
}

namespace strata::cuda {

class CudnnHandle;    // core/cuda/cudnn_handle.h
class ConvPlanCache;  // core/cuda/cudnn_conv_plan_cache.h

class RunContext {
 public:
  // Throws ValueError when this process has no CUDA device `device`.
  explicit RunContext(int device);
  RunContext(const RunContext&) = delete;
  RunContext& operator=(const RunContext&) = delete;

  int device() const { return stream_.device(); }
  const Stream& stream() const { return stream_; }
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
  // Scratch device memory for the kernels on this stream (core/cuda/workspace.h).
  Workspace& workspace() { return workspace_; }
  // Where kernels report bad input that their CPU kernels would throw on.
  FaultReport& faults() { return faults_; }
  // Waits for every kernel enqueued so far; throws strata::Error when one failed, and
  // the CPU kernel's ValueError when one reported bad input (FaultReport).
  void synchronize() {
    faults_.enqueue_read_back();
    stream_.synchronize();
    faults_.throw_if_reported();
  }

 private:
  Stream stream_;       // declared first: destroyed after the handles bound to it
  CublasHandle blas_;
  // A shared_ptr, whose deleter is bound where the handle is made: this header and its
  // destructor compile in a build without cuDNN, where the handle's code does not exist.
  std::shared_ptr<CudnnHandle> cudnn_;
  std::shared_ptr<ConvPlanCache> conv_plans_;  // a shared_ptr for the same reason
  FaultReport faults_;
  Workspace workspace_;  // destroyed first: it waits for the stream
};

// For CUDA kernels: the run context of `ctx`, with its device made current on the calling
// thread. Throws strata::Error naming the op when `ctx` has no run context or one of its
// inputs or outputs is not on that device (a kernel would read host memory otherwise).
// Not const: a kernel may create the context's cuDNN handle or grow its workspace (one
// execution state, and so one thread, uses a run context at a time).
RunContext& run_context(const KernelContext& ctx);

}  // namespace strata::cuda
