#include "core/rng.h"

#include <atomic>
#include <cmath>

namespace strata {

namespace {
constexpr std::uint32_t kMul0 = 0xD2511F53, kMul1 = 0xCD9E8D57;
constexpr std::uint32_t kKey0 = 0x9E3779B9, kKey1 = 0xBB67AE85;

std::atomic<std::uint64_t> g_seed{1337};
std::atomic<std::uint64_t> g_seed_counter{0};

inline void mulhilo(std::uint32_t a, std::uint32_t b, std::uint32_t& hi, std::uint32_t& lo) {
  std::uint64_t p = static_cast<std::uint64_t>(a) * b;
  hi = static_cast<std::uint32_t>(p >> 32);
  lo = static_cast<std::uint32_t>(p);
}
}  // namespace

std::array<std::uint32_t, 4> Philox::bits(std::uint64_t counter) const {
  std::array<std::uint32_t, 4> c = {static_cast<std::uint32_t>(counter),
                                    static_cast<std::uint32_t>(counter >> 32),
                                    static_cast<std::uint32_t>(stream_),
                                    static_cast<std::uint32_t>(stream_ >> 32)};
  std::uint32_t k0 = static_cast<std::uint32_t>(seed_), k1 = static_cast<std::uint32_t>(seed_ >> 32);
  for (int round = 0; round < 10; ++round) {
    std::uint32_t hi0, lo0, hi1, lo1;
    mulhilo(kMul0, c[0], hi0, lo0);
    mulhilo(kMul1, c[2], hi1, lo1);
    c = {hi1 ^ c[1] ^ k0, lo1, hi0 ^ c[3] ^ k1, lo0};
    k0 += kKey0;
    k1 += kKey1;
  }
  return c;
}

float Philox::uniform(std::uint64_t index) const {
  return to_uniform(bits(index)[0]);
}

float Philox::normal(std::uint64_t index) const {
  auto b = bits(index);
  double u1 = (static_cast<double>(b[0] >> 8) + 1.0) / 16777217.0;  // (0, 1]
  double u2 = static_cast<double>(b[1] >> 8) / 16777216.0;
  return static_cast<float>(std::sqrt(-2.0 * std::log(u1)) * std::cos(2.0 * M_PI * u2));
}

std::uint64_t stable_hash(std::string_view text) {
  std::uint64_t h = 14695981039346656037ull;  // FNV-1a 64-bit offset basis
  for (unsigned char c : text) {
    h ^= c;
    h *= 1099511628211ull;
  }
  return h;
}

std::uint64_t mix_seed(std::uint64_t a, std::uint64_t b) {
  std::uint64_t z = a + 0x9E3779B97F4A7C15ull * (b + 1);
  z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ull;
  z = (z ^ (z >> 27)) * 0x94D049BB133111EBull;
  return z ^ (z >> 31);
}

void set_random_seed(std::uint64_t seed) {
  g_seed = seed;
  g_seed_counter = 0;
}

std::uint64_t global_seed() { return g_seed; }

std::uint64_t next_seed() { return mix_seed(g_seed, g_seed_counter++); }

}  // namespace strata
