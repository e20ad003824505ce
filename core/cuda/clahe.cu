// The CLAHE CUDA kernels: clahe_tables (a thread per tile and channel, building its table
// in place in the output) and clahe_interpolate (a thread per output element), both by the
// CPU kernels' rule (core/clahe_rule.h).
#include <cuda_runtime.h>

#include <cstdint>

#include "core/cuda/clahe_launch.h"
#include "core/cuda/grid_stride.cuh"

namespace strata::cuda {

namespace {

__global__ void clahe_tables_kernel(const float* images, float* tables, std::int64_t n, ClaheGeometry g) {
  const std::int64_t image_size = g.height * g.width * g.channels;
  for (std::int64_t t = first_index(); t < n; t += grid_stride()) {
    const std::int64_t c = t % g.channels, tx = (t / g.channels) % g.grid_w;
    const std::int64_t ty = (t / (g.channels * g.grid_w)) % g.grid_h, b = t / (g.channels * g.grid_w * g.grid_h);
    clahe_tile_table(images + b * image_size, g, ty, tx, c, tables + t * kClaheBins);
  }
}

__global__ void clahe_interpolate_kernel(const float* images, const float* tables, float* out, std::int64_t n,
                                         ClaheGeometry g) {
  const std::int64_t image_size = g.height * g.width * g.channels;
  const std::int64_t table_size = g.grid_h * g.grid_w * g.channels * kClaheBins;
  for (std::int64_t i = first_index(); i < n; i += grid_stride()) {
    const std::int64_t c = i % g.channels;
    const std::int64_t x = (i / g.channels) % g.width;
    const std::int64_t y = (i / (g.channels * g.width)) % g.height;
    const std::int64_t b = i / image_size;
    out[i] = clahe_pixel(images + b * image_size, tables + b * table_size, g, y, x, c);
  }
}

}  // namespace

void launch_clahe_tables(const float* images, float* tables, std::int64_t batch, const ClaheGeometry& g,
                         CUstream_st* stream) {
  const std::int64_t n = batch * g.grid_h * g.grid_w * g.channels;
  if (n == 0) return;
  clahe_tables_kernel<<<blocks_for(n), kThreads, 0, stream>>>(images, tables, n, g);
}

void launch_clahe_interpolate(const float* images, const float* tables, float* out, std::int64_t batch,
                              const ClaheGeometry& g, CUstream_st* stream) {
  const std::int64_t n = batch * g.height * g.width * g.channels;
  if (n == 0) return;
  clahe_interpolate_kernel<<<blocks_for(n), kThreads, 0, stream>>>(images, tables, out, n, g);
}

}  // namespace strata::cuda
