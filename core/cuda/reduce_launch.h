// Launcher of the reduction CUDA kernels (core/cuda/reduce.cu), called by
// core/cuda/reduce_kernels.cc. Plain pointers and sizes only. Enqueues on `stream` and
// returns at once; launch errors are for the caller to check.
#pragma once

#include <cstdint>

#include "core/cuda/elementwise_launch.h"  // kMaxLaunchRank

struct CUstream_st;

namespace strata::cuda {

enum class ReduceKind { sum, max };

// Where an output element's inputs are: the output's flat index runs over the kept dims
// (row-major), a reduced element's index over the reduced dims; each dim's stride is the
// input's, in elements.
struct ReduceIndex {
  int kept_rank = 0;
  std::int64_t kept_dims[kMaxLaunchRank] = {};
  std::int64_t kept_strides[kMaxLaunchRank] = {};
  int reduced_rank = 0;
  std::int64_t reduced_dims[kMaxLaunchRank] = {};
  std::int64_t reduced_strides[kMaxLaunchRank] = {};
};

// out[o] = scale * (sum or max over the reduced_count inputs of output o), for every o <
// out_count. A sum over nothing is 0, a max over nothing -inf.
void launch_reduce(ReduceKind kind, const float* in, float* out, std::int64_t out_count, std::int64_t reduced_count,
                   const ReduceIndex& index, float scale, CUstream_st* stream);

// Where each output element's one input is: the output's dims, and the input's strides
// read at the output's indices (0 on the dims the input was reduced over).
struct ExpandIndex {
  int rank = 0;
  std::int64_t dims[kMaxLaunchRank] = {};
  std::int64_t in_strides[kMaxLaunchRank] = {};
};

// out[o] = scale * in[offset of o], for every o < out_count: a reduction's gradient
// spread back over the reduced dims (expand_to).
void launch_expand(const float* in, float* out, std::int64_t out_count, const ExpandIndex& index, float scale,
                   CUstream_st* stream);

// out[o] = the position of the first largest of lane o's n elements, for every o < lanes:
// lane o starts at (o / inner) * n * inner + o % inner and its elements are `inner` apart.
// The CPU kernel's scan: an element replaces the best so far only when it is greater (so
// ties keep the first, and a NaN never replaces a number); an empty lane gives 0.
void launch_argmax(const float* x, std::int64_t* out, std::int64_t lanes, std::int64_t n, std::int64_t inner,
                   CUstream_st* stream);

}  // namespace strata::cuda
