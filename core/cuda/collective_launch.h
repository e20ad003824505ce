// Launchers of the all-reduce ops' CUDA kernels (core/cuda/collective.cu), called by
// core/cuda/collective_kernels.cc: packing a gradient bucket into the flat buffer that
// travels, and unpacking the sum. Plain pointers and sizes only. Each enqueues on
// `stream` and returns at once; an empty range launches nothing. Launch errors are for
// the caller to check.
#pragma once

#include <cstdint>

struct CUstream_st;

namespace strata::cuda {

// out[i] = in[i] * samples for i < n, or 0 when samples is 0 (a process without samples
// contributes zeros, never 0 * NaN); with samples > 0 the CPU kernel's products, bit for bit.
void launch_pack_scaled(const float* in, float* out, std::int64_t n, float samples, CUstream_st* stream);
// *at = value.
void launch_store(float* at, float value, CUstream_st* stream);
// out[i] = flat[i] * (1 / *samples), or flat[i] * 0 when *samples is not positive: the
// summed sample count read on the device, where the sum left it.
void launch_unpack_scaled(const float* flat, float* out, std::int64_t n, const float* samples, CUstream_st* stream);

}  // namespace strata::cuda
