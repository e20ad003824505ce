// Launchers of the sparse-label CUDA kernels (core/cuda/pick.cu), called by
// core/cuda/pick_kernels.cc. Plain pointers and sizes only. Labels are float32, int32 or
// int64; a valid label is a whole number in [0, classes). Each enqueues on `stream` and
// returns at once; launch errors are for the caller to check.
#pragma once

#include <cstdint>

#include "core/cuda/element_type.h"

struct CUstream_st;

namespace strata::cuda {

// out[i] = x[i * classes + labels[i]] for i < rows; NaN where labels[i] is not valid.
void launch_pick(const float* x, const void* labels, ElementType label_type, float* out, std::int64_t rows,
                 std::int64_t classes, CUstream_st* stream);
// out[i * classes + c] = g[i] where c == labels[i], else 0, for i < rows and c <
// classes; a row whose label is not valid is NaN throughout.
void launch_unpick(const float* g, const void* labels, ElementType label_type, float* out, std::int64_t rows,
                   std::int64_t classes, CUstream_st* stream);

}  // namespace strata::cuda
