// A cuBLAS handle owned by a handle object (built only with STRATA_WITH_CUDA): created on
// the stream's device, bound to that stream, destroyed with the object.
//
// Math mode: CUBLAS_DEFAULT_MATH, set explicitly. Its float32 products compute in
// float32: TF32 tensor cores (CUBLAS_TF32_TENSOR_OP_MATH) and the BF16x9 emulation
// (CUBLAS_FP32_EMULATED_BF16X9_MATH) are opt-in modes that this handle never sets, so
// results stay comparable with the CPU's. Strict float32 is the rule; a faster
// mode would be an explicit setting. (CUBLAS_PEDANTIC_MATH, which cuBLAS documents as
// meant for numerical studies and possibly slower, is not needed for float32 results.)
#pragma once

struct cublasContext;  // cublasHandle_t is cublasContext* (cublas_api.h)

namespace strata::cuda {

class Stream;

class CublasHandle {
 public:
  explicit CublasHandle(const Stream& stream);  // throws strata::Error when cuBLAS fails
  ~CublasHandle();
  CublasHandle(const CublasHandle&) = delete;
  CublasHandle& operator=(const CublasHandle&) = delete;

  cublasContext* get() const { return handle_; }

 private:
  int device_;
  cublasContext* handle_ = nullptr;
};

}  // namespace strata::cuda
