// TensorFlow's stateless normal draws (tf.random.stateless_normal, StatelessRandomNormalV2
// with the Philox algorithm, which the CPU picks), reproduced: Keras's TensorFlow backend
// draws image.elastic_transform's displacement field with them, so a saved model's
// ElasticTransform computes Keras's field only through these. Not Strata's own draws
// (core/rng.h): those are keyed on the step and the stream.
//
// The seed pair (s0, s1), each sign-extended to 64 bits, is scrambled once: Philox of the
// counter (s0, s1) under the key (0x3ec8f720, 0x02461e29) gives words m; the draws' key is
// (m0, m1) and their counter starts at (0, 0, m2, m3). Element i comes from counter block
// i / 4 (its low 64 bits advanced by the block): words (0, 1) give elements 4b and 4b + 1,
// words (2, 3) elements 4b + 2 and 4b + 3, each pair by Box-Muller in float as TensorFlow's
// (u1 = max(float(a), 1e-7), v = 2π·float(b) in double then float, sin(v) and cos(v) times
// sqrt(−2 ln u1), where float(w) takes w's low 23 bits as the mantissa of a number in
// [1, 2), minus 1).
// Checked against TensorFlow 2.21's draws in tests/core/tf_stateless_random_test.cc.
#pragma once

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <cstring>
#include <numbers>

#include "core/philox_rounds.h"

namespace strata {

class TfStatelessNormal {
 public:
  TfStatelessNormal(std::int64_t seed0, std::int64_t seed1) {
    const PhiloxWords m = philox4x32_10(static_cast<std::uint64_t>(seed0), static_cast<std::uint64_t>(seed1),
                                        (std::uint64_t{0x02461e29} << 32) | 0x3ec8f720u);
    key_ = (static_cast<std::uint64_t>(m.w[1]) << 32) | m.w[0];
    counter_high_ = (static_cast<std::uint64_t>(m.w[3]) << 32) | m.w[2];
  }

  // Element i of the draws (standard normal, float32).
  float operator()(std::uint64_t i) const {
    float block[4];
    draw_block(i / 4, block);
    return block[i % 4];
  }

  // Elements 4b .. 4b + 3, from one Philox block.
  void draw_block(std::uint64_t b, float out[4]) const {
    const PhiloxWords w = philox4x32_10(b, counter_high_, key_);
    for (std::size_t pair = 0; pair < 4; pair += 2) {
      const float u1 = std::max(unit(w.w[pair]), 1.0e-7f);
      // TensorFlow's 2.0f * M_PI * u: a double product narrowed to float.
      const auto v = static_cast<float>(2.0f * std::numbers::pi * unit(w.w[pair + 1]));
      const float radius = std::sqrt(-2.0f * std::log(u1));
      out[pair] = std::sin(v) * radius;
      out[pair + 1] = std::cos(v) * radius;
    }
  }

 private:
  // TensorFlow's Uint32ToFloat: the low 23 bits as a mantissa in [1, 2), minus 1.
  static float unit(std::uint32_t word) {
    const std::uint32_t bits = (word & 0x7fffffu) | 0x3f800000u;
    float f;
    std::memcpy(&f, &bits, sizeof f);
    return f - 1.0f;
  }

  std::uint64_t key_ = 0, counter_high_ = 0;
};

}  // namespace strata
