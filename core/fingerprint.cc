#include "core/fingerprint.h"

#include <cstring>
#include <utility>

namespace strata {
namespace {

// FarmHash's constants (primes between 2^63 and 2^64).
constexpr std::uint64_t kP0 = 0xc3a5c85c97cb3127ULL;
constexpr std::uint64_t kP1 = 0xb492b66fbe98f273ULL;
constexpr std::uint64_t kP2 = 0x9ae16a3b2f90404fULL;

std::uint64_t load64(const char* p) {
  std::uint64_t v;
  std::memcpy(&v, p, 8);
  return v;
}
std::uint32_t load32(const char* p) {
  std::uint32_t v;
  std::memcpy(&v, p, 4);
  return v;
}
std::uint64_t rotr(std::uint64_t v, int s) { return s == 0 ? v : (v >> s) | (v << (64 - s)); }
std::uint64_t rotl(std::uint64_t v, int s) { return (v << s) | (v >> (64 - s)); }
std::uint64_t shift_mix(std::uint64_t v) { return v ^ (v >> 47); }

std::uint64_t mix16(std::uint64_t u, std::uint64_t v, std::uint64_t mul) {
  std::uint64_t a = shift_mix((u ^ v) * mul);
  std::uint64_t b = shift_mix((v ^ a) * mul);
  return b * mul;
}

std::uint64_t hash_short(const char* s, std::size_t n) {  // n <= 16
  if (n >= 8) {
    const std::uint64_t mul = kP2 + n * 2;
    const std::uint64_t a = load64(s) + kP2;
    const std::uint64_t b = load64(s + n - 8);
    return mix16(rotr(b, 37) * mul + a, (rotr(a, 25) + b) * mul, mul);
  }
  if (n >= 4) {
    const std::uint64_t mul = kP2 + n * 2;
    const std::uint64_t a = load32(s);
    return mix16(n + (a << 3), load32(s + n - 4), mul);
  }
  if (n > 0) {
    const auto first = static_cast<std::uint8_t>(s[0]);
    const auto middle = static_cast<std::uint8_t>(s[n >> 1]);
    const auto last = static_cast<std::uint8_t>(s[n - 1]);
    const std::uint32_t y = first + (static_cast<std::uint32_t>(middle) << 8);
    const std::uint32_t z = static_cast<std::uint32_t>(n) + (static_cast<std::uint32_t>(last) << 2);
    return shift_mix(y * kP2 ^ z * kP0) * kP2;
  }
  return kP2;
}

std::uint64_t hash_17_to_32(const char* s, std::size_t n) {
  const std::uint64_t mul = kP2 + n * 2;
  const std::uint64_t a = load64(s) * kP1;
  const std::uint64_t b = load64(s + 8);
  const std::uint64_t c = load64(s + n - 8) * mul;
  const std::uint64_t d = load64(s + n - 16) * kP2;
  return mix16(rotr(a + b, 43) + rotr(c, 30) + d, a + rotr(b + kP2, 18) + c, mul);
}

std::uint64_t hash_33_to_64(const char* s, std::size_t n) {
  const std::uint64_t mul = kP2 + n * 2;
  const std::uint64_t a = load64(s) * kP2;
  const std::uint64_t b = load64(s + 8);
  const std::uint64_t c = load64(s + n - 8) * mul;
  const std::uint64_t d = load64(s + n - 16) * kP2;
  const std::uint64_t y = rotr(a + b, 43) + rotr(c, 30) + d;
  const std::uint64_t z = mix16(y, a + rotr(b + kP2, 18) + c, mul);
  const std::uint64_t e = load64(s + 16) * mul;
  const std::uint64_t f = load64(s + 24);
  const std::uint64_t g = (y + load64(s + n - 32)) * mul;
  const std::uint64_t h = (z + load64(s + n - 24)) * mul;
  return mix16(rotr(e + f, 43) + rotr(g, 30) + h, e + rotr(f + a, 18) + g, mul);
}

// 16 bytes of state from 32 input bytes and two seeds.
std::pair<std::uint64_t, std::uint64_t> weak32(const char* s, std::uint64_t a, std::uint64_t b) {
  const std::uint64_t w = load64(s), x = load64(s + 8), y = load64(s + 16), z = load64(s + 24);
  a += w;
  b = rotr(b + a + z, 21);
  const std::uint64_t c = a;
  a += x;
  a += y;
  b += rotr(a, 44);
  return {a + z, b + c};
}

void sip_round(std::uint64_t& v0, std::uint64_t& v1, std::uint64_t& v2, std::uint64_t& v3) {
  v0 += v1; v1 = rotl(v1, 13); v1 ^= v0; v0 = rotl(v0, 32);
  v2 += v3; v3 = rotl(v3, 16); v3 ^= v2;
  v0 += v3; v3 = rotl(v3, 21); v3 ^= v0;
  v2 += v1; v1 = rotl(v1, 17); v1 ^= v2; v2 = rotl(v2, 32);
}

}  // namespace

std::uint64_t fingerprint64(std::string_view bytes) {
  const char* s = bytes.data();
  const std::size_t n = bytes.size();
  if (n <= 16) return hash_short(s, n);
  if (n <= 32) return hash_17_to_32(s, n);
  if (n <= 64) return hash_33_to_64(s, n);

  // Longer inputs: 64-byte blocks over 56 bytes of state, then the last 64 bytes.
  constexpr std::uint64_t seed = 81;
  std::uint64_t x = seed;
  std::uint64_t y = seed * kP1 + 113;
  std::uint64_t z = shift_mix(y * kP2 + 113) * kP2;
  std::pair<std::uint64_t, std::uint64_t> v{0, 0}, w{0, 0};
  x = x * kP2 + load64(s);
  const char* end = s + ((n - 1) / 64) * 64;
  const char* last64 = end + ((n - 1) & 63) - 63;
  do {
    x = rotr(x + y + v.first + load64(s + 8), 37) * kP1;
    y = rotr(y + v.second + load64(s + 48), 42) * kP1;
    x ^= w.second;
    y += v.first + load64(s + 40);
    z = rotr(z + w.first, 33) * kP1;
    v = weak32(s, v.second * kP1, x + w.first);
    w = weak32(s + 32, z + w.second, y + load64(s + 16));
    std::swap(z, x);
    s += 64;
  } while (s != end);
  const std::uint64_t mul = kP1 + ((z & 0xff) << 1);
  s = last64;
  w.first += ((n - 1) & 63);
  v.first += w.first;
  w.first += v.first;
  x = rotr(x + y + v.first + load64(s + 8), 37) * mul;
  y = rotr(y + v.second + load64(s + 48), 42) * mul;
  x ^= w.second * 9;
  y += v.first * 9 + load64(s + 40);
  z = rotr(z + w.first, 33) * mul;
  v = weak32(s, v.second * mul, x + w.first);
  w = weak32(s + 32, z + w.second, y + load64(s + 16));
  std::swap(z, x);
  return mix16(mix16(v.first, w.first, mul) + shift_mix(y) * kP0 + z,
               mix16(v.second, w.second, mul) + x, mul);
}

std::uint64_t siphash24(std::uint64_t key0, std::uint64_t key1, std::string_view bytes) {
  std::uint64_t v0 = key0 ^ 0x736f6d6570736575ULL;
  std::uint64_t v1 = key1 ^ 0x646f72616e646f6dULL;
  std::uint64_t v2 = key0 ^ 0x6c7967656e657261ULL;
  std::uint64_t v3 = key1 ^ 0x7465646279746573ULL;
  const std::size_t n = bytes.size();
  const std::size_t whole = n - n % 8;
  for (std::size_t i = 0; i < whole; i += 8) {
    const std::uint64_t m = load64(bytes.data() + i);
    v3 ^= m;
    sip_round(v0, v1, v2, v3);
    sip_round(v0, v1, v2, v3);
    v0 ^= m;
  }
  std::uint64_t last = static_cast<std::uint64_t>(n & 0xff) << 56;
  for (std::size_t i = whole; i < n; ++i) {
    last |= static_cast<std::uint64_t>(static_cast<std::uint8_t>(bytes[i])) << (8 * (i - whole));
  }
  v3 ^= last;
  sip_round(v0, v1, v2, v3);
  sip_round(v0, v1, v2, v3);
  v0 ^= last;
  v2 ^= 0xff;
  for (int i = 0; i < 4; ++i) sip_round(v0, v1, v2, v3);
  return v0 ^ v1 ^ v2 ^ v3;
}

std::uint64_t fingerprint_cat64(std::uint64_t first, std::uint64_t second) {
  constexpr std::uint64_t kMul = 0xc6a4a7935bd1e995ULL;
  std::uint64_t r = first ^ kMul;
  r ^= shift_mix(second * kMul) * kMul;
  r *= kMul;
  r = shift_mix(r) * kMul;
  return shift_mix(r);
}

}  // namespace strata
