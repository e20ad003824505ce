// 3×3 convolutions of stride 1 by Winograd's minimal filtering F(4×4, 3×3) (Lavin and
// Gray, "Fast Algorithms for Convolutional Neural Networks", 2016): each 4×4 block of
// outputs comes from a 6×6 block of inputs with 36 multiplications per pair of input and
// output channels instead of im2col's 144. The input blocks and the kernel are
// transformed (Bᵀ·d·B and G·g·Gᵀ), 36 products (one per point of the 6×6 transform,
// tiles × C times C × O) multiply them on the packed GEMM, and each product block is
// transformed back (Aᵀ·m·A), with the convolution's epilogue applied as it is written.
// ResNet50's 3×3 convolutions are all of this kind. Which shapes take it instead of
// im2col + GEMM was measured (winograd_applies, docs/performance.md); its sums differ from
// im2col's in rounding only (tests/core/winograd_conv_test.cc bounds the difference).
#pragma once

#include <array>
#include <cstdint>
#include <vector>

#include "core/cpu/epilogue.h"
#include "core/cpu/packed_gemm.h"
#include "core/ops/conv_ops.h"

namespace strata::cpu {

// Points of the 6×6 transform: one product each.
inline constexpr int kWinogradPoints = 36;

// A 3×3 window, stride and dilation 1, one group: the convolutions Winograd can compute.
bool winograd_supports(const ops::Conv2DGeometry& g);

// Whether the conv2d kernel computes `g` by Winograd: supported, and a shape where it
// measured faster than im2col + GEMM on this project's machines (the rule and the
// figures: docs/performance.md, "3×3 convolutions"). STRATA_WINOGRAD=0 turns it off.
bool winograd_applies(const ops::Conv2DGeometry& g);

// A 3×3 kernel (HWIO: 3, 3, C, O) transformed: for each of the 36 points a C×O matrix
// G·g·Gᵀ, packed for the GEMM where the packed kernel is available.
class WinogradKernel {
 public:
  void transform(const float* kernel, std::int64_t c, std::int64_t o);
  std::int64_t c() const { return c_; }
  std::int64_t o() const { return o_; }
  bool empty() const { return o_ == 0; }
  // The path that packed it (Isa::kPortable when unpacked): a switch of path redoes it.
  Isa isa() const { return isa_; }

  // m (rows × O, row stride ldm) = v (rows × C, row stride ldv) · U of `point`, on the
  // calling thread.
  void multiply(int point, std::int64_t rows, const float* v, std::int64_t ldv, float* m, std::int64_t ldm) const;

 private:
  std::vector<float> u_;  // 36 × C × O, the points' matrices one after the other
  std::array<PackedB, kWinogradPoints> packed_;
  bool use_packed_ = false;
  std::int64_t c_ = 0, o_ = 0;
  Isa isa_ = Isa::kPortable;
};

// y = conv(x, the kernel `u` holds) over g (NHWC, winograd_supports(g)), then the epilogue
// (bias, residual, activation) on each output block as it is written. In parallel on the
// worker pool.
void winograd_conv2d(const ops::Conv2DGeometry& g, const float* x, const WinogradKernel& u, float* y,
                     const Epilogue& epilogue);

// The kernel's gradient, dk (3, 3, C, O), of the same convolution from x and dy: each
// block's inputs transformed as above (Bᵀ·d·B) and its output gradient by the adjoint of
// the output transform (A·dY·Aᵀ), 36 products summed over the blocks (the transformed
// kernel's gradient), and Gᵀ·dU·G back to the 3×3 taps. In parallel on the worker pool;
// the same bits on any thread count.
void winograd_conv2d_filter_grad(const ops::Conv2DGeometry& g, const float* x, const float* dy, float* dk);

}  // namespace strata::cpu
