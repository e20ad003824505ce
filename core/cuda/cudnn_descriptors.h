// cuDNN descriptors owned by handle objects (built only with STRATA_WITH_CUDNN; include
// from core/cuda/cudnn_*.cc only): each is created by its constructor and destroyed by
// its destructor, never a bare cudnn*Descriptor_t in a kernel. Creation failures (cuDNN
// out of host memory) throw strata::Error naming the kernel's op and node.
#pragma once

#include <cudnn.h>

#include <cstdint>

#include "core/cuda/cudnn_check.h"

namespace strata::cuda {

template <typename Handle, cudnnStatus_t (*kCreate)(Handle*), cudnnStatus_t (*kDestroy)(Handle)>
class CudnnDescriptor {
 public:
  explicit CudnnDescriptor(const KernelContext& ctx) { check(kCreate(&handle_), ctx, "creating a cuDNN descriptor"); }
  ~CudnnDescriptor() { kDestroy(handle_); }
  CudnnDescriptor(const CudnnDescriptor&) = delete;
  CudnnDescriptor& operator=(const CudnnDescriptor&) = delete;

  Handle get() const { return handle_; }

 private:
  Handle handle_ = nullptr;
};

using TensorDescriptor =
    CudnnDescriptor<cudnnTensorDescriptor_t, cudnnCreateTensorDescriptor, cudnnDestroyTensorDescriptor>;
using FilterDescriptor =
    CudnnDescriptor<cudnnFilterDescriptor_t, cudnnCreateFilterDescriptor, cudnnDestroyFilterDescriptor>;
using ConvolutionDescriptor =
    CudnnDescriptor<cudnnConvolutionDescriptor_t, cudnnCreateConvolutionDescriptor,
                    cudnnDestroyConvolutionDescriptor>;

// cuDNN's descriptors take int dimensions: `value` as an int, or strata::Error naming the
// op and `what` when it does not fit.
int cudnn_dim(const KernelContext& ctx, std::int64_t value, const char* what);

// A float32 NHWC tensor (n, c, h, w given in cuDNN's order).
void set_nhwc(const KernelContext& ctx, const TensorDescriptor& d, std::int64_t n, std::int64_t c, std::int64_t h,
              std::int64_t w);
// A float32 filter in cuDNN's NHWC filter layout, KRSC in memory: (k outputs, r rows,
// s columns, c input channels per group).
void set_krsc(const KernelContext& ctx, const FilterDescriptor& d, std::int64_t k, std::int64_t c, std::int64_t r,
              std::int64_t s);

// A float32 NDHWC tensor: 5-D, dims (n, c, d, h, w) in cuDNN's order with the strides
// of memory order n, d, h, w, c.
void set_ndhwc(const KernelContext& ctx, const TensorDescriptor& t, std::int64_t n, std::int64_t c, std::int64_t d,
               std::int64_t h, std::int64_t w);
// A float32 3-D filter in cuDNN's NHWC filter layout, KTRSC in memory: (k outputs, t
// planes, r rows, s columns, c input channels per group).
void set_ktrsc(const KernelContext& ctx, const FilterDescriptor& f, std::int64_t k, std::int64_t c, std::int64_t t,
               std::int64_t r, std::int64_t s);

}  // namespace strata::cuda
