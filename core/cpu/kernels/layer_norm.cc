// The CPU kernel of layer_normalization_inference (core/ops/layer_norm_ops.h): each row of
// the last axis in two passes, a vector of channels at a time: its sum and its sum of
// squared deviations from the mean (the row in L1 for the second), then the output.
#include <cmath>
#include <cstdint>

#include "core/cpu/kernels/register.h"
#include "core/cpu/parallel.h"
#include "core/cpu/vector_math.h"
#include "core/op_registry.h"

namespace strata::cpu {
namespace {

// Σ row (in float lanes, then the lanes' sum; the remainder one by one).
float row_sum(const float* row, std::int64_t c) {
  simd::Vec acc{};
  std::int64_t i = 0;
  for (; i + simd::kLanes <= c; i += simd::kLanes) acc += simd::load(row + i);
  float sum = simd::sum_of_lanes(acc);
  for (; i < c; ++i) sum += row[i];
  return sum;
}

float row_squared_deviation(const float* row, std::int64_t c, float mean) {
  simd::Vec acc{};
  const simd::Vec m = simd::splat(mean);
  std::int64_t i = 0;
  for (; i + simd::kLanes <= c; i += simd::kLanes) {
    const simd::Vec d = simd::load(row + i) - m;
    acc += d * d;
  }
  float sum = simd::sum_of_lanes(acc);
  for (; i < c; ++i) sum += (row[i] - mean) * (row[i] - mean);
  return sum;
}

void layer_normalization_inference_kernel(KernelContext& ctx) {
  const bool scale = ctx.node.attrs.get<bool>("scale"), center = ctx.node.attrs.get<bool>("center");
  const float epsilon = static_cast<float>(ctx.node.attrs.get<double>("epsilon"));
  const Tensor& x = ctx.input(0);
  const float* gamma = scale ? ctx.input(1).data<float>() : nullptr;
  const float* beta = center ? ctx.input(scale ? 2 : 1).data<float>() : nullptr;
  const std::int64_t c = x.shape().dims().back();
  const std::int64_t rows = c == 0 ? 0 : x.size() / c;
  const float* px = x.data<float>();
  float* py = ctx.output(0).data<float>();
  parallel_for(rows, [&](std::int64_t r0, std::int64_t r1) {
    for (std::int64_t r = r0; r < r1; ++r) {
      const float* row = px + r * c;
      float* out = py + r * c;
      // Means as reduce_mean takes them (the sum times 1/count). The sums run in vector
      // lanes, not one by one as reduce_mean's: within a rounding of the composite's.
      const float mean = row_sum(row, c) * (1.f / static_cast<float>(c));
      const float variance = row_squared_deviation(row, c, mean) * (1.f / static_cast<float>(c));
      // The composite's order of operations: 1/√(variance + ε), times γ, then (x − mean)
      // times that, plus β.
      const float inv = 1.f / std::sqrt(variance + epsilon);
      std::int64_t i = 0;
      const simd::Vec m = simd::splat(mean), v_inv = simd::splat(inv);
      for (; i + simd::kLanes <= c; i += simd::kLanes) {
        const simd::Vec s = gamma ? v_inv * simd::load(gamma + i) : v_inv;
        simd::Vec y = (simd::load(row + i) - m) * s;
        if (beta) y += simd::load(beta + i);
        simd::store(out + i, y);
      }
      for (; i < c; ++i) {
        const float s = gamma ? inv * gamma[i] : inv;
        float y = (row[i] - mean) * s;
        if (beta) y += beta[i];
        out[i] = y;
      }
    }
  }, threshold_for(4 * c));
}

}  // namespace

void register_layer_norm_kernels(OpRegistry& r) {
  r.add_kernel("layer_normalization_inference", DeviceType::cpu, {.run = layer_normalization_inference_kernel});
}

}  // namespace strata::cpu
