#include "core/rng.h"

#include <atomic>

#if defined(__AVX512F__)
#include <immintrin.h>
#endif

#include "core/philox_rounds.h"

namespace strata {

namespace {
std::atomic<std::uint64_t> g_seed{1337};
std::atomic<std::uint64_t> g_seed_counter{0};
}  // namespace

std::array<std::uint32_t, 4> Philox::bits(std::uint64_t counter) const {
  const PhiloxWords words = philox4x32_10(counter, stream_, seed_);
  return {words.w[0], words.w[1], words.w[2], words.w[3]};
}

void Philox::bits16(std::uint64_t first, Words16& words) const {
#if defined(__AVX512F__)
  alignas(64) std::uint32_t lo_counter[16], hi_counter[16];
  for (int j = 0; j < 16; ++j) {
    lo_counter[j] = static_cast<std::uint32_t>(first + static_cast<std::uint64_t>(j));
    hi_counter[j] = static_cast<std::uint32_t>((first + static_cast<std::uint64_t>(j)) >> 32);
  }
  __m512i c0 = _mm512_load_si512(lo_counter), c1 = _mm512_load_si512(hi_counter);
  __m512i c2 = _mm512_set1_epi32(static_cast<int>(static_cast<std::uint32_t>(stream_)));
  __m512i c3 = _mm512_set1_epi32(static_cast<int>(static_cast<std::uint32_t>(stream_ >> 32)));
  std::uint32_t k0 = static_cast<std::uint32_t>(seed_), k1 = static_cast<std::uint32_t>(seed_ >> 32);
  const __m512i mul0 = _mm512_set1_epi32(static_cast<int>(kPhiloxMul0)), mul1 = _mm512_set1_epi32(static_cast<int>(kPhiloxMul1));
  // hi and lo 32 bits of a·m in each lane: _mm512_mul_epu32 multiplies the even lanes
  // into 64 bits; the odd lanes are shifted down and multiplied the same way.
  auto mulhilo = [](__m512i a, __m512i m, __m512i& hi, __m512i& lo) {
    lo = _mm512_mullo_epi32(a, m);
    const __m512i even = _mm512_mul_epu32(a, m);
    const __m512i odd = _mm512_mul_epu32(_mm512_srli_epi64(a, 32), m);
    hi = _mm512_mask_blend_epi32(__mmask16(0xAAAA), _mm512_srli_epi64(even, 32), odd);
  };
  for (int round = 0; round < 10; ++round) {
    __m512i hi0, lo0, hi1, lo1;
    mulhilo(c0, mul0, hi0, lo0);
    mulhilo(c2, mul1, hi1, lo1);
    const __m512i key0 = _mm512_set1_epi32(static_cast<int>(k0)), key1 = _mm512_set1_epi32(static_cast<int>(k1));
    c0 = _mm512_xor_si512(_mm512_xor_si512(hi1, c1), key0);
    c1 = lo1;
    c2 = _mm512_xor_si512(_mm512_xor_si512(hi0, c3), key1);
    c3 = lo0;
    k0 += kPhiloxKey0;
    k1 += kPhiloxKey1;
  }
  _mm512_storeu_si512(words[0].data(), c0);
  _mm512_storeu_si512(words[1].data(), c1);
  _mm512_storeu_si512(words[2].data(), c2);
  _mm512_storeu_si512(words[3].data(), c3);
#else
  for (int j = 0; j < 16; ++j) {
    const auto w = bits(first + static_cast<std::uint64_t>(j));
    for (int i = 0; i < 4; ++i) words[static_cast<std::size_t>(i)][static_cast<std::size_t>(j)] = w[static_cast<std::size_t>(i)];
  }
#endif
}

float Philox::uniform(std::uint64_t index) const {
  return to_uniform(bits(index)[0]);
}

float Philox::normal(std::uint64_t index) const {
  const auto b = bits(index);
  return to_normal(b[0], b[1]);
}

std::uint64_t stable_hash(std::string_view text) {
  std::uint64_t h = 14695981039346656037ull;  // FNV-1a 64-bit offset basis
  for (unsigned char c : text) {
    h ^= c;
    h *= 1099511628211ull;
  }
  return h;
}

std::uint64_t mix_seed(std::uint64_t a, std::uint64_t b) { return mix_seed_bits(a, b); }

void set_random_seed(std::uint64_t seed) {
  g_seed = seed;
  g_seed_counter = 0;
}

std::uint64_t global_seed() { return g_seed; }

std::uint64_t next_seed() { return mix_seed(g_seed, g_seed_counter++); }

}  // namespace strata
