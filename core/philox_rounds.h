// Philox-4x32-10's rounds as one function that compiles for the host and for CUDA
// devices alike: the CPU's Philox (core/rng.h) and the CUDA dropout and random-normal
// kernels (core/cuda/philox.h) all draw through it, so a GPU draws the CPU's numbers (bit
// for bit where the arithmetic is exact). Plain C++ without CUDA headers: every build
// compiles it.
#pragma once

#include <array>
#include <cmath>
#include <cstdint>

#if defined(__CUDACC__)
#define STRATA_HOST_DEVICE __host__ __device__
#else
#define STRATA_HOST_DEVICE
#endif

namespace strata {

// SplitMix64's finalizer over a + golden * (b + 1): the CPU's mix_seed (core/rng.h), here
// so that a CUDA kernel derives a step's dropout key on the device (core/cuda/philox.h).
STRATA_HOST_DEVICE inline std::uint64_t mix_seed_bits(std::uint64_t a, std::uint64_t b) {
  std::uint64_t z = a + 0x9E3779B97F4A7C15ull * (b + 1);
  z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ull;
  z = (z ^ (z >> 27)) * 0x94D049BB133111EBull;
  return z ^ (z >> 31);
}

// The round multipliers and the key increments (Weyl constants) of Philox-4x32.
inline constexpr std::uint32_t kPhiloxMul0 = 0xD2511F53u, kPhiloxMul1 = 0xCD9E8D57u;
inline constexpr std::uint32_t kPhiloxKey0 = 0x9E3779B9u, kPhiloxKey1 = 0xBB67AE85u;

struct PhiloxWords {
  std::uint32_t w[4];
};

// The four words of Philox-4x32-10 for `counter` under (key, stream). Counter words:
// counter low, counter high, stream low, stream high; key words: key low, key high.
STRATA_HOST_DEVICE inline PhiloxWords philox4x32_10(std::uint64_t counter, std::uint64_t stream, std::uint64_t key) {
  std::uint32_t c0 = static_cast<std::uint32_t>(counter), c1 = static_cast<std::uint32_t>(counter >> 32);
  std::uint32_t c2 = static_cast<std::uint32_t>(stream), c3 = static_cast<std::uint32_t>(stream >> 32);
  std::uint32_t k0 = static_cast<std::uint32_t>(key), k1 = static_cast<std::uint32_t>(key >> 32);
  for (int round = 0; round < 10; ++round) {
    const std::uint64_t p0 = static_cast<std::uint64_t>(kPhiloxMul0) * c0;
    const std::uint64_t p1 = static_cast<std::uint64_t>(kPhiloxMul1) * c2;
    const std::uint32_t hi0 = static_cast<std::uint32_t>(p0 >> 32), lo0 = static_cast<std::uint32_t>(p0);
    const std::uint32_t hi1 = static_cast<std::uint32_t>(p1 >> 32), lo1 = static_cast<std::uint32_t>(p1);
    c0 = hi1 ^ c1 ^ k0;
    c1 = lo1;
    c2 = hi0 ^ c3 ^ k1;
    c3 = lo0;
    k0 += kPhiloxKey0;
    k1 += kPhiloxKey1;
  }
  return PhiloxWords{{c0, c1, c2, c3}};
}

// A word as a uniform float in [0, 1): its top 24 bits give every float on a uniform
// grid (exact in float), never 1.0.
STRATA_HOST_DEVICE inline float philox_uniform(std::uint32_t word) {
  return static_cast<float>(word >> 8) * (1.0f / 16777216.0f);
}

// Two words as a standard normal (Box-Muller, the cosine branch): u1 = (top 24 bits of a
// + 1) / (2^24 + 1) in (0, 1], never 0 so the log is finite, and u2 = the top 24 bits of b
// times 2^-24, in double so that the only rounding to float is the last. Tails end at
// sqrt(-2 ln(1 / (2^24 + 1))) = 5.77. A CUDA device's double log and cos are within an ulp
// or two of glibc's, so its draws are the CPU's to within one rounding of the float.
STRATA_HOST_DEVICE inline float philox_normal(std::uint32_t a, std::uint32_t b) {
  const double u1 = (static_cast<double>(a >> 8) + 1.0) / 16777217.0;
  const double u2 = static_cast<double>(b >> 8) / 16777216.0;
  return static_cast<float>(std::sqrt(-2.0 * std::log(u1)) * std::cos(2.0 * 3.14159265358979323846 * u2));
}

}  // namespace strata
