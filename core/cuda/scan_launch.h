// Launchers of the scan CUDA kernels (core/cuda/scan.cu), called by
// core/cuda/scan_kernels.cc: x seen as (outer, n, inner) around the axis, one thread per
// (outer, inner) lane walking its n elements in order, as the CPU's kernels do (so sums
// and products round the same). Plain pointers and sizes only. Each enqueues on `stream`
// and returns at once; an empty tensor launches nothing. Launch errors are for the
// caller to check.
#pragma once

#include <cstdint>

struct CUstream_st;

namespace strata::cuda {

enum class ScanOp { sum, product };

// y = the running sum or product of x along the axis (from its end with `reverse`).
void launch_scan(ScanOp op, bool reverse, const float* x, float* y, std::int64_t outer, std::int64_t n,
                 std::int64_t inner, CUstream_st* stream);
// dx of cumprod: Π_{k<i} x_k · R_i, R_i = g_i + x_{i+1}·R_{i+1} (core/ops/scan_ops.h).
void launch_cumprod_grad(const float* x, const float* g, float* dx, std::int64_t outer, std::int64_t n,
                         std::int64_t inner, CUstream_st* stream);
// y = x with the axis reversed, a thread per element.
void launch_reverse(const float* x, float* y, std::int64_t outer, std::int64_t n, std::int64_t inner,
                    CUstream_st* stream);
// y = the positions that sort each lane (argsort, core/ops/scan_ops.h), a thread per element
// counting the elements that sort before it: its rank, where its position goes.
void launch_argsort(const float* x, std::int32_t* y, std::int64_t outer, std::int64_t n, std::int64_t inner,
                    bool descending, CUstream_st* stream);

}  // namespace strata::cuda
