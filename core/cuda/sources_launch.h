// Launchers of the source and cast CUDA kernels (core/cuda/sources.cu), called by
// core/cuda/sources_kernels.cc. Plain pointers and sizes only. Each enqueues on `stream`
// and returns at once; n == 0 launches nothing.
#pragma once

#include <cstdint>

#include "core/cuda/element_type.h"

struct CUstream_st;

namespace strata::cuda {

// out[i] = value for i < n.
void launch_fill(float* out, float value, std::int64_t n, CUstream_st* stream);
// out[i] = static_cast<To>(in[i]), as C++ converts (float to integer truncates).
void launch_cast(ElementType from, const void* in, ElementType to, void* out, std::int64_t n, CUstream_st* stream);

}  // namespace strata::cuda
