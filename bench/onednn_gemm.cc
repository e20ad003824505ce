// oneDNN's sgemm as the suite's second reference library for cpu::gemm (issue #17: GEMM
// at the speed of the best of OpenBLAS and oneDNN). Built when CMake finds oneDNN
// (Debian: libdnnl-dev); the library itself never links it: dnnl_sgemm allocates its
// packing buffers on every call, which a training step must not (docs/performance.md).
#include <omp.h>

#include <vector>

#include "bench/workload.h"

#if defined(STRATA_BENCH_WITH_ONEDNN)
#include <dnnl.h>
#endif

namespace strata::bench {

#if defined(STRATA_BENCH_WITH_ONEDNN)

bool onednn_gemm_available() { return true; }

double onednn_gemm_gflops(const GemmShape& g, int calls, int threads) {
  std::vector<float> a(static_cast<std::size_t>(g.m * g.k), 0.5f), b(static_cast<std::size_t>(g.k * g.n), 0.25f),
      c(static_cast<std::size_t>(g.m * g.n));
  const std::int64_t lda = g.transpose_a ? g.m : g.k, ldb = g.transpose_b ? g.k : g.n;
  const char ta = g.transpose_a ? 'T' : 'N', tb = g.transpose_b ? 'T' : 'N';
  // dnnl_sgemm takes row-major operands, as cpu::gemm does. It threads with OpenMP: at
  // the suite's thread count for this measurement only.
  const int saved = omp_get_max_threads();
  omp_set_num_threads(threads);
  const double s = median_seconds(
      [&] { dnnl_sgemm(ta, tb, g.m, g.n, g.k, 1.f, a.data(), lda, b.data(), ldb, 0.f, c.data(), g.n); }, calls);
  omp_set_num_threads(saved);
  return g.flops() / s / 1e9;
}

#else

bool onednn_gemm_available() { return false; }
double onednn_gemm_gflops(const GemmShape&, int, int) { return 0; }

#endif

}  // namespace strata::bench
