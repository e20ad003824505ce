// Launchers of the CLAHE CUDA kernels (core/cuda/clahe.cu), called by
// core/cuda/clahe_kernels.cc. Plain pointers and sizes only. Each enqueues on `stream` and
// returns at once; an empty output launches nothing. Launch errors are for the caller to
// check.
#pragma once

#include <cstdint>

#include "core/clahe_rule.h"

struct CUstream_st;

namespace strata::cuda {

// tables (batch, g.grid_h, g.grid_w, g.channels, 256): each tile's table of `images`
// (batch, g.height, g.width, g.channels), a thread per table (core/clahe_rule.h).
void launch_clahe_tables(const float* images, float* tables, std::int64_t batch, const ClaheGeometry& g,
                         CUstream_st* stream);

// out (batch, g.height, g.width, g.channels): each pixel blended from its tiles' tables, a
// thread per output element.
void launch_clahe_interpolate(const float* images, const float* tables, float* out, std::int64_t batch,
                              const ClaheGeometry& g, CUstream_st* stream);

}  // namespace strata::cuda
