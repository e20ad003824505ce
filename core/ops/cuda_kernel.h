// How an op family names its CUDA kernel, once, in the OpDef beside the CPU kernel:
//
//   .cuda_kernel = STRATA_CUDA_KERNEL(cuda::matmul),
//
// is that kernel in a build with the CUDA backend (STRATA_WITH_CUDA) and no kernel
// otherwise. Without CUDA the argument is dropped unseen, so the kernels declared in
// core/cuda/ need no stand-ins in that build. A kernel written on cuDNN (defined in
// core/cuda/cudnn_*.cc) is named with STRATA_CUDNN_KERNEL instead: no kernel in a CUDA
// build that did not find cuDNN (STRATA_WITH_CUDNN), so compile refuses the op by name.
#pragma once

#include "core/op_registry.h"

#ifdef STRATA_WITH_CUDA
#define STRATA_CUDA_KERNEL(...) ::strata::KernelFn(__VA_ARGS__)
#else
#define STRATA_CUDA_KERNEL(...) ::strata::KernelFn()
#endif

#if defined(STRATA_WITH_CUDA) && defined(STRATA_WITH_CUDNN)
#define STRATA_CUDNN_KERNEL(...) ::strata::KernelFn(__VA_ARGS__)
#else
#define STRATA_CUDNN_KERNEL(...) ::strata::KernelFn()
#endif
