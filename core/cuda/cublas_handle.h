// A cuBLAS handle owned by a handle object (built only with STRATA_WITH_CUDA): created on
// the stream's device, bound to that stream, destroyed with the object.
//
// Math mode: CUBLAS_DEFAULT_MATH, set explicitly. For float32 products it computes in
// float32: TF32 tensor cores are used only under CUBLAS_TF32_TENSOR_OP_MATH (or when
// NVIDIA_TF32_OVERRIDE says so), so results stay comparable with the CPU's. Strict
// float32 is the rule; TF32 would be an explicit, opt-in setting.
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
