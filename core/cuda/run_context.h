// What CUDA kernels run with (built only with STRATA_WITH_CUDA): one device, a stream on
// it, and a cuBLAS handle bound to that stream. A CUDA kernel finds it through
// KernelContext::cuda and only enqueues work on its stream; the work runs later, in
// order. Each execution state of a Program on a GPU owns one (core/execution_state.h), so
// several runs of one plan proceed on their own streams (docs/gpu.md).
#pragma once

#include "core/cuda/cublas_handle.h"
#include "core/cuda/stream.h"

namespace strata {
struct KernelContext;
}

namespace strata::cuda {

class RunContext {
 public:
  // Throws ValueError when this process has no CUDA device `device`.
  explicit RunContext(int device);
  RunContext(const RunContext&) = delete;
  RunContext& operator=(const RunContext&) = delete;

  int device() const { return stream_.device(); }
  const Stream& stream() const { return stream_; }
  const CublasHandle& blas() const { return blas_; }
  // Waits for every kernel enqueued so far; throws strata::Error when one failed.
  void synchronize() const { stream_.synchronize(); }

 private:
  Stream stream_;       // declared first: destroyed after the handle bound to it
  CublasHandle blas_;
};

// For CUDA kernels: the run context of `ctx`, with its device made current on the calling
// thread. Throws strata::Error naming the op when `ctx` has no run context or one of its
// inputs or outputs is not on that device (a kernel would read host memory otherwise).
const RunContext& run_context(const KernelContext& ctx);

}  // namespace strata::cuda
