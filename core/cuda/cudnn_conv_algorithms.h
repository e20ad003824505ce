// How the cuDNN convolution kernels (core/cuda/cudnn_conv_kernels.cc, conv2d's and
// conv3d's) choose and run an algorithm, shared by both ranks: cuDNN's heuristic results
// (cudnnGet*Algorithm_v7, no benchmarking) that are supported and need at most
// kMaxWorkspace, FMA-only and deterministic ones first and cuDNN's order kept within each
// kind; then the first that cuDNN does not refuse as unsupported. Built only with
// STRATA_WITH_CUDNN; include from core/cuda/cudnn_*.cc only.
#pragma once

#include <cudnn.h>

#include <algorithm>
#include <array>
#include <cstddef>
#include <cstdint>
#include <string>

#include "core/cuda/cudnn_check.h"
#include "core/error.h"
#include "core/op_registry.h"

namespace strata::cuda {

inline constexpr std::size_t kMaxWorkspace = std::size_t{1} << 30;  // 1 GiB
inline constexpr std::size_t kWorkspaceAlign = 256;

inline std::size_t aligned(std::size_t bytes) { return (bytes + kWorkspaceAlign - 1) / kWorkspaceAlign * kWorkspaceAlign; }
inline std::size_t float_bytes(std::int64_t count) { return static_cast<std::size_t>(count) * sizeof(float); }

// The scaling factors of cuDNN's calls: y = 1 * op(...) + 0 * y.
inline constexpr float kOne = 1.f, kZero = 0.f;

// An algorithm cuDNN offers, with the workspace it needs.
struct Candidate {
  int algo = 0;
  std::size_t bytes = 0;
  bool fma = false, deterministic = false;
};

struct Candidates {
  std::array<Candidate, 32> items{};
  int count = 0;
};

// cuDNN's heuristic results (best first) that are supported and fit kMaxWorkspace, each
// algorithm once, FMA-only and deterministic ones first, cuDNN's order kept within each
// kind. `workspace(algo, &bytes)` asks cuDNN for an algorithm's workspace.
template <typename Perf, typename WorkspaceFn>
Candidates ranked_candidates(const Perf* perfs, int returned, WorkspaceFn workspace) {
  Candidates out;
  for (int i = 0; i < returned && out.count < static_cast<int>(out.items.size()); ++i) {
    const Perf& p = perfs[i];
    if (p.status != CUDNN_STATUS_SUCCESS) continue;
    const int algo = static_cast<int>(p.algo);
    const bool seen = std::any_of(out.items.begin(), out.items.begin() + out.count,
                                  [&](const Candidate& c) { return c.algo == algo; });
    if (seen) continue;
    std::size_t bytes = 0;
    if (workspace(p.algo, &bytes) != CUDNN_STATUS_SUCCESS || bytes > kMaxWorkspace) continue;
    out.items[static_cast<std::size_t>(out.count++)] =
        Candidate{algo, bytes, p.mathType == CUDNN_FMA_MATH, p.determinism == CUDNN_DETERMINISTIC};
  }
  std::stable_sort(out.items.begin(), out.items.begin() + out.count, [](const Candidate& a, const Candidate& b) {
    return (a.fma ? 0 : 2) + (a.deterministic ? 0 : 1) < (b.fma ? 0 : 2) + (b.deterministic ? 0 : 1);
  });
  return out;
}

// `geometry` says which layout and shapes were asked for ("float32 NHWC ... for input ...").
[[noreturn]] inline void no_algorithm(const KernelContext& ctx, const char* what, const std::string& geometry) {
  throw Error("CUDA kernel of op '" + ctx.node.op + "' (node '" + ctx.node.name + "'): cuDNN offers no " + what +
              " algorithm for " + geometry);
}

// Runs `run(candidate)` for the first candidate from index `first` on whose workspace
// fits `reserved` bytes and that cuDNN does not refuse as unsupported, and returns its
// index; any other failure throws. A convolution plan (core/cuda/cudnn_conv_plan_cache.h)
// passes the index that ran last time: with the same descriptors and reservation, the
// candidates before it were skipped again (too large) or refused again (unsupported), so
// starting there picks what starting at 0 would, without asking cuDNN to refuse them
// every call. `geometry()` is called only to word the error when none runs.
template <typename RunFn, typename GeometryFn>
int run_first(const KernelContext& ctx, const Candidates& candidates, int first, std::size_t reserved,
              const char* what, const char* call, RunFn run, GeometryFn geometry) {
  for (int i = first; i < candidates.count; ++i) {
    const Candidate& c = candidates.items[static_cast<std::size_t>(i)];
    if (c.bytes > reserved) continue;
    const cudnnStatus_t status = run(c);
    if (status == CUDNN_STATUS_NOT_SUPPORTED) continue;
    check(status, ctx, call);
    return i;
  }
  no_algorithm(ctx, what, geometry());
}

// The candidates for each pass of the convolution that x (input), w (filter), conv and y
// (output) describe, as ranked_candidates orders them.
inline Candidates forward_candidates(const KernelContext& ctx, cudnnHandle_t handle, cudnnTensorDescriptor_t x,
                                     cudnnFilterDescriptor_t w, cudnnConvolutionDescriptor_t conv,
                                     cudnnTensorDescriptor_t y) {
  std::array<cudnnConvolutionFwdAlgoPerf_t, CUDNN_CONVOLUTION_FWD_ALGO_COUNT> perfs{};
  int returned = 0;
  check(cudnnGetConvolutionForwardAlgorithm_v7(handle, x, w, conv, y, static_cast<int>(perfs.size()), &returned,
                                               perfs.data()),
        ctx, "cudnnGetConvolutionForwardAlgorithm_v7");
  return ranked_candidates(perfs.data(), returned, [&](cudnnConvolutionFwdAlgo_t algo, std::size_t* bytes) {
    return cudnnGetConvolutionForwardWorkspaceSize(handle, x, w, conv, y, algo, bytes);
  });
}

inline Candidates backward_data_candidates(const KernelContext& ctx, cudnnHandle_t handle, cudnnTensorDescriptor_t x,
                                           cudnnFilterDescriptor_t w, cudnnConvolutionDescriptor_t conv,
                                           cudnnTensorDescriptor_t y) {
  std::array<cudnnConvolutionBwdDataAlgoPerf_t, CUDNN_CONVOLUTION_BWD_DATA_ALGO_COUNT> perfs{};
  int returned = 0;
  check(cudnnGetConvolutionBackwardDataAlgorithm_v7(handle, w, y, conv, x, static_cast<int>(perfs.size()), &returned,
                                                    perfs.data()),
        ctx, "cudnnGetConvolutionBackwardDataAlgorithm_v7");
  return ranked_candidates(perfs.data(), returned, [&](cudnnConvolutionBwdDataAlgo_t algo, std::size_t* bytes) {
    return cudnnGetConvolutionBackwardDataWorkspaceSize(handle, w, y, conv, x, algo, bytes);
  });
}

inline Candidates backward_filter_candidates(const KernelContext& ctx, cudnnHandle_t handle,
                                             cudnnTensorDescriptor_t x, cudnnFilterDescriptor_t w,
                                             cudnnConvolutionDescriptor_t conv, cudnnTensorDescriptor_t y) {
  std::array<cudnnConvolutionBwdFilterAlgoPerf_t, CUDNN_CONVOLUTION_BWD_FILTER_ALGO_COUNT> perfs{};
  int returned = 0;
  check(cudnnGetConvolutionBackwardFilterAlgorithm_v7(handle, x, y, conv, w, static_cast<int>(perfs.size()),
                                                      &returned, perfs.data()),
        ctx, "cudnnGetConvolutionBackwardFilterAlgorithm_v7");
  return ranked_candidates(perfs.data(), returned, [&](cudnnConvolutionBwdFilterAlgo_t algo, std::size_t* bytes) {
    return cudnnGetConvolutionBackwardFilterWorkspaceSize(handle, x, y, conv, w, algo, bytes);
  });
}

}  // namespace strata::cuda
