#include "core/cpu/kernels/copy_input.h"

#include <cstring>

namespace strata::cpu {

void copy_input_kernel(KernelContext& ctx) {
  std::memcpy(ctx.output(0).raw_data(), ctx.input(0).raw_data(), ctx.input(0).nbytes());
}

}  // namespace strata::cpu
