// Scratch device memory of one run context (built only with STRATA_WITH_CUDA): what a
// kernel needs beyond its outputs (cuDNN's workspace, a transposed kernel, an explicitly
// padded input). One block per run context, from the device's caching allocator, that
// only grows: steady-state steps allocate nothing. Kernels on one stream run in order,
// so each may use the whole block; what one kernel leaves there is garbage to the next.
#pragma once

#include <cstddef>

struct CUstream_st;

namespace strata::cuda {

class Workspace {
 public:
  Workspace(int device, CUstream_st* stream) : device_(device), stream_(stream) {}
  ~Workspace();  // waits for the stream, then hands the block back
  Workspace(const Workspace&) = delete;
  Workspace& operator=(const Workspace&) = delete;

  // At least `bytes` of device memory, 256-byte aligned, valid until the next call.
  // Growing first waits for the stream (work enqueued before may still read the old
  // block) and throws strata::Error when that work failed or memory runs out. Everything
  // a kernel carves from the block must be asked for in one call, before it enqueues
  // anything that uses it.
  // While a CUDA graph is captured, growing (a wait and an allocation, neither of which
  // a capture allows) throws strata::Error instead: the capture is abandoned and the run
  // goes eager. The warm-up runs before a capture have grown the block already.
  void* get(std::size_t bytes);
  std::size_t size() const { return size_; }
  void set_growth_refused(bool refused) { growth_refused_ = refused; }

 private:
  void release() noexcept;

  int device_;
  CUstream_st* stream_;
  void* data_ = nullptr;
  std::size_t size_ = 0;
  bool growth_refused_ = false;
};

}  // namespace strata::cuda
