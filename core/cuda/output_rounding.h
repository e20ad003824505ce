// A CUDA kernel's output rounded in place to the emulated compute dtype its node's
// output_rounding attr names (core/graph.h), as the rounding op after it would have: the
// conv2d, dense and matmul kernels call it after cuDNN's or cuBLAS's product. Nothing for
// a node without the attr.
#pragma once

#include <cstdint>

#include "core/cuda/check.h"
#include "core/cuda/elementwise_launch.h"
#include "core/graph.h"
#include "core/op_registry.h"

namespace strata::cuda {

inline void round_output_in_place(const KernelContext& ctx, float* y, std::int64_t n, CUstream_st* stream) {
  const ComputePrecision rounding = output_rounding_of(ctx.node);
  if (rounding == ComputePrecision::float32) return;
  launch_unary(rounding == ComputePrecision::bfloat16 ? UnaryOp::round_to_bfloat16 : UnaryOp::round_to_float16, y, y,
               n, stream);
  check_launch(ctx);
}

}  // namespace strata::cuda
