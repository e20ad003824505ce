#include "core/cuda/check.h"

#include <string>

#include "core/error.h"
#include "core/op_registry.h"

namespace strata::cuda {

namespace {

std::string where(const KernelContext* ctx, const char* call) {
  std::string text = ctx ? "CUDA kernel of op '" + ctx->node.op + "' (node '" + ctx->node.name + "'): " : "CUDA: ";
  return text + call + " failed: ";
}

}  // namespace

void throw_error(cudaError_t status, const KernelContext* ctx, const char* call) {
  cudaGetLastError();  // clears the error unless it is sticky (the context is then lost)
  throw Error(where(ctx, call) + cudaGetErrorName(status) + " (" + cudaGetErrorString(status) + ")");
}

void throw_error(cublasStatus_t status, const KernelContext* ctx, const char* call) {
  throw Error(where(ctx, call) + cublasGetStatusName(status) + " (" + cublasGetStatusString(status) + ")");
}

}  // namespace strata::cuda
