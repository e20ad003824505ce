// The one way CUDA and cuBLAS statuses become Strata errors (built only with
// STRATA_WITH_CUDA). A failed call throws strata::Error naming what was called, the op
// and node when a kernel made the call, and CUDA's own name and description of the error:
//   "CUDA kernel of op 'add' (node 'dense/add'): kernel launch failed:
//    cudaErrorInvalidConfiguration (invalid configuration argument)"
// Kernels run asynchronously: an error raised by earlier work surfaces at the next check,
// which then names the op that found it, not the one that caused it — and a fatal fault
// (an illegal address) breaks the whole device, so with several execution states it may
// surface in another thread's op or Program.
#pragma once

#include <cublas_api.h>
#include <cuda_runtime_api.h>

namespace strata {
struct KernelContext;
}

namespace strata::cuda {

[[noreturn]] void throw_error(cudaError_t status, const KernelContext* ctx, const char* call);
[[noreturn]] void throw_error(cublasStatus_t status, const KernelContext* ctx, const char* call);

inline void check(cudaError_t status, const char* call) {
  if (status != cudaSuccess) [[unlikely]] throw_error(status, nullptr, call);
}
inline void check(cudaError_t status, const KernelContext& ctx, const char* call) {
  if (status != cudaSuccess) [[unlikely]] throw_error(status, &ctx, call);
}
inline void check(cublasStatus_t status, const KernelContext& ctx, const char* call) {
  if (status != CUBLAS_STATUS_SUCCESS) [[unlikely]] throw_error(status, &ctx, call);
}
inline void check(cublasStatus_t status, const char* call) {
  if (status != CUBLAS_STATUS_SUCCESS) [[unlikely]] throw_error(status, nullptr, call);
}

// After launching kernels for `ctx`: throws when a launch failed (a bad configuration,
// no code for this GPU's architecture) or earlier work on the device had failed.
inline void check_launch(const KernelContext& ctx) { check(cudaGetLastError(), ctx, "kernel launch"); }

}  // namespace strata::cuda
