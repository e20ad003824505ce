// Puts back the process-wide CUDA graph switch (core/cuda_graph_policy.h) when a test's
// scope ends, however the test ends; given a value, sets the switch to it for the scope.
// Tests that flip the switch between calls (graphs on, then off, on one model) take one
// of these first and flip freely after.
#pragma once

#include <optional>

#include "core/cuda_graph_policy.h"

namespace strata::testing {

class ScopedCudaGraphs {
 public:
  explicit ScopedCudaGraphs(std::optional<bool> enabled = std::nullopt) : before_(cuda_graphs_enabled()) {
    if (enabled) set_cuda_graphs(*enabled);
  }
  ~ScopedCudaGraphs() { set_cuda_graphs(before_); }
  ScopedCudaGraphs(const ScopedCudaGraphs&) = delete;
  ScopedCudaGraphs& operator=(const ScopedCudaGraphs&) = delete;

 private:
  bool before_;
};

}  // namespace strata::testing
