// Launchers of the data-movement CUDA kernels the convolutions need around cuDNN
// (core/cuda/conv.cu), called by core/cuda/cudnn_conv_kernels.cc. Plain pointers and
// sizes only. Each enqueues on `stream` and returns at once; an empty output launches
// nothing. Launch errors are for the caller to check.
#pragma once

#include <cstdint>

struct CUstream_st;

namespace strata::cuda {

// An NDHWC tensor and a window on a larger one: the small tensor's (n, d, h, w, c) sits at
// planes [front, front + d), rows [top, top + h) and columns [left, left + w) of the large
// one (n, big_d, big_h, big_w, c). An NHWC tensor (conv2d) is one plane: d = big_d = 1.
struct PadShape {
  std::int64_t n = 0, d = 1, h = 0, w = 0, c = 0;
  std::int64_t big_d = 1, big_h = 0, big_w = 0;
  std::int64_t front = 0, top = 0, left = 0;
};

// big = small placed at (front, top, left), every other element 0 (the convolution's
// padding, made explicit where cuDNN's symmetric padding cannot express it). Writes all
// of big.
void launch_pad_channels_last(const float* small, float* big, const PadShape& shape, CUstream_st* stream);
// small = the window of big at (front, top, left): the adjoint of the padding, for dx.
void launch_crop_channels_last(const float* big, float* small, const PadShape& shape, CUstream_st* stream);
// out (cols x rows) = in (rows x cols) transposed, both row-major: Keras's kernel
// (kh, kw, C/groups, O) read as (kh·kw·C/groups) x O, to cuDNN's KRSC filter O x
// (kh·kw·C/groups), and back for the filter gradient (conv3d's (kd, kh, kw, C/groups, O)
// to KTRSC alike).
void launch_transpose(const float* in, float* out, std::int64_t rows, std::int64_t cols, CUstream_st* stream);

}  // namespace strata::cuda
