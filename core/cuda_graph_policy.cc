#include "core/cuda_graph_policy.h"

#include <atomic>
#include <cstdlib>
#include <cstring>

namespace strata {

bool CudaGraphPolicy::same_key(const std::vector<Tensor>& feeds, bool training) const {
  if (training != training_ || feeds.size() != shapes_.size()) return false;
  for (std::size_t i = 0; i < feeds.size(); ++i) {
    if (feeds[i].dtype() != dtypes_[i] || !(feeds[i].shape() == shapes_[i])) return false;
  }
  return true;
}

GraphRunMode CudaGraphPolicy::decide(const std::vector<Tensor>& feeds, bool training,
                                     const std::vector<const void*>& addresses) {
  if (refused_) return GraphRunMode::eager;
  if (!same_key(feeds, training)) {
    // A new key: its first run is eager and the old key's graph is of no use any more
    // (one graph per state; a map by key would keep both, at the memory of both).
    shapes_.resize(feeds.size());
    dtypes_.resize(feeds.size());
    for (std::size_t i = 0; i < feeds.size(); ++i) {
      shapes_[i] = feeds[i].shape();
      dtypes_[i] = feeds[i].dtype();
    }
    training_ = training;
    same_runs_ = 1;
    holds_graph_ = false;
    return GraphRunMode::eager;
  }
  if (holds_graph_) {
    if (addresses == captured_addresses_) return GraphRunMode::replay;
    // Storage moved (a variable placed or assigned anew): the graph would read freed
    // memory. Warm up again with this run, as after a change of shapes.
    holds_graph_ = false;
    same_runs_ = 1;
    return GraphRunMode::eager;
  }
  if (same_runs_ < same_runs_before_capture_) ++same_runs_;
  return same_runs_ >= same_runs_before_capture_ ? GraphRunMode::capture : GraphRunMode::eager;
}

void CudaGraphPolicy::captured(const std::vector<const void*>& addresses) {
  captured_addresses_ = addresses;
  holds_graph_ = true;
}

void CudaGraphPolicy::refuse(std::string reason) {
  refused_ = true;
  holds_graph_ = false;
  refusal_ = std::move(reason);
}

namespace {

// -1: not decided yet (the environment is read at the first call); 0 off; 1 on.
std::atomic<int> g_cuda_graphs{-1};
std::atomic<std::int64_t> g_captures{0}, g_replays{0}, g_refusals{0};

}  // namespace

void set_cuda_graphs(bool enabled) noexcept { g_cuda_graphs.store(enabled ? 1 : 0, std::memory_order_relaxed); }

bool cuda_graphs_enabled() noexcept {
  int state = g_cuda_graphs.load(std::memory_order_relaxed);
  if (state < 0) {
    const char* text = std::getenv("STRATA_CUDA_GRAPHS");
    const int from_env = text && (std::strcmp(text, "0") == 0 || std::strcmp(text, "off") == 0) ? 0 : 1;
    // A set_cuda_graphs racing with the first read wins.
    g_cuda_graphs.compare_exchange_strong(state, from_env, std::memory_order_relaxed);
    state = g_cuda_graphs.load(std::memory_order_relaxed);
  }
  return state == 1;
}

CudaGraphCounts cuda_graph_counts() noexcept {
  return {g_captures.load(std::memory_order_relaxed), g_replays.load(std::memory_order_relaxed),
          g_refusals.load(std::memory_order_relaxed)};
}

void reset_cuda_graph_counts() noexcept {
  g_captures.store(0, std::memory_order_relaxed);
  g_replays.store(0, std::memory_order_relaxed);
  g_refusals.store(0, std::memory_order_relaxed);
}

void count_cuda_graph_event(GraphRunMode mode) noexcept {
  if (mode == GraphRunMode::capture) g_captures.fetch_add(1, std::memory_order_relaxed);
  if (mode == GraphRunMode::replay) g_replays.fetch_add(1, std::memory_order_relaxed);
}

void count_cuda_graph_refusal() noexcept { g_refusals.fetch_add(1, std::memory_order_relaxed); }

}  // namespace strata
