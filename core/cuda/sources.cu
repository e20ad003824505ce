// The source and cast CUDA kernels: a fill (constant, fill_like) and the numeric casts,
// one grid-stride kernel each.
#include <cuda_runtime.h>

#include <algorithm>
#include <cstdint>

#include "core/cuda/grid_stride.cuh"
#include "core/cuda/sources_launch.h"

namespace strata::cuda {

namespace {

__global__ void fill_kernel(float* out, float value, std::int64_t n) {
  for (std::int64_t i = first_index(); i < n; i += grid_stride()) out[i] = value;
}

template <typename From, typename To>
__global__ void cast_kernel(const From* in, To* out, std::int64_t n) {
  for (std::int64_t i = first_index(); i < n; i += grid_stride()) out[i] = static_cast<To>(in[i]);
}

template <typename From>
void cast_from(const void* in, ElementType to, void* out, std::int64_t n, CUstream_st* stream) {
  const auto* src = static_cast<const From*>(in);
  switch (to) {
    case ElementType::float32:
      cast_kernel<<<blocks_for(n), kThreads, 0, stream>>>(src, static_cast<float*>(out), n);
      break;
    case ElementType::int32:
      cast_kernel<<<blocks_for(n), kThreads, 0, stream>>>(src, static_cast<std::int32_t*>(out), n);
      break;
    case ElementType::int64:
      cast_kernel<<<blocks_for(n), kThreads, 0, stream>>>(src, static_cast<std::int64_t*>(out), n);
      break;
  }
}

}  // namespace

void launch_fill(float* out, float value, std::int64_t n, CUstream_st* stream) {
  if (n == 0) return;
  fill_kernel<<<blocks_for(n), kThreads, 0, stream>>>(out, value, n);
}

void launch_cast(ElementType from, const void* in, ElementType to, void* out, std::int64_t n, CUstream_st* stream) {
  if (n == 0) return;
  switch (from) {
    case ElementType::float32: cast_from<float>(in, to, out, n, stream); break;
    case ElementType::int32: cast_from<std::int32_t>(in, to, out, n, stream); break;
    case ElementType::int64: cast_from<std::int64_t>(in, to, out, n, stream); break;
  }
}

}  // namespace strata::cuda
