// The AVX-512 intrinsics, for the kernels whose AVX-512 code is chosen when the library
// is compiled for a CPU that has them (__AVX512F__: dense_pair.cc). The GEMM and
// matrix-vector kernels choose at run time instead (core/cpu/avx512/ops.h).
#pragma once

#if defined(__AVX512F__)
#if defined(__GNUC__) && !defined(__clang__)
// GCC 12 reports its own masked-load intrinsics' internal placeholder as possibly
// uninitialized (the masked lanes are zeroed by definition).
#pragma GCC diagnostic ignored "-Wmaybe-uninitialized"
#endif
#include <immintrin.h>
#endif
