// Launchers of the sequence CUDA kernels (core/cuda/sequence.cu), called by
// core/cuda/sequence_kernels.cc: copies along the last axis (concat_last, split_last) and
// along a new time axis (repeat_vector). Plain pointers and sizes only. Each enqueues on
// `stream` and returns at once; an empty output launches nothing. Launch errors are for
// the caller to check.
#pragma once

#include <cstdint>

struct CUstream_st;

namespace strata::cuda {

// out (rows, a_cols + b_cols): each row a's row, then b's.
void launch_concat_last(const float* a, const float* b, float* out, std::int64_t rows, std::int64_t a_cols,
                        std::int64_t b_cols, CUstream_st* stream);
// The inverse: g (rows, a_cols + b_cols) split into a (rows, a_cols) and b (rows, b_cols).
void launch_split_last(const float* g, float* a, float* b, std::int64_t rows, std::int64_t a_cols,
                       std::int64_t b_cols, CUstream_st* stream);
// out (batch, times, features): x's row (batch, features) repeated `times` times.
void launch_repeat_vector(const float* x, float* out, std::int64_t batch, std::int64_t times, std::int64_t features,
                          CUstream_st* stream);

}  // namespace strata::cuda
