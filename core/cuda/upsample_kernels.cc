// Host side of the upsampling CUDA kernel: the shape and the node's size, then one launch
// (core/cuda/upsample.cu).
#include "core/cuda/kernel_registration.h"
#include "core/cuda/upsample_kernels.h"

#include <vector>

#include "core/cuda/check.h"
#include "core/cuda/device_floats.h"
#include "core/cuda/run_context.h"
#include "core/cuda/upsample_launch.h"
#include "core/op_registry.h"

namespace strata::cuda {

void upsample_nearest2d(KernelContext& ctx) {
  CUstream_st* stream = run_context(ctx).stream().get();
  const Tensor& x = ctx.input(0);
  const auto& size = ctx.node.attrs.get<std::vector<std::int64_t>>("size");
  const UpsampleShape s{.n = x.shape()[0], .h = x.shape()[1], .w = x.shape()[2], .c = x.shape()[3],
                        .sh = size.at(0), .sw = size.at(1)};
  launch_upsample_nearest2d(floats(x), floats(ctx.output(0)), s, stream);
  check_launch(ctx);
}

void register_upsample_kernels(OpRegistry& r) { add_kernel(r, "upsample_nearest2d", upsample_nearest2d); }

}  // namespace strata::cuda
