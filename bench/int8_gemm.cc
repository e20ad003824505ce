// strata_int8_gemm: the int8 product (cpu::gemm_s8, issue #39) against Strata's float32
// product of the same shape (cpu::gemm_prepacked: both with B packed once, as a layer's
// weights are) and, where CMake found oneDNN, oneDNN's int8 GEMM (dnnl_gemm_s8s8s32, B
// unpacked: its packed API is not in Debian's C interface), on two threads. Per shape,
// rounds alternate the three; each round's best of 5 calls, then the median round and the
// spread of the ratios over rounds. Prints the paths taken (STRATA_CPU_ISA=avx2 forces
// the AVX2 ones; ONEDNN_MAX_CPU_ISA oneDNN's).
//   build/bench/strata_int8_gemm [rounds, default 7]
#include <algorithm>
#include <cstdio>
#include <cstdlib>
#include <vector>

#include "bench/product_timing.h"
#include "core/cpu/cpu_isa.h"
#include "core/cpu/gemm.h"
#include "core/cpu/int8_gemm.h"
#include "core/cpu/packed_gemm.h"
#include "core/cpu/parallel.h"

#if defined(STRATA_BENCH_WITH_ONEDNN)
#include <dnnl.h>
#include <omp.h>
#endif

namespace {

// The bench's MLP (784-512-256-10 at batch 1 and 32), a Transformer block's
// feed-forward layer (64 tokens, 256 -> 1024) and a square product.
constexpr strata::bench::ProductShape kShapes[] = {{1, 512, 784, "MLP layer 1, batch 1"},     {32, 512, 784, "MLP layer 1, batch 32"},
                             {32, 256, 512, "MLP layer 2, batch 32"},   {64, 1024, 256, "FFN up, 64 tokens"},
                             {64, 256, 1024, "FFN down, 64 tokens"},    {512, 1024, 1024, "512x1024x1024"}};

}  // namespace

int main(int argc, char** argv) {
  using namespace strata;
  using bench::best_seconds;
  using bench::median;
  const int rounds = argc > 1 ? std::max(1, std::atoi(argv[1])) : 7;
  constexpr int kThreads = 2, kCalls = 5;
  cpu::set_num_threads(kThreads);
  std::printf("int8 path: %s; float path: %s\n", cpu::int8_path_name(cpu::int8_path()),
              cpu::kernel_isa_description().c_str());
#if defined(STRATA_BENCH_WITH_ONEDNN)
  omp_set_num_threads(kThreads);
  std::printf("oneDNN %d.%d: dnnl_gemm_s8s8s32 (ONEDNN_MAX_CPU_ISA=%s)\n", dnnl_version()->major,
              dnnl_version()->minor, std::getenv("ONEDNN_MAX_CPU_ISA") ? std::getenv("ONEDNN_MAX_CPU_ISA") : "unset");
#else
  std::printf("oneDNN not found: no int8 reference library\n");
#endif
  std::printf("%-24s %10s %10s %10s  %-22s %-22s\n", "shape (m x n x k)", "int8 us", "f32 us", "oneDNN us",
              "f32/int8 (min-max)", "oneDNN/int8 (min-max)");
  for (const bench::ProductShape& s : kShapes) {
    std::vector<std::int8_t> a8(static_cast<std::size_t>(s.m * s.k)), b8(static_cast<std::size_t>(s.k * s.n));
    std::vector<float> af(a8.size()), bf(b8.size()), cf(static_cast<std::size_t>(s.m * s.n));
    std::vector<std::int32_t> c32(cf.size());
    for (std::size_t i = 0; i < a8.size(); ++i) af[i] = a8[i] = static_cast<std::int8_t>(i * 37 % 255 - 127);
    for (std::size_t i = 0; i < b8.size(); ++i) bf[i] = b8[i] = static_cast<std::int8_t>(i * 91 % 255 - 127);
    const cpu::Int8PackedB packed8(s.k, s.n, b8.data(), s.n);
    const bench::FloatProduct float_product(s.m, s.n, s.k, bf.data());
    auto int8_call = [&] { cpu::gemm_s8(s.m, a8.data(), s.k, packed8, c32.data(), s.n); };
    auto float_call = [&] { float_product(af.data(), cf.data()); };
    std::vector<double> t8, tf, td, ratio_f, ratio_d;
    for (int r = 0; r < rounds; ++r) {
      t8.push_back(best_seconds(int8_call, kCalls));
      tf.push_back(best_seconds(float_call, kCalls));
      ratio_f.push_back(tf.back() / t8.back());
#if defined(STRATA_BENCH_WITH_ONEDNN)
      const std::int32_t co = 0;
      td.push_back(best_seconds(
          [&] {
            dnnl_gemm_s8s8s32('N', 'N', 'F', s.m, s.n, s.k, 1.f, a8.data(), s.k, 0, b8.data(), s.n, 0, 0.f,
                              c32.data(), s.n, &co);
          },
          kCalls));
      ratio_d.push_back(td.back() / t8.back());
#endif
    }
    std::printf("%-24s %10.1f %10.1f %10.1f  %-22s %-22s  %s\n", bench::shape_label(s.m, s.n, s.k).c_str(),
                median(t8) * 1e6, median(tf) * 1e6,
                td.empty() ? 0.0 : median(td) * 1e6, bench::ratio_range(ratio_f).c_str(),
                bench::ratio_range(ratio_d).c_str(), s.what);
  }
  return 0;
}
