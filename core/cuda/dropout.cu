// The dropout CUDA kernel: a thread per Philox block, each drawing the block's four words
// once and writing the (up to four) elements they decide, with the CPU's numbering and
// rule (core/cuda/philox.h), so the masks are the CPU's bit for bit.
#include <cuda_runtime.h>

#include <cstdint>

#include "core/cuda/dropout_launch.h"
#include "core/cuda/grid_stride.cuh"

namespace strata::cuda {

namespace {

__global__ void dropout_kernel(const float* x, float* out, std::int64_t n, DropoutNode node,
                               const RunScalars* scalars) {
  const RunScalars run = *scalars;
  const DropoutDraw draw = dropout_draw(node.seed, run.step, node.stream, node.rate, node.keep_scale);
  const std::int64_t first = run.sample_offset * node.sample_size;
  // The blocks that elements first .. first + n - 1 fall in.
  const std::int64_t first_block = first / 4, blocks = (first + n - 1) / 4 - first_block + 1;
  for (std::int64_t b = first_index(); b < blocks; b += grid_stride()) {
    dropout_block(x, out, first, n, first_block + b, draw);
  }
}

}  // namespace

void launch_dropout(const float* x, float* out, std::int64_t n, const DropoutNode& node, const RunScalars* scalars,
                    CUstream_st* stream) {
  if (n == 0) return;
  // n elements span at most n / 4 + 2 Philox blocks, whatever the offset on the device.
  dropout_kernel<<<blocks_for(n / 4 + 2), kThreads, 0, stream>>>(x, out, n, node, scalars);
}

}  // namespace strata::cuda
