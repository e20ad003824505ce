// What the matmul family's declarations (core/ops/matmul.cc) share with its CPU kernels
// (register_matmul_kernels): a tensor read as a matrix.
#pragma once

#include <cstdint>
#include <utility>

#include "core/shape.h"

namespace strata::ops {

// (rows, cols) of a tensor read as a matrix: product of leading dims, last dim.
std::pair<std::int64_t, std::int64_t> as_matrix(const Shape& s);

}  // namespace strata::ops
