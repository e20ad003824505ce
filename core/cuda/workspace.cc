#include "core/cuda/workspace.h"

#include <cuda_runtime_api.h>

#include <string>

#include "core/cuda/caching_allocator.h"
#include "core/cuda/check.h"
#include "core/cuda/device_scope.h"
#include "core/error.h"

namespace strata::cuda {

Workspace::~Workspace() { release(); }

void Workspace::release() noexcept {
  if (!data_) return;
  {
    DeviceScope scope(device_, std::nothrow);
    cudaStreamSynchronize(stream_);  // nothing may read the block once another owner has it
  }
  caching_allocator(device_).deallocate(data_, size_);
  data_ = nullptr;
  size_ = 0;
}

void* Workspace::get(std::size_t bytes) {
  if (bytes <= size_ && data_) return data_;
  if (growth_refused_) {
    throw Error("a run context's workspace must grow from " + std::to_string(size_) + " to " + std::to_string(bytes) +
                " bytes while a CUDA graph is captured");
  }
  if (data_) {
    DeviceScope scope(device_);
    check(cudaStreamSynchronize(stream_), "cudaStreamSynchronize (growing a run context's workspace)");
  }
  release();
  // Some room above the ask, so a run whose kernels ask for slowly growing sizes does not
  // wait for its stream at each.
  const std::size_t size = bytes + bytes / 4;
  data_ = caching_allocator(device_).allocate(size);
  size_ = size;
  return data_;
}

}  // namespace strata::cuda
