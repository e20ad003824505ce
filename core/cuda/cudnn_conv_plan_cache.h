// A run context's cuDNN convolution plans (built only with STRATA_WITH_CUDNN; include
// from core/cuda/cudnn_*.cc and the tests only). A plan is what one pass of one
// convolution geometry needs from cuDNN before it can run — its tensor, filter and
// convolution descriptors, the ranked algorithms of cuDNN's heuristics with their
// workspace sizes, the scratch layout, and which algorithm ran — made by the first call
// with that geometry and reused by every later call, so that a step's host work is the
// key's lookup and the cuDNN calls that enqueue work. Plans are keyed by everything that
// determines them (core/cuda/conv_plan_key.h) and kept least-recently-used first in a
// cache of bounded size (core/cuda/lru_cache.h). One cache per RunContext, made by the
// first convolution that asks (RunContext::conv_plans): a run context serves one
// execution state, which runs one call at a time, so the cache needs no lock.
#pragma once

#include <cudnn.h>

#include <cstddef>

#include "core/cuda/conv_launch.h"
#include "core/cuda/conv_plan_key.h"
#include "core/cuda/cudnn_conv_algorithms.h"
#include "core/cuda/cudnn_descriptors.h"
#include "core/cuda/lru_cache.h"

namespace strata::cuda {

class RunContext;

// One pass (forward, input gradient or filter gradient) of one convolution geometry as
// cuDNN runs it. The descriptors are the convolution's whatever the pass: x the
// (explicitly padded) input, w the filter in cuDNN's NHWC filter layout, y the output.
struct ConvPlan {
  explicit ConvPlan(const KernelContext& ctx) : x(ctx), y(ctx), w(ctx), conv(ctx) {}

  TensorDescriptor x, y;
  FilterDescriptor w;
  ConvolutionDescriptor conv;
  // cuDNN's heuristic algorithms for the pass, ranked (core/cuda/cudnn_conv_algorithms.h);
  // never empty: a geometry with none is refused before a plan is kept.
  Candidates candidates;
  // The candidate that ran last: those before it were refused as unsupported.
  int runnable = 0;
  // Keras's asymmetric pads made explicit: x's window within the padded input.
  bool explicit_padding = false;
  PadShape padded;
  // The scratch of one call, carved from the run context's workspace in this order: the
  // filter in cuDNN's layout, the padded input (0 bytes when the pads are symmetric), and
  // cuDNN's workspace — the first candidate's size, as without a plan: a later candidate
  // runs only when it needs no more.
  std::size_t filter_bytes = 0, padded_bytes = 0, workspace_bytes = 0;
};

// Ranks cuDNN's algorithms for `pass` of the convolution the plan's descriptors describe,
// and sizes cuDNN's workspace after the first. Throws strata::Error naming the op and
// `geometry()` when cuDNN offers none.
template <typename GeometryFn>
void choose_algorithms(const KernelContext& ctx, cudnnHandle_t handle, ConvPass pass, ConvPlan& plan,
                       GeometryFn geometry) {
  const char* what = "forward";
  switch (pass) {
    case ConvPass::forward:
      plan.candidates = forward_candidates(ctx, handle, plan.x.get(), plan.w.get(), plan.conv.get(), plan.y.get());
      break;
    case ConvPass::backward_data:
      what = "backward-data";
      plan.candidates =
          backward_data_candidates(ctx, handle, plan.x.get(), plan.w.get(), plan.conv.get(), plan.y.get());
      break;
    case ConvPass::backward_filter:
      what = "backward-filter";
      plan.candidates =
          backward_filter_candidates(ctx, handle, plan.x.get(), plan.w.get(), plan.conv.get(), plan.y.get());
      break;
  }
  if (plan.candidates.count == 0) no_algorithm(ctx, what, geometry());
  plan.workspace_bytes = plan.candidates.items[0].bytes;
}

// The pieces of the run context's workspace one call of `plan` uses (ConvPlan says which).
struct ConvScratch {
  float* filter = nullptr;
  float* padded = nullptr;  // null when the pads are symmetric
  void* workspace = nullptr;
};

// Asks the run context's workspace for the plan's scratch (it grows when it must).
ConvScratch carve(RunContext& run, const ConvPlan& plan);

// Runs the plan's algorithm through `run(candidate)` (the cuDNN call of its pass), or
// the next when cuDNN refuses it as unsupported, and records which ran.
template <typename RunFn, typename GeometryFn>
void run_plan(const KernelContext& ctx, ConvPlan& plan, const char* what, const char* call, RunFn run,
              GeometryFn geometry) {
  plan.runnable = run_first(ctx, plan.candidates, plan.runnable, plan.workspace_bytes, what, call, run, geometry);
}

class ConvPlanCache : public LruCache<ConvPlanKey, ConvPlan, ConvPlanKeyHash> {
 public:
  // A CNN's working set is its distinct geometries times three passes, and a second
  // batch size for the last, smaller batch (and predict's). LRU gains nothing from a
  // cyclic working set larger than the cache (every step would rebuild every plan), so
  // the bound is generous; a plan is about a kilobyte of host memory.
  static constexpr std::size_t kCapacity = 256;

  ConvPlanCache() : LruCache(kCapacity) {}
};

}  // namespace strata::cuda
