// The integer CUDA kernels: grid-stride kernels per shape of access (flat, strided
// broadcast), templated on the op and the element type, each element computed by
// core/integer_math.h as the CPU kernels compute it (core/cpu/kernels/integer.cc).
#include <cuda_runtime.h>

#include <type_traits>

#include "core/cuda/grid_stride.cuh"
#include "core/cuda/integer_launch.h"

namespace strata::cuda {

namespace {

using integer_math::IntegerOp;

template <IntegerOp op, typename T>
__global__ void integer_flat(const T* a, std::int64_t a_step, const T* b, std::int64_t b_step, T* out,
                             std::int64_t n) {
  for (std::int64_t i = first_index(); i < n; i += grid_stride())
    out[i] = integer_math::apply(op, a[i * a_step], b[i * b_step]);
}

template <IntegerOp op, typename T>
__global__ void integer_strided(const T* a, const T* b, T* out, std::int64_t n, BroadcastIndex index) {
  for (std::int64_t i = first_index(); i < n; i += grid_stride()) {
    std::int64_t rem = i, offset_a = 0, offset_b = 0;
    for (int d = index.rank - 1; d >= 0; --d) {
      const std::int64_t k = rem % index.dims[d];
      rem /= index.dims[d];
      offset_a += k * index.a_strides[d];
      offset_b += k * index.b_strides[d];
    }
    out[i] = integer_math::apply(op, a[offset_a], b[offset_b]);
  }
}

template <typename T>
__global__ void bitwise_not_flat(const T* x, T* out, std::int64_t n) {
  for (std::int64_t i = first_index(); i < n; i += grid_stride()) out[i] = static_cast<T>(~x[i]);
}

template <IntegerOp op>
using OpTag = std::integral_constant<IntegerOp, op>;

// launch(OpTag<op>{}): the op as a compile-time constant of the kernel's template.
template <typename Launch>
void with_op(IntegerOp op, Launch launch) {
  switch (op) {
    case IntegerOp::bitwise_and: return launch(OpTag<IntegerOp::bitwise_and>{});
    case IntegerOp::bitwise_or: return launch(OpTag<IntegerOp::bitwise_or>{});
    case IntegerOp::bitwise_xor: return launch(OpTag<IntegerOp::bitwise_xor>{});
    case IntegerOp::left_shift: return launch(OpTag<IntegerOp::left_shift>{});
    case IntegerOp::right_shift: return launch(OpTag<IntegerOp::right_shift>{});
    case IntegerOp::gcd: return launch(OpTag<IntegerOp::gcd>{});
    case IntegerOp::lcm: return launch(OpTag<IntegerOp::lcm>{});
  }
}

template <typename T>
void binary_typed(IntegerOp op, const void* a, bool a_full, const void* b, bool b_full, void* out, std::int64_t n,
                  CUstream_st* stream) {
  with_op(op, [&](auto tag) {
    integer_flat<decltype(tag)::value, T><<<blocks_for(n), kThreads, 0, stream>>>(static_cast<const T*>(a), a_full ? 1 : 0,
                                                                  static_cast<const T*>(b), b_full ? 1 : 0,
                                                                  static_cast<T*>(out), n);
  });
}

template <typename T>
void broadcast_typed(IntegerOp op, const void* a, const void* b, void* out, std::int64_t n, const BroadcastIndex& index,
                     CUstream_st* stream) {
  with_op(op, [&](auto tag) {
    integer_strided<decltype(tag)::value, T><<<blocks_for(n), kThreads, 0, stream>>>(
        static_cast<const T*>(a), static_cast<const T*>(b), static_cast<T*>(out), n, index);
  });
}

}  // namespace

void launch_integer_binary(IntegerOp op, ElementType type, const void* a, bool a_full, const void* b, bool b_full,
                           void* out, std::int64_t n, CUstream_st* stream) {
  if (n == 0) return;
  if (type == ElementType::int32) binary_typed<std::int32_t>(op, a, a_full, b, b_full, out, n, stream);
  else binary_typed<std::int64_t>(op, a, a_full, b, b_full, out, n, stream);
}

void launch_integer_binary_broadcast(IntegerOp op, ElementType type, const void* a, const void* b, void* out,
                                     std::int64_t n, const BroadcastIndex& index, CUstream_st* stream) {
  if (n == 0) return;
  if (type == ElementType::int32) broadcast_typed<std::int32_t>(op, a, b, out, n, index, stream);
  else broadcast_typed<std::int64_t>(op, a, b, out, n, index, stream);
}

void launch_bitwise_not(ElementType type, const void* x, void* out, std::int64_t n, CUstream_st* stream) {
  if (n == 0) return;
  if (type == ElementType::int32) {
    bitwise_not_flat<<<blocks_for(n), kThreads, 0, stream>>>(static_cast<const std::int32_t*>(x),
                                                              static_cast<std::int32_t*>(out), n);
  } else {
    bitwise_not_flat<<<blocks_for(n), kThreads, 0, stream>>>(static_cast<const std::int64_t*>(x),
                                                              static_cast<std::int64_t*>(out), n);
  }
}

}  // namespace strata::cuda
