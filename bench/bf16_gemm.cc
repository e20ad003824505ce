// strata_bf16_gemm: the bfloat16 product (cpu::gemm_bf16, issue #39) against Strata's
// float32 product of the same shape (cpu::gemm_prepacked), both with B packed once as a
// layer's weights are, on two threads. Per shape, rounds alternate the two; each round's
// best of 5 calls, then the median round and the spread of the ratios over rounds. Prints
// the paths taken (STRATA_CPU_ISA=avx2 forces the float path for both).
//   build/bench/strata_bf16_gemm [rounds, default 7]
#include <algorithm>
#include <cstdio>
#include <cstdlib>
#include <string>
#include <vector>

#include "bench/product_timing.h"
#include "core/cpu/bf16_gemm.h"
#include "core/cpu/cpu_isa.h"
#include "core/cpu/gemm.h"
#include "core/cpu/packed_gemm.h"
#include "core/cpu/parallel.h"

namespace {

// The bench's MLP at batch 32 and 128, a Transformer block's feed-forward layer and a
// square product.
constexpr strata::bench::ProductShape kShapes[] = {{32, 256, 784, "MLP layer 1, batch 32"}, {128, 256, 784, "MLP layer 1, batch 128"},
                             {128, 256, 256, "MLP layer 2, batch 128"}, {64, 1024, 256, "FFN up, 64 tokens"},
                             {64, 256, 1024, "FFN down, 64 tokens"},    {512, 1024, 1024, "512x1024x1024"}};

}  // namespace

int main(int argc, char** argv) {
  using namespace strata;
  using bench::best_seconds;
  using bench::median;
  const int rounds = argc > 1 ? std::max(1, std::atoi(argv[1])) : 7;
  constexpr int kThreads = 2, kCalls = 5;
  cpu::set_num_threads(kThreads);
  std::printf("bfloat16 path: %s; float path: %s\n", cpu::bf16_path_name(cpu::bf16_path()),
              cpu::kernel_isa_description().c_str());
  std::printf("%-24s %10s %10s  %-22s\n", "shape (m x n x k)", "bf16 us", "f32 us", "f32/bf16 (min-max)");
  // The two products timed in turns, `rounds` times (each round's best of kCalls calls):
  // the medians and the spread of the ratios.
  const auto time_in_turns = [&](const std::string& shape, const char* what, const auto& bf16_call,
                                 const auto& float_call) {
    std::vector<double> t16, tf, ratio;
    for (int r = 0; r < rounds; ++r) {
      t16.push_back(best_seconds(bf16_call, kCalls));
      tf.push_back(best_seconds(float_call, kCalls));
      ratio.push_back(tf.back() / t16.back());
    }
    std::printf("%-24s %10.1f %10.1f  %-22s  %s\n", shape.c_str(), median(t16) * 1e6, median(tf) * 1e6,
                bench::ratio_range(ratio).c_str(), what);
  };
  for (const bench::ProductShape& s : kShapes) {
    std::vector<float> a(static_cast<std::size_t>(s.m * s.k)), b(static_cast<std::size_t>(s.k * s.n)),
        c(static_cast<std::size_t>(s.m * s.n));
    for (std::size_t i = 0; i < a.size(); ++i) a[i] = static_cast<float>(i * 37 % 255) / 127.f - 1.f;
    for (std::size_t i = 0; i < b.size(); ++i) b[i] = static_cast<float>(i * 91 % 255) / 127.f - 1.f;
    const cpu::Bf16PackedB packed16(s.k, s.n, b.data(), s.n);
    const bench::FloatProduct float_product(s.m, s.n, s.k, b.data());
    time_in_turns(bench::shape_label(s.m, s.n, s.k), s.what,
                  [&] { cpu::gemm_bf16(s.m, a.data(), s.k, packed16, c.data(), s.n); },
                  [&] { float_product(a.data(), c.data()); });
  }
  // A training step's products: the operands change every step, so B is packed on every
  // call (Bf16PackedB::pack; the float GEMM packs its blocks as it goes), and the
  // backward products read an operand transposed (ops::matmul's transpose_a/_b).
  std::printf("\ntraining products, B packed on every call (A' = A transposed):\n");
  struct TrainingShape {
    std::int64_t m, n, k;
    bool ta, tb;
    const char* what;
  };
  constexpr TrainingShape kTraining[] = {{128, 256, 784, false, false, "MLP layer 1 forward, batch 128"},
                                         {128, 256, 256, false, true, "MLP layer 2 dx = dy . W'"},
                                         {784, 256, 128, true, false, "MLP layer 1 dW = x' . dy"},
                                         {256, 256, 128, true, false, "MLP layer 2 dW = x' . dy"}};
  for (const TrainingShape& s : kTraining) {
    std::vector<float> a(static_cast<std::size_t>(s.m * s.k)), b(static_cast<std::size_t>(s.k * s.n)),
        c(static_cast<std::size_t>(s.m * s.n));
    for (std::size_t i = 0; i < a.size(); ++i) a[i] = static_cast<float>(i * 37 % 255) / 127.f - 1.f;
    for (std::size_t i = 0; i < b.size(); ++i) b[i] = static_cast<float>(i * 91 % 255) / 127.f - 1.f;
    const std::int64_t lda = s.ta ? s.m : s.k, ldb = s.tb ? s.k : s.n;
    cpu::Bf16PackedB packed16;
    auto bf16_call = [&] {
      packed16.pack(s.k, s.n, b.data(), ldb, s.tb);
      cpu::gemm_bf16(s.m, a.data(), lda, packed16, c.data(), s.n, s.ta);
    };
    auto float_call = [&] { cpu::gemm(s.ta, s.tb, s.m, s.n, s.k, a.data(), lda, b.data(), ldb, c.data(), s.n); };
    const std::string suffix = std::string(s.ta ? " A'" : "") + (s.tb ? " B'" : "");
    time_in_turns(bench::shape_label(s.m, s.n, s.k, suffix.c_str()), s.what, bf16_call, float_call);
  }
  return 0;
}
