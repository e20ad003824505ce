#include "core/cuda/graph.h"

#include <cuda_runtime_api.h>

#include "core/cuda/check.h"
#include "core/cuda/device_scope.h"
#include "core/cuda/run_context.h"
#include "core/error.h"

namespace strata::cuda {

CapturedGraph::~CapturedGraph() {
  if (graph_) cudaGraphDestroy(graph_);
}

GraphExec::GraphExec(int device, const CapturedGraph& graph) : device_(device) {
  DeviceScope scope(device);
  check(cudaGraphInstantiate(&exec_, graph.get(), 0), "cudaGraphInstantiate");
}

GraphExec::~GraphExec() {
  if (!exec_) return;
  DeviceScope scope(device_, std::nothrow);
  cudaGraphExecDestroy(exec_);
}

void GraphExec::launch(CUstream_st* stream) const {
  DeviceScope scope(device_);
  check(cudaGraphLaunch(exec_, stream), "cudaGraphLaunch");
}

StreamCapture::StreamCapture(RunContext& context) : context_(context), stream_(context.begin_capture_redirect()) {
  DeviceScope scope(context.device());
  const cudaError_t status = cudaStreamBeginCapture(stream_, cudaStreamCaptureModeThreadLocal);
  if (status != cudaSuccess) {
    open_ = false;
    context_.end_capture_redirect();
    check(status, "cudaStreamBeginCapture");
  }
}

StreamCapture::~StreamCapture() {
  if (!open_) return;
  DeviceScope scope(context_.device(), std::nothrow);
  CUgraph_st* graph = nullptr;
  cudaStreamEndCapture(stream_, &graph);  // fails when the capture was invalidated: nothing to keep then
  if (graph) cudaGraphDestroy(graph);
  cudaGetLastError();  // a capture error is not sticky; leave none for the next check to blame on a kernel
  try {
    context_.end_capture_redirect();
  } catch (...) {
    // Rebinding failed: the context notes it, and run_context() refuses it from now on.
  }
}

CapturedGraph StreamCapture::end() {
  open_ = false;
  DeviceScope scope(context_.device());
  CUgraph_st* graph = nullptr;
  const cudaError_t status = cudaStreamEndCapture(stream_, &graph);
  CapturedGraph captured(graph);
  const bool all_captured = context_.end_capture_redirect();
  if (status != cudaSuccess) {
    cudaGetLastError();
    check(status, "cudaStreamEndCapture");
  }
  if (!all_captured) throw Error("the cuDNN handle was made during a CUDA graph capture, bound to another stream");
  return captured;
}

RecordedRun::RecordedRun(const RunContext& context, const CapturedGraph& graph)
    : context_(context), exec_(context.device(), graph) {}

void RecordedRun::launch() { exec_.launch(context_.stream().get()); }

}  // namespace strata::cuda
