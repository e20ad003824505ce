// A cuBLAS handle owned by a handle object (built only with STRATA_WITH_CUDA): created on
// the stream's device, bound to that stream, destroyed with the object.
//
// Math mode: CUBLAS_DEFAULT_MATH, set explicitly. Its float32 products compute in
// float32: TF32 tensor cores (CUBLAS_TF32_TENSOR_OP_MATH) and the BF16x9 emulation
// (CUBLAS_FP32_EMULATED_BF16X9_MATH) are opt-in modes that this handle never sets, so
// results stay comparable with the CPU's. Strict float32 is the rule; a faster
// mode would be an explicit setting. (CUBLAS_PEDANTIC_MATH, which cuBLAS documents as
// meant for numerical studies and possibly slower, is not needed for float32 results.)
//
// Workspace: a fixed block of kWorkspaceBytes from the caching allocator, set with
// cublasSetWorkspace, rather than cuBLAS's own pool, which it may allocate at a call:
// nothing may allocate while a CUDA graph is captured. The same block in every state,
// captured or not, so cuBLAS picks the same algorithms (and gives the same bits) with
// graphs on and off. cublasSetStream resets the workspace to cuBLAS's pool, so bind()
// sets both.
#pragma once

#include <cstddef>

struct cublasContext;  // cublasHandle_t is cublasContext* (cublas_api.h)
struct CUstream_st;

namespace strata::cuda {

class Stream;

class CublasHandle {
 public:
  explicit CublasHandle(const Stream& stream);  // throws strata::Error when cuBLAS fails
  ~CublasHandle();
  CublasHandle(const CublasHandle&) = delete;
  CublasHandle& operator=(const CublasHandle&) = delete;

  cublasContext* get() const { return handle_; }
  // The handle's workspace block (kWorkspaceBytes), which cuBLASLt's products on the same
  // stream share (core/cuda/dense_epilogue.h): work on one stream runs in order.
  void* workspace() const { return workspace_; }
  // Enqueues the handle's work on `stream` (a stream of its device) from now on, with
  // its own workspace. Throws strata::Error when cuBLAS fails.
  void bind(CUstream_st* stream);

  // 32 MiB: what cuBLAS documents as its default pool on Hopper.
  static constexpr std::size_t kWorkspaceBytes = std::size_t{32} << 20;

 private:
  int device_;
  cublasContext* handle_ = nullptr;
  void* workspace_ = nullptr;  // a caching allocator block
  CUstream_st* stream_ = nullptr;  // the stream bound last
};

}  // namespace strata::cuda
