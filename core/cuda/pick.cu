// The sparse-label CUDA kernels: pick reads each row's labelled class, unpick (its
// gradient) writes it back into a row of zeros. One grid-stride kernel each, templated on
// the labels' type. A kernel cannot throw as the CPU kernel does on a label outside
// [0, classes) (or a float label that is no whole number): it writes NaN there instead,
// as TensorFlow's GPU kernels do, so the loss shows it.
#include <cuda_runtime.h>
#include <math_constants.h>

#include <cstdint>

#include "core/cuda/class_label.cuh"
#include "core/cuda/element_dispatch.cuh"
#include "core/cuda/grid_stride.cuh"
#include "core/cuda/pick_launch.h"

namespace strata::cuda {

namespace {

template <typename L>
__global__ void pick_kernel(const float* x, const L* labels, float* out, std::int64_t rows, std::int64_t classes) {
  for (std::int64_t i = first_index(); i < rows; i += grid_stride()) {
    const std::int64_t c = class_of(labels[i], classes);
    out[i] = c < 0 ? CUDART_NAN_F : x[i * classes + c];
  }
}

// A thread per output element: no zero fill first, no write shared by two threads.
template <typename L>
__global__ void unpick_kernel(const float* g, const L* labels, float* out, std::int64_t n, std::int64_t classes) {
  for (std::int64_t o = first_index(); o < n; o += grid_stride()) {
    const std::int64_t row = o / classes;
    const std::int64_t c = class_of(labels[row], classes);
    out[o] = c < 0 ? CUDART_NAN_F : (o - row * classes == c ? g[row] : 0.f);
  }
}

}  // namespace

void launch_pick(const float* x, const void* labels, ElementType label_type, float* out, std::int64_t rows,
                 std::int64_t classes, CUstream_st* stream) {
  if (rows == 0) return;
  with_elements(labels, label_type, [&](const auto* typed) {
    pick_kernel<<<blocks_for(rows), kThreads, 0, stream>>>(x, typed, out, rows, classes);
  });
}

void launch_unpick(const float* g, const void* labels, ElementType label_type, float* out, std::int64_t rows,
                   std::int64_t classes, CUstream_st* stream) {
  const std::int64_t n = rows * classes;
  if (n == 0) return;
  with_elements(labels, label_type, [&](const auto* typed) {
    unpick_kernel<<<blocks_for(n), kThreads, 0, stream>>>(g, typed, out, n, classes);
  });
}

}  // namespace strata::cuda
