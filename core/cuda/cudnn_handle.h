// A cuDNN handle owned by a handle object (built only with STRATA_WITH_CUDNN), as
// CublasHandle is for cuBLAS: created on the stream's device, bound to that stream,
// destroyed with the object. A RunContext makes one the first time a kernel asks for it
// (RunContext::cudnn).
#pragma once

struct cudnnContext;  // cudnnHandle_t is cudnnContext* (cudnn_graph.h)

namespace strata::cuda {

class Stream;

class CudnnHandle {
 public:
  explicit CudnnHandle(const Stream& stream);  // throws strata::Error when cuDNN fails
  ~CudnnHandle();
  CudnnHandle(const CudnnHandle&) = delete;
  CudnnHandle& operator=(const CudnnHandle&) = delete;

  cudnnContext* get() const { return handle_; }

 private:
  int device_;
  cudnnContext* handle_ = nullptr;
};

}  // namespace strata::cuda
