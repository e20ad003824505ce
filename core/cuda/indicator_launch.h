// Launchers of the indicator CUDA kernels (core/cuda/indicator.cu), called by
// core/cuda/indicator_kernels.cc: tensors of zeros and ones, each element 1 where a
// condition on its position (and labels) holds. Plain pointers and sizes only. Each
// enqueues on `stream` and returns at once; an empty output launches nothing. Launch
// errors are for the caller to check.
#pragma once

#include <cstdint>

#include "core/cuda/element_type.h"

struct CUstream_st;

namespace strata::cuda {

// out (rows, classes): out[i, c] = 1 where labels[i] names class c (a whole number in
// [0, classes)), else 0; a label that names no class gives a row of zeros, as on the CPU.
void launch_one_hot(const void* labels, ElementType label_type, float* out, std::int64_t rows, std::int64_t classes,
                    CUstream_st* stream);
// out (rows, cols): out[i, j] = 1 where i >= j (a query attends to itself and earlier
// keys), else 0.
void launch_causal_mask(float* out, std::int64_t rows, std::int64_t cols, CUstream_st* stream);

}  // namespace strata::cuda
