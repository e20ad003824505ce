// Philox-4x32-10 and dropout's per-element rule as functions that compile for the host and
// for CUDA devices alike: the CUDA dropout kernel (core/cuda/dropout.cu) draws its masks
// through these, and tests/core/cuda_philox_test.cc checks them on the host against the
// CPU's Philox (core/rng.h) and the CPU dropout kernel, so a GPU draws the CPU's masks bit
// for bit. Plain C++ (no CUDA header): it compiles in every build.
#pragma once

#include <cstdint>

#if defined(__CUDACC__)
#define STRATA_HOST_DEVICE __host__ __device__
#else
#define STRATA_HOST_DEVICE
#endif

namespace strata::cuda {

struct PhiloxWords {
  std::uint32_t w[4];
};

// The four words of Philox-4x32-10 for `counter` under (key, stream): Philox(key,
// stream).bits(counter), computed as core/rng.cc computes it (counter words: counter low,
// counter high, stream low, stream high; key words: key low, key high).
STRATA_HOST_DEVICE inline PhiloxWords philox4x32_10(std::uint64_t counter, std::uint64_t stream, std::uint64_t key) {
  constexpr std::uint32_t kMul0 = 0xD2511F53u, kMul1 = 0xCD9E8D57u;
  constexpr std::uint32_t kKey0 = 0x9E3779B9u, kKey1 = 0xBB67AE85u;
  std::uint32_t c0 = static_cast<std::uint32_t>(counter), c1 = static_cast<std::uint32_t>(counter >> 32);
  std::uint32_t c2 = static_cast<std::uint32_t>(stream), c3 = static_cast<std::uint32_t>(stream >> 32);
  std::uint32_t k0 = static_cast<std::uint32_t>(key), k1 = static_cast<std::uint32_t>(key >> 32);
  for (int round = 0; round < 10; ++round) {
    const std::uint64_t p0 = static_cast<std::uint64_t>(kMul0) * c0;
    const std::uint64_t p1 = static_cast<std::uint64_t>(kMul1) * c2;
    const std::uint32_t hi0 = static_cast<std::uint32_t>(p0 >> 32), lo0 = static_cast<std::uint32_t>(p0);
    const std::uint32_t hi1 = static_cast<std::uint32_t>(p1 >> 32), lo1 = static_cast<std::uint32_t>(p1);
    c0 = hi1 ^ c1 ^ k0;
    c1 = lo1;
    c2 = hi0 ^ c3 ^ k1;
    c3 = lo0;
    k0 += kKey0;
    k1 += kKey1;
  }
  return PhiloxWords{{c0, c1, c2, c3}};
}

// What one dropout draw needs: the Philox key and stream of the node's step (the CPU's
// mix_seed(seed, step) and the node's stream), the rate, and 1 / (1 - rate) as the CPU
// kernel rounds it.
struct DropoutDraw {
  std::uint64_t key = 0;
  std::uint64_t stream = 0;
  float rate = 0.f;
  float keep_scale = 1.f;
};

// Dropout of the elements that Philox block `block` covers. Elements are numbered in the
// step's global batch: element g (= first + i for x[i]) takes word g % 4 of block g / 4,
// and is kept, scaled by keep_scale, where that word's uniform (its top 24 bits times
// 2^-24, exact in float) is >= rate; else it is 0. Writes out[i] for the (up to four)
// i < n whose g falls in the block.
STRATA_HOST_DEVICE inline void dropout_block(const float* x, float* out, std::int64_t first, std::int64_t n,
                                             std::int64_t block, const DropoutDraw& draw) {
  const PhiloxWords words = philox4x32_10(static_cast<std::uint64_t>(block), draw.stream, draw.key);
  for (int j = 0; j < 4; ++j) {
    const std::int64_t i = block * 4 + j - first;
    if (i < 0 || i >= n) continue;
    const float uniform = static_cast<float>(words.w[j] >> 8) * (1.0f / 16777216.0f);
    out[i] = uniform >= draw.rate ? x[i] * draw.keep_scale : 0.f;
  }
}

}  // namespace strata::cuda
