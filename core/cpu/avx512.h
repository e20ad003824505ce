// The AVX-512 intrinsics, for the kernels compiled for CPUs that have them
// (__AVX512F__; packed_gemm.cc, gemv.cc).
#pragma once

#if defined(__AVX512F__)
#if defined(__GNUC__) && !defined(__clang__)
// GCC 12 reports its own masked-load intrinsics' internal placeholder as possibly
// uninitialized (the masked lanes are zeroed by definition).
#pragma GCC diagnostic ignored "-Wmaybe-uninitialized"
#endif
#include <immintrin.h>
#endif
