// The fused recurrent cells' activations (core/ops/rnn_cell.h's Act) on a register of
// floats, for the CPU kernels of the recurrent ops (rnn.cc) and of ConvLSTM's loop
// (conv_lstm.cc), so that both compute the same values.
#pragma once

#include <Eigen/Core>
#include <cstddef>
#include <cstdint>
#include <cstring>

#include "core/cpu/vector_math.h"
#include "core/ops/rnn_cell.h"

namespace strata::cpu {

// A cell activation on a register of floats. tanh and sigmoid through Eigen's own packet
// functions, the ones its arrays' tanh() and logistic() run: the same values the step
// computed in separate passes over Eigen arrays, each a rational function (one division,
// no exp) where simd::sigmoid takes an exp and a division.
// A simd::Vec is one of Eigen's packets where the build targets AVX2 or AVX-512, two SSE
// packets where it targets neither (a portable build).
using EigenPacket = Eigen::internal::packet_traits<float>::type;
constexpr std::size_t kPacketsPerVec = sizeof(simd::Vec) / sizeof(EigenPacket);
static_assert(sizeof(simd::Vec) % sizeof(EigenPacket) == 0, "a simd::Vec holds whole Eigen packets");

template <typename F>
[[gnu::always_inline]] inline simd::Vec through_eigen(simd::Vec x, F f) {
  EigenPacket p[kPacketsPerVec];
  std::memcpy(p, &x, sizeof x);
  for (EigenPacket& q : p) q = f(q);
  std::memcpy(&x, p, sizeof x);
  return x;
}

[[gnu::always_inline]] inline simd::Vec act_vector(ops::Act a, simd::Vec x) {
  switch (a) {
    case ops::Act::tanh: return through_eigen(x, [](EigenPacket p) { return Eigen::internal::ptanh(p); });
    case ops::Act::sigmoid:
      return through_eigen(x, [](EigenPacket p) { return Eigen::internal::scalar_logistic_op<float>().packetOp(p); });
    case ops::Act::relu: return simd::select(x > 0.f, x, simd::Vec{});
    case ops::Act::linear: return x;
    case ops::Act::hard_sigmoid: {
      const simd::Vec lower = simd::select(x + 3.f < 0.f, simd::Vec{}, x + 3.f);  // max_of(x + 3, 0)
      return simd::select(6.f < lower, simd::splat(6.f), lower) / 6.f;
    }
    case ops::Act::hard_sigmoid_keras2: {
      const simd::Vec lower = simd::select(0.2f * x + 0.5f < 0.f, simd::Vec{}, 0.2f * x + 0.5f);
      return simd::select(1.f < lower, simd::splat(1.f), lower);
    }
  }
  return x;
}

// f(x) over n floats in place, a register at a time (the tail padded with zeros).
inline void act_in_place(ops::Act a, float* x, std::int64_t n) {
  std::int64_t j = 0;
  for (; j + simd::kLanes <= n; j += simd::kLanes) simd::store(x + j, act_vector(a, simd::load(x + j)));
  if (j < n) {
    float part[simd::kLanes] = {};
    std::memcpy(part, x + j, static_cast<std::size_t>(n - j) * sizeof(float));
    simd::store(part, act_vector(a, simd::load(part)));
    std::memcpy(x + j, part, static_cast<std::size_t>(n - j) * sizeof(float));
  }
}

}  // namespace strata::cpu
