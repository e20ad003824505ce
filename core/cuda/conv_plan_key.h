// What a cuDNN convolution plan (core/cuda/cudnn_conv_plan_cache.h) depends on, as a key:
// the pass (forward, input gradient, filter gradient) and the number of spatial axes
// (conv2d or conv3d) — together the op —, the element type, the input, filter and output
// shapes (the batch size included: a smaller last batch needs other descriptors and may
// get another algorithm), strides, dilations, pads and groups. Two nodes with equal keys
// share a plan; a node whose shapes change gets a second one. Plain C++ (no CUDA, no
// cuDNN), so that tests/core/cuda_conv_plan_cache_test.cc checks it in every build.
#pragma once

#include <algorithm>
#include <array>
#include <cstddef>
#include <cstdint>
#include <span>
#include <string>

#include "core/dtype.h"
#include "core/error.h"

namespace strata::cuda {

enum class ConvPass : std::uint8_t { forward, backward_data, backward_filter };

struct ConvPlanKey {
  static constexpr std::size_t kMaxRank = 5;     // conv3d's NDHWC
  static constexpr std::size_t kMaxSpatial = 3;  // conv3d's depth, height, width

  ConvPass pass = ConvPass::forward;
  std::uint8_t spatial_rank = 0;  // 2: conv2d, 3: conv3d
  DType dtype = DType::float32;
  // x, the kernel in Keras's layout, y; dims past a tensor's rank stay 0.
  std::array<std::int64_t, kMaxRank> input{}, filter{}, output{};
  std::array<std::int64_t, kMaxSpatial> strides{}, dilations{};
  std::array<std::int64_t, 2 * kMaxSpatial> pads{};  // before and after, per axis
  std::int64_t groups = 1;

  bool operator==(const ConvPlanKey&) const = default;
};

namespace conv_plan_key_detail {

template <std::size_t N>
void copy_into(std::array<std::int64_t, N>& to, std::span<const std::int64_t> from, const char* what) {
  if (from.size() > N) {
    throw ValueError(std::string("convolution plan key: ") + what + " has " + std::to_string(from.size()) +
                     " values, at most " + std::to_string(N) + " fit");
  }
  std::copy(from.begin(), from.end(), to.begin());
}

}  // namespace conv_plan_key_detail

// The key of one call of a convolution kernel: x, kernel and y as the op names them
// (for an input gradient, x is dx's shape; for a filter gradient, kernel is dk's), and
// the node's strides, dilations, pads and groups. Throws ValueError when a list is longer
// than conv3d's (the key holds every value or it would mistake two geometries for one).
inline ConvPlanKey conv_plan_key(ConvPass pass, DType dtype, std::span<const std::int64_t> input,
                                 std::span<const std::int64_t> filter, std::span<const std::int64_t> output,
                                 std::span<const std::int64_t> strides, std::span<const std::int64_t> dilations,
                                 std::span<const std::int64_t> pads, std::int64_t groups) {
  using conv_plan_key_detail::copy_into;
  ConvPlanKey key;
  key.pass = pass;
  key.spatial_rank = static_cast<std::uint8_t>(strides.size());
  key.dtype = dtype;
  copy_into(key.input, input, "the input shape");
  copy_into(key.filter, filter, "the kernel shape");
  copy_into(key.output, output, "the output shape");
  copy_into(key.strides, strides, "strides");
  copy_into(key.dilations, dilations, "dilations");
  copy_into(key.pads, pads, "pads");
  key.groups = groups;
  return key;
}

// Every field mixed in (splitmix64's finalizer after each), so that keys differing in
// one dimension — the usual case: another batch size — spread over the buckets.
struct ConvPlanKeyHash {
  std::size_t operator()(const ConvPlanKey& key) const noexcept {
    std::uint64_t h = 0x9e3779b97f4a7c15ULL;
    const auto mix = [&h](std::uint64_t v) {
      h ^= v + 0x9e3779b97f4a7c15ULL + (h << 6) + (h >> 2);
      h ^= h >> 30;
      h *= 0xbf58476d1ce4e5b9ULL;
      h ^= h >> 27;
      h *= 0x94d049bb133111ebULL;
      h ^= h >> 31;
    };
    mix(static_cast<std::uint64_t>(key.pass));
    mix(key.spatial_rank);
    mix(static_cast<std::uint64_t>(key.dtype));
    for (const auto* dims : {&key.input, &key.filter, &key.output}) {
      for (std::int64_t d : *dims) mix(static_cast<std::uint64_t>(d));
    }
    for (const auto* axes : {&key.strides, &key.dilations}) {
      for (std::int64_t a : *axes) mix(static_cast<std::uint64_t>(a));
    }
    for (std::int64_t p : key.pads) mix(static_cast<std::uint64_t>(p));
    mix(static_cast<std::uint64_t>(key.groups));
    return static_cast<std::size_t>(h);
  }
};

}  // namespace strata::cuda
