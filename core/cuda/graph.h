// CUDA graphs held by RAII objects (built only with STRATA_WITH_CUDA): a captured graph
// (cudaGraph_t), its executable instance (cudaGraphExec_t), the capture of a run
// context's work into one, and the replayable run an execution state holds (a
// DeviceGraph, made by RunContext::record). An execution state on a GPU captures a run
// once its shapes have settled and replays it from then on (core/execution_state.cc,
// docs/gpu.md, "CUDA graphs").
#pragma once

#include "core/device_run.h"

struct CUgraph_st;      // cudaGraph_t is CUgraph_st* (driver_types.h)
struct CUgraphExec_st;  // cudaGraphExec_t is CUgraphExec_st*
struct CUstream_st;

namespace strata::cuda {

class RunContext;

class CapturedGraph {
 public:
  explicit CapturedGraph(CUgraph_st* graph) : graph_(graph) {}
  ~CapturedGraph();
  CapturedGraph(CapturedGraph&& other) noexcept : graph_(other.graph_) { other.graph_ = nullptr; }
  CapturedGraph& operator=(CapturedGraph&&) = delete;
  CapturedGraph(const CapturedGraph&) = delete;

  CUgraph_st* get() const { return graph_; }

 private:
  CUgraph_st* graph_;
};

class GraphExec {
 public:
  // Instantiates `graph` on `device`; throws strata::Error when CUDA cannot.
  GraphExec(int device, const CapturedGraph& graph);
  ~GraphExec();
  GraphExec(const GraphExec&) = delete;
  GraphExec& operator=(const GraphExec&) = delete;

  // Enqueues one replay of the graph on `stream`; throws strata::Error when CUDA fails.
  void launch(CUstream_st* stream) const;

 private:
  int device_;
  CUgraphExec_st* exec_ = nullptr;
};

// Captures what `context`'s kernels enqueue between construction and end() into a graph,
// in cudaStreamCaptureModeThreadLocal (other threads' states run, and capture, on their
// own streams meanwhile; only this thread's calls that a capture forbids fail). The work
// goes to the context's non-blocking capture stream (RunContext::begin_capture_redirect)
// and runs only when the graph is launched. Destroyed without end() (a kernel threw), it
// ends the capture, drops what it recorded and clears CUDA's error, so the run can go
// eager at once.
class StreamCapture {
 public:
  explicit StreamCapture(RunContext& context);  // throws strata::Error when capture cannot begin
  ~StreamCapture();
  StreamCapture(const StreamCapture&) = delete;
  StreamCapture& operator=(const StreamCapture&) = delete;

  // Ends the capture. Throws strata::Error when CUDA invalidated it (a forbidden call, an
  // implicit dependency) or some work missed the capture stream.
  CapturedGraph end();

 private:
  RunContext& context_;
  CUstream_st* stream_;
  bool open_ = true;
};

// A recorded run of `context`, replayed on the context's stream.
class RecordedRun final : public DeviceGraph {
 public:
  RecordedRun(const RunContext& context, const CapturedGraph& graph);
  void launch() override;

 private:
  const RunContext& context_;
  GraphExec exec_;
};

}  // namespace strata::cuda
