// A cuBLASLt handle owned by a handle object (built only with STRATA_WITH_CUDA), for the
// products whose epilogue the classic cuBLAS API cannot fuse: Dense's bias and relu
// (core/cuda/dense_epilogue.h). Unlike a cuBLAS handle it is bound to no stream and no
// workspace; each call names both (the run context's stream and its cuBLAS handle's
// workspace block: the two handles' work is ordered on one stream, so they share it).
#pragma once

struct cublasLtContext;  // cublasLtHandle_t is cublasLtContext* (cublasLt.h)

namespace strata::cuda {

class CublasLtHandle {
 public:
  explicit CublasLtHandle(int device);  // throws strata::Error when cuBLASLt fails
  ~CublasLtHandle();
  CublasLtHandle(const CublasLtHandle&) = delete;
  CublasLtHandle& operator=(const CublasLtHandle&) = delete;

  cublasLtContext* get() const { return handle_; }

 private:
  int device_;
  cublasLtContext* handle_ = nullptr;
};

}  // namespace strata::cuda
