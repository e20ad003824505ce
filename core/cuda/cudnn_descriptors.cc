#include "core/cuda/cudnn_descriptors.h"

#include <array>
#include <limits>
#include <string>

#include "core/error.h"
#include "core/op_registry.h"

namespace strata::cuda {

int cudnn_dim(const KernelContext& ctx, std::int64_t value, const char* what) {
  if (value < 0 || value > std::numeric_limits<int>::max()) {
    throw Error("CUDA kernel of op '" + ctx.node.op + "' (node '" + ctx.node.name + "'): " + what + " " +
                std::to_string(value) + " does not fit cuDNN's int dimensions");
  }
  return static_cast<int>(value);
}

void set_nhwc(const KernelContext& ctx, const TensorDescriptor& d, std::int64_t n, std::int64_t c, std::int64_t h,
              std::int64_t w) {
  check(cudnnSetTensor4dDescriptor(d.get(), CUDNN_TENSOR_NHWC, CUDNN_DATA_FLOAT, cudnn_dim(ctx, n, "batch size"),
                                   cudnn_dim(ctx, c, "channel count"), cudnn_dim(ctx, h, "height"),
                                   cudnn_dim(ctx, w, "width")),
        ctx, "cudnnSetTensor4dDescriptor");
}

void set_krsc(const KernelContext& ctx, const FilterDescriptor& d, std::int64_t k, std::int64_t c, std::int64_t r,
              std::int64_t s) {
  check(cudnnSetFilter4dDescriptor(d.get(), CUDNN_DATA_FLOAT, CUDNN_TENSOR_NHWC, cudnn_dim(ctx, k, "filter count"),
                                   cudnn_dim(ctx, c, "channels per group"), cudnn_dim(ctx, r, "kernel height"),
                                   cudnn_dim(ctx, s, "kernel width")),
        ctx, "cudnnSetFilter4dDescriptor");
}

void set_ndhwc(const KernelContext& ctx, const TensorDescriptor& t, std::int64_t n, std::int64_t c, std::int64_t d,
               std::int64_t h, std::int64_t w) {
  const std::array<int, 5> dims{cudnn_dim(ctx, n, "batch size"), cudnn_dim(ctx, c, "channel count"),
                                cudnn_dim(ctx, d, "depth"), cudnn_dim(ctx, h, "height"), cudnn_dim(ctx, w, "width")};
  // Strides spelled out (channels innermost) rather than asked of the NHWC format: a
  // strided 5-D descriptor is what every cuDNN version reads the same way.
  const std::array<int, 5> strides{cudnn_dim(ctx, d * h * w * c, "volume size"), 1,
                                   cudnn_dim(ctx, h * w * c, "plane size"), cudnn_dim(ctx, w * c, "row size"),
                                   cudnn_dim(ctx, c, "channel count")};
  check(cudnnSetTensorNdDescriptor(t.get(), CUDNN_DATA_FLOAT, static_cast<int>(dims.size()), dims.data(),
                                   strides.data()),
        ctx, "cudnnSetTensorNdDescriptor");
}

void set_ktrsc(const KernelContext& ctx, const FilterDescriptor& f, std::int64_t k, std::int64_t c, std::int64_t t,
               std::int64_t r, std::int64_t s) {
  const std::array<int, 5> dims{cudnn_dim(ctx, k, "filter count"), cudnn_dim(ctx, c, "channels per group"),
                                cudnn_dim(ctx, t, "kernel depth"), cudnn_dim(ctx, r, "kernel height"),
                                cudnn_dim(ctx, s, "kernel width")};
  check(cudnnSetFilterNdDescriptor(f.get(), CUDNN_DATA_FLOAT, CUDNN_TENSOR_NHWC, static_cast<int>(dims.size()),
                                   dims.data()),
        ctx, "cudnnSetFilterNdDescriptor");
}

}  // namespace strata::cuda
