// How an op family names its CUDA kernel, once, in the OpDef beside the CPU kernel:
//
//   .cuda_kernel = STRATA_CUDA_KERNEL(cuda::matmul),
//
// is that kernel in a build with the CUDA backend (STRATA_WITH_CUDA) and no kernel
// otherwise. Without CUDA the argument is dropped unseen, so the kernels declared in
// core/cuda/ need no stand-ins in that build.
#pragma once

#include "core/op_registry.h"

#ifdef STRATA_WITH_CUDA
#define STRATA_CUDA_KERNEL(...) ::strata::KernelFn(__VA_ARGS__)
#else
#define STRATA_CUDA_KERNEL(...) ::strata::KernelFn()
#endif
