#include "core/cuda/host_staging.h"

#include <cuda_runtime_api.h>

#include "core/cuda/check.h"
#include "core/cuda/device_scope.h"

namespace strata::cuda {

HostStaging::~HostStaging() {
  if (buffers_.empty()) return;
  DeviceScope scope(device_, std::nothrow);
  cudaStreamSynchronize(stream_);
  for (auto& [key, pinned] : buffers_) cudaFreeHost(pinned.data);
}

void* HostStaging::buffer_for(int node, std::size_t bytes) {
  Pinned& pinned = buffers_[node];
  if (pinned.bytes >= bytes && pinned.data) return pinned.data;
  DeviceScope scope(device_);
  if (pinned.data) {
    // A copy enqueued by an earlier step may still use the old buffer.
    check(cudaStreamSynchronize(stream_), "cudaStreamSynchronize (before growing a host staging buffer)");
    cudaFreeHost(pinned.data);
    pinned = {};
  }
  void* data = nullptr;
  check(cudaMallocHost(&data, bytes == 0 ? 1 : bytes), "cudaMallocHost (a host staging buffer)");
  pinned = {data, bytes};
  return data;
}

void* HostStaging::find(int node) const {
  auto it = buffers_.find(node);
  return it == buffers_.end() ? nullptr : it->second.data;
}

}  // namespace strata::cuda
