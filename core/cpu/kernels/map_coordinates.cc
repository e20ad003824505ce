// The CPU kernels of map_coordinates and its adjoint (core/ops/map_coordinates.h): for each
// sampled point, its corners (one or two indices per axis, the first axis varying slowest, as
// Keras's itertools.product) with their weights' product, summed in that order in float32.
#include <algorithm>
#include <cmath>
#include <cstdint>
#include <cstdlib>
#include <string>
#include <vector>

#include "core/cpu/kernels/register.h"
#include "core/error.h"
#include "core/op_registry.h"

namespace strata::cpu {

namespace {

struct Sampling {
  int order = 1;
  std::string fill_mode;
  float fill_value = 0.0f;
};

Sampling sampling_of(const KernelContext& ctx) {
  return {static_cast<int>(ctx.node.attrs.get<std::int64_t>("order")), ctx.node.attrs.get<std::string>("fill_mode"),
          static_cast<float>(ctx.node.attrs.get<double>("fill_value"))};
}

// Keras's process_coordinates on an integer index of an axis of `size`: the index read, and
// whether it is inside (constant mode only marks; the others move it inside).
struct Fixed {
  std::int64_t index;
  bool valid;
};
Fixed fix_index(std::int64_t i, std::int64_t size, const std::string& mode) {
  if (mode == "constant") return {std::min(std::max<std::int64_t>(i, 0), size - 1), i >= 0 && i < size};
  if (mode == "nearest") return {std::min(std::max<std::int64_t>(i, 0), size - 1), true};
  if (mode == "wrap") return {((i % size) + size) % size, true};
  const std::int64_t m = std::llabs(i) % (2 * size);
  const bool under = m < size;
  std::int64_t c = under ? m : 2 * size - m;
  if (mode == "reflect" && !under) c -= 1;
  return {c, true};
}

// Calls visit(flat index, valid, weight product) for each corner of point p.
template <typename Visit>
void for_each_corner(const Tensor& x, const Tensor& coordinates, std::int64_t p, std::int64_t points,
                     const Sampling& s, const std::string& where, Visit visit) {
  const int rank = x.rank();
  std::int64_t lower[8];
  float weight[8][2];
  for (int a = 0; a < rank; ++a) {
    const float c = coordinates.data<float>()[a * points + p];
    // Keras's backend casts indices to int32: a coordinate beyond it (or NaN, infinite) is refused.
    if (!(std::fabs(c) < 2147483647.0f))
      throw ValueError(where + ": coordinate " + std::to_string(c) + " (axis " + std::to_string(a) +
                       ") is not a finite number within int32");
    if (s.order == 0) {
      lower[a] = static_cast<std::int64_t>(std::nearbyint(c));  // tf.round: half to even
      weight[a][0] = 1.0f;
    } else {
      const float f = std::floor(c);
      lower[a] = static_cast<std::int64_t>(f);
      weight[a][1] = c - f;
      weight[a][0] = 1.0f - weight[a][1];
    }
  }
  const int taps = s.order == 0 ? 1 : 2;
  std::int64_t corners = 1;
  for (int a = 0; a < rank; ++a) corners *= taps;
  for (std::int64_t k = 0; k < corners; ++k) {
    std::int64_t flat = 0, rest = k, stride = corners;
    bool valid = true;
    float w = 1.0f;
    for (int a = 0; a < rank; ++a) {
      stride /= taps;
      const int t = static_cast<int>(rest / stride);
      rest %= stride;
      const std::int64_t size = x.shape()[a];
      const Fixed f = fix_index(lower[a] + t, size, s.fill_mode);
      if (f.index < 0 || f.index >= size)
        throw ValueError(where + ": fill_mode '" + s.fill_mode + "' reads index " + std::to_string(f.index) +
                         " of axis " + std::to_string(a) + " (size " + std::to_string(size) +
                         "), outside it (TensorFlow's gather fails there too)");
      valid = valid && f.valid;
      w = a == 0 ? weight[a][t] : w * weight[a][t];
      flat = flat * size + f.index;
    }
    visit(flat, valid, w);
  }
}

void check_rank(const Tensor& x, const std::string& where) {
  if (x.rank() > 8) throw ValueError(where + ": inputs of rank " + std::to_string(x.rank()) + " (at most 8)");
  for (int a = 0; a < x.rank(); ++a)
    if (x.shape()[a] == 0) throw ValueError(where + ": inputs " + x.shape().to_string() + " have an empty axis");
}

void map_coordinates_kernel(KernelContext& ctx) {
  const Tensor &x = ctx.input(0), &coordinates = ctx.input(1);
  const std::string where = ctx.node.op + " '" + ctx.node.name + "'";
  check_rank(x, where);
  const Sampling s = sampling_of(ctx);
  float* y = ctx.output(0).data<float>();
  const std::int64_t points = ctx.output(0).size();
  const float* in = x.data<float>();
  for (std::int64_t p = 0; p < points; ++p) {
    float sum = 0.0f;
    bool first = true;
    for_each_corner(x, coordinates, p, points, s, where, [&](std::int64_t flat, bool valid, float w) {
      const float term = w * (valid ? in[flat] : s.fill_value);
      sum = first ? term : sum + term;
      first = false;
    });
    y[p] = sum;
  }
}

void map_coordinates_adjoint_kernel(KernelContext& ctx) {
  const Tensor &dy = ctx.input(0), &x = ctx.input(1), &coordinates = ctx.input(2);
  const std::string where = ctx.node.op + " '" + ctx.node.name + "'";
  check_rank(x, where);
  const Sampling s = sampling_of(ctx);
  Tensor& dx = ctx.output(0);
  float* g = dx.data<float>();
  std::fill(g, g + dx.size(), 0.0f);
  const std::int64_t points = dy.size();
  for (std::int64_t p = 0; p < points; ++p) {
    const float d = dy.data<float>()[p];
    for_each_corner(x, coordinates, p, points, s, where, [&](std::int64_t flat, bool valid, float w) {
      if (valid) g[flat] += w * d;
    });
  }
}

}  // namespace

void register_map_coordinates_kernels(OpRegistry& r) {
  r.add_kernel("map_coordinates", DeviceType::cpu, {.run = map_coordinates_kernel});
  r.add_kernel("map_coordinates_adjoint", DeviceType::cpu, {.run = map_coordinates_adjoint_kernel});
}

}  // namespace strata::cpu
