// A CUDA stream owned by a handle (built only with STRATA_WITH_CUDA): created on a device,
// destroyed with the handle. Kernels enqueued on one stream run in order, asynchronously
// to the host.
//
// The stream is a blocking one (cudaStreamDefault, not cudaStreamNonBlocking): it
// synchronizes with the legacy default stream, on which the caching allocator zeroes new
// blocks (cudaMemset) and Tensor::to copies (cudaMemcpy). So a kernel never runs before
// the memset of its output, and a copy to the host sees every kernel enqueued before it.
#pragma once

struct CUstream_st;  // cudaStream_t is CUstream_st* (cuda_runtime_api.h)

namespace strata::cuda {

class Stream {
 public:
  enum class Kind { blocking, non_blocking };
  // Throws strata::Error when CUDA cannot create it.
  explicit Stream(int device, Kind kind = Kind::blocking);
  ~Stream();
  Stream(const Stream&) = delete;
  Stream& operator=(const Stream&) = delete;

  CUstream_st* get() const { return stream_; }
  int device() const { return device_; }
  // Waits until everything enqueued so far has run; throws strata::Error with CUDA's
  // message when some of it failed.
  void synchronize() const;

 private:
  int device_;
  CUstream_st* stream_ = nullptr;
};

}  // namespace strata::cuda
