// Counter-based random numbers (Philox-4x32-10). A draw is a pure function of
// (seed, stream, counter): no hidden state, so initializers, dropout masks and
// shuffles are reproducible bit for bit and resumable from a checkpoint.
#pragma once

#include <array>
#include <cstdint>
#include <string_view>

#include "core/philox_rounds.h"

namespace strata {

class Philox {
 public:
  Philox(std::uint64_t seed, std::uint64_t stream) : seed_(seed), stream_(stream) {}
  // Four independent 32-bit words for this counter.
  std::array<std::uint32_t, 4> bits(std::uint64_t counter) const;
  // The blocks of 16 consecutive counters at once, words[w][j] = bits(first + j)[w]:
  // the same numbers as bits(), computed sixteen at a time in vector registers where the
  // CPU has AVX-512 (dropout draws a block per four elements of every activation).
  using Words16 = std::array<std::array<std::uint32_t, 16>, 4>;
  void bits16(std::uint64_t first, Words16& words) const;
  // A word of bits() as a uniform float in [0, 1): its top 24 bits give every float on a
  // uniform grid, never 1.0.
  static float to_uniform(std::uint32_t word) { return philox_uniform(word); }
  // Words 0 and 1 of a block as a standard normal (Box-Muller): what normal() gives for
  // the block's counter, for kernels that draw blocks sixteen at a time (bits16).
  static float to_normal(std::uint32_t a, std::uint32_t b) { return philox_normal(a, b); }
  // Uniform float in [0, 1) for element `index`.
  float uniform(std::uint64_t index) const;
  // Standard normal for element `index` (Box-Muller on words 0 and 1 of its block).
  float normal(std::uint64_t index) const;

 private:
  std::uint64_t seed_;
  std::uint64_t stream_;
};

// A stable 64-bit hash (FNV-1a) used to derive a stream id from a name.
std::uint64_t stable_hash(std::string_view text);
// Mixes two 64-bit values into one (splitmix64 finalizer).
std::uint64_t mix_seed(std::uint64_t a, std::uint64_t b);

// The global seed, as keras.utils.set_random_seed: layers and initializers created
// without an explicit seed draw their seeds deterministically from it.
void set_random_seed(std::uint64_t seed);
std::uint64_t global_seed();
// The next seed from the global seed generator (counts calls since set_random_seed).
std::uint64_t next_seed();

}  // namespace strata
