// Philox-4x32-10's rounds as one function that compiles for the host and for CUDA
// devices alike: the CPU's Philox (core/rng.h) and the CUDA dropout kernel
// (core/cuda/philox.h) both draw through it, so a GPU draws the CPU's numbers bit for bit.
// Plain C++ without CUDA headers: every build compiles it.
#pragma once

#include <array>
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

}  // namespace strata
