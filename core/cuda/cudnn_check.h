// cuDNN statuses as Strata errors (built only with STRATA_WITH_CUDNN), as cuda::check
// does for CUDA and cuBLAS (core/cuda/check.h): a failed call throws strata::Error
// naming the call, the op and node when a kernel made it, and cuDNN's name of the status:
//   "CUDA kernel of op 'conv2d' (node 'conv2d/conv2d'): cudnnConvolutionForward failed:
//    CUDNN_STATUS_NOT_SUPPORTED"
// Include it only from core/cuda/cudnn_*.cc (the files a build without cuDNN leaves out).
#pragma once

#include <cudnn.h>

#include "core/cuda/check.h"

namespace strata::cuda {

[[noreturn]] void throw_error(cudnnStatus_t status, const KernelContext* ctx, const char* call);

inline void check(cudnnStatus_t status, const KernelContext& ctx, const char* call) {
  if (status != CUDNN_STATUS_SUCCESS) [[unlikely]] throw_error(status, &ctx, call);
}
inline void check(cudnnStatus_t status, const char* call) {
  if (status != CUDNN_STATUS_SUCCESS) [[unlikely]] throw_error(status, nullptr, call);
}

}  // namespace strata::cuda
