// Pinned host buffers that stand in for device buffers while a host-only transport works
// on them (built only with STRATA_WITH_CUDA): the all-reduce ops' CUDA kernels copy a
// gradient bucket here for a communicator that sums host memory only (MPI without NCCL)
// and copy the sum back from here (core/cuda/collective_kernels.cc). One buffer per node
// that stages (a graph's nodes are fixed once compiled, so their number is bounded),
// kept and reused by every later step of the run context that owns this.
#pragma once

#include <cstddef>
#include <map>

struct CUstream_st;

namespace strata::cuda {

class HostStaging {
 public:
  HostStaging(int device, CUstream_st* stream) : device_(device), stream_(stream) {}
  // Waits for the stream (a copy may still read or write a buffer), then frees them all.
  ~HostStaging();
  HostStaging(const HostStaging&) = delete;
  HostStaging& operator=(const HostStaging&) = delete;

  // Node `node`'s pinned buffer of at least `bytes` bytes, made or grown by this call
  // (growing drops the old contents). Throws strata::Error when CUDA cannot allocate it.
  void* buffer_for(int node, std::size_t bytes);
  // The buffer buffer_for last gave node `node`; nullptr when there is none.
  void* find(int node) const;

 private:
  struct Pinned {
    void* data = nullptr;
    std::size_t bytes = 0;
  };
  int device_;
  CUstream_st* stream_;
  std::map<int, Pinned> buffers_;
};

}  // namespace strata::cuda
