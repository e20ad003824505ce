#include "core/cuda/cudnn_check.h"

#include <string>

#include "core/error.h"
#include "core/op_registry.h"

namespace strata::cuda {

void throw_error(cudnnStatus_t status, const KernelContext* ctx, const char* call) {
  std::string text = ctx ? "CUDA kernel of op '" + ctx->node.op + "' (node '" + ctx->node.name + "'): " : "cuDNN: ";
  // cudnnGetErrorString gives the status's name (CUDNN_STATUS_...); cuDNN 9 keeps the
  // details of the last failure for cudnnGetLastErrorString, added when there are any.
  text += std::string(call) + " failed: " + cudnnGetErrorString(status);
#if CUDNN_MAJOR >= 9
  char detail[512] = {};
  cudnnGetLastErrorString(detail, sizeof(detail));
  if (detail[0] != '\0') text += std::string(" (") + detail + ")";
#endif
  throw Error(text);
}

}  // namespace strata::cuda
