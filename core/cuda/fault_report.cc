#include "core/cuda/fault_report.h"

#include <cuda_runtime_api.h>

#include "core/cuda/caching_allocator.h"
#include "core/cuda/check.h"
#include "core/cuda/device_scope.h"
#include "core/error.h"

namespace strata::cuda {

FaultReport::~FaultReport() {
  if (!device_record_) return;
  DeviceScope scope(device_, std::nothrow);
  cudaStreamSynchronize(stream_);  // a kernel or the copy back may still use either record
  cudaFreeHost(host_record_);
  caching_allocator(device_).deallocate(device_record_, sizeof(FaultRecord));
}

FaultSite FaultReport::arm(const Node& node, Message message) {
  if (!device_record_) {
    DeviceScope scope(device_);
    void* host = nullptr;
    check(cudaMallocHost(&host, sizeof(FaultRecord)), "cudaMallocHost (a run context's fault record)");
    host_record_ = static_cast<FaultRecord*>(host);
    try {
      device_record_ = static_cast<FaultRecord*>(caching_allocator(device_).allocate(sizeof(FaultRecord)));
    } catch (...) {
      cudaFreeHost(host_record_);
      host_record_ = nullptr;
      throw;
    }
    // Ordered before every kernel that may write it: they run on this stream.
    check(cudaMemsetAsync(device_record_, 0, sizeof(FaultRecord), stream_), "cudaMemsetAsync (a fault record)");
  }
  sites_.push_back({&node, message});
  ++armed_launches_;
  read_back_pending_ = true;
  return {device_record_, static_cast<std::int32_t>(sites_.size() - 1)};
}

void FaultReport::enqueue_read_back() {
  if (!read_back_pending_) return;
  DeviceScope scope(device_);
  check(cudaMemcpyAsync(host_record_, device_record_, sizeof(FaultRecord), cudaMemcpyDeviceToHost, stream_),
        "cudaMemcpyAsync (reading back a fault record)");
}

void FaultReport::throw_if_reported() {
  if (!read_back_pending_) return;
  read_back_pending_ = false;
  // The stream has finished, the copy with it: the pinned record holds what the kernels
  // wrote (cudaStreamSynchronize orders the host's reads after it).
  const FaultRecord found = *host_record_;
  if (found.claimed == 0) {
    sites_.clear();
    return;
  }
  {
    DeviceScope scope(device_);
    check(cudaMemsetAsync(device_record_, 0, sizeof(FaultRecord), stream_), "cudaMemsetAsync (a fault record)");
  }
  const bool known = found.site >= 0 && static_cast<std::size_t>(found.site) < sites_.size();
  std::string message = known ? sites_[static_cast<std::size_t>(found.site)].message(
                                    *sites_[static_cast<std::size_t>(found.site)].node, found)
                              : "a CUDA kernel reported bad input from a launch this run context did not arm (site " +
                                    std::to_string(found.site) + ")";
  sites_.clear();
  throw ValueError(message);
}

}  // namespace strata::cuda
