// How a CUDA kernel file registers its kernels into the op table: each core/cuda/<family>_kernels.cc
// ends with register_<family>_kernels(OpRegistry&), binding the ops its kernels serve, and
// core/cuda/register_kernels.cc calls them all when the registry is built. An op no file
// binds has no CUDA kernel, and compile refuses a CUDA program that needs it, by name.
#pragma once

#include <functional>
#include <string>
#include <utility>

#include "core/op_registry.h"

namespace strata::cuda {

inline void add_kernel(OpRegistry& r, const std::string& op, KernelFn kernel) {
  r.add_kernel(op, DeviceType::cuda, {.run = std::move(kernel)});
}

// A kernel that reads something of the run on the host: a captured CUDA graph would
// replay what it read once (core/cuda_graph_policy.h); `graph_refusal` says why, for a node.
inline void add_host_reading_kernel(OpRegistry& r, const std::string& op, KernelFn kernel,
                                    std::function<std::string(const Node&)> graph_refusal) {
  r.add_kernel(op, DeviceType::cuda, {.run = std::move(kernel), .graph_refusal = std::move(graph_refusal)});
}

}  // namespace strata::cuda
