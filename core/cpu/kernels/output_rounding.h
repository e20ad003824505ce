// The rounding a node's output_rounding attr (core/graph.h) asks of its CPU kernel: the
// conv2d, dense and matmul kernels round their results to an emulated compute dtype as they
// write them (cpu::Epilogue::rounding), or in a pass of their own where a product takes no
// epilogue.
#pragma once

#include "core/cpu/epilogue.h"
#include "core/graph.h"

namespace strata::cpu {

inline Rounding output_rounding(const Node& node) {
  switch (output_rounding_of(node)) {
    case ComputePrecision::bfloat16:
      return Rounding::kBfloat16;
    case ComputePrecision::float16:
      return Rounding::kFloat16;
    case ComputePrecision::float32:
      break;
  }
  return Rounding::kNone;
}

}  // namespace strata::cpu
