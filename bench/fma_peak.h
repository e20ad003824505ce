// The machine's single-precision FMA peak: what its vector units can do when every
// operation is a fused multiply-add and nothing waits on memory. The suite reports the
// training throughputs as shares of it, so runs on different machines can be compared.
#pragma once

#include <vector>

namespace strata::bench {

struct FmaPeakOptions {
  int threads = 1;                // run on this many threads at once
  int trials = 7;                 // timed trials after one calibration run
  double seconds_per_trial = 0.03;
};

// GFLOP/s of each trial (2 flops per FMA lane), all threads together.
std::vector<double> measure_fma_peak_gflops(const FmaPeakOptions& options);

// The instructions the kernel was compiled to: "AVX-512 (16 lanes)", "AVX2/FMA (8
// lanes)", or "scalar multiply-add" when the compiler targeted neither.
const char* fma_peak_instructions();

}  // namespace strata::bench
