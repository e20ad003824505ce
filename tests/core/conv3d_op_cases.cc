// Op cases for the 3-D convolution family (core/ops/conv_ops.cc): finite-difference
// gradient checks over several geometries (padding, strides, dilation, groups) and
// forward values against a naive loop written here. Registered into op_gradients_test's
// table.
#include "core/ops.h"
#include "core/ops/conv_ops.h"
#include "op_cases.h"

namespace strata::testing::conv3d_op_cases {
namespace {

using ops::Conv3DParams;

struct Geo3 {
  std::int64_t n, d, h, w, c, o, kd, kh, kw;
  Conv3DParams p;
  std::int64_t out(int a) const {
    const std::int64_t in[] = {d, h, w}, k[] = {kd, kh, kw};
    return ops::conv_output_length(in[a], k[a], p.strides[a], p.dilations[a], p.pads[2 * a], p.pads[2 * a + 1]);
  }
  Shape x_shape() const { return Shape{n, d, h, w, c}; }
  Shape k_shape() const { return Shape{kd, kh, kw, c / p.groups, o}; }
  Shape y_shape() const { return Shape{n, out(0), out(1), out(2), o}; }
};

// Calls f(x_index, kernel_index, y_index) for every in-bounds term of the convolution sum.
template <typename F>
void each_term(const Geo3& g, F f) {
  const std::int64_t cg = g.c / g.p.groups, og = g.o / g.p.groups;
  const std::int64_t od = g.out(0), oh = g.out(1), ow = g.out(2);
  for (std::int64_t n = 0; n < g.n; ++n)
    for (std::int64_t z = 0; z < od; ++z)
      for (std::int64_t y = 0; y < oh; ++y)
        for (std::int64_t x = 0; x < ow; ++x)
          for (std::int64_t o = 0; o < g.o; ++o)
            for (std::int64_t kz = 0; kz < g.kd; ++kz)
              for (std::int64_t ky = 0; ky < g.kh; ++ky)
                for (std::int64_t kx = 0; kx < g.kw; ++kx)
                  for (std::int64_t c = 0; c < cg; ++c) {
                    const std::int64_t iz = z * g.p.strides[0] + kz * g.p.dilations[0] - g.p.pads[0];
                    const std::int64_t iy = y * g.p.strides[1] + ky * g.p.dilations[1] - g.p.pads[2];
                    const std::int64_t ix = x * g.p.strides[2] + kx * g.p.dilations[2] - g.p.pads[4];
                    if (iz < 0 || iz >= g.d || iy < 0 || iy >= g.h || ix < 0 || ix >= g.w) continue;
                    const std::int64_t xi = (((n * g.d + iz) * g.h + iy) * g.w + ix) * g.c + (o / og) * cg + c;
                    const std::int64_t ki = (((kz * g.kh + ky) * g.kw + kx) * cg + c) * g.o + o;
                    const std::int64_t yi = (((n * od + z) * oh + y) * ow + x) * g.o + o;
                    f(xi, ki, yi);
                  }
}

Tensor ref_conv(const Geo3& g, const Tensor& x, const Tensor& k) {
  Tensor y(g.y_shape());
  each_term(g, [&](auto xi, auto ki, auto yi) { y.data<float>()[yi] += x.data<float>()[xi] * k.data<float>()[ki]; });
  return y;
}
Tensor ref_input_grad(const Geo3& g, const Tensor& dy, const Tensor& k) {
  Tensor dx(g.x_shape());
  each_term(g, [&](auto xi, auto ki, auto yi) { dx.data<float>()[xi] += dy.data<float>()[yi] * k.data<float>()[ki]; });
  return dx;
}
Tensor ref_filter_grad(const Geo3& g, const Tensor& x, const Tensor& dy) {
  Tensor dk(g.k_shape());
  each_term(g, [&](auto xi, auto ki, auto yi) { dk.data<float>()[ki] += x.data<float>()[xi] * dy.data<float>()[yi]; });
  return dk;
}

std::vector<std::pair<std::string, Geo3>> geometries() {
  return {
      {"2x2x2 valid", {2, 3, 3, 4, 2, 3, 2, 2, 2, {}}},
      {"3x2x3 pads and strides (2,1,2)", {1, 4, 3, 5, 2, 2, 3, 2, 3, {{2, 1, 2}, {1, 1, 1}, {1, 1, 0, 1, 1, 0}, 1}}},
      {"dilation (2,1,2) same", {1, 4, 3, 4, 1, 2, 2, 2, 2, {{1, 1, 1}, {2, 1, 2}, {1, 1, 0, 1, 1, 1}, 1}}},
      {"groups 2", {2, 2, 3, 3, 4, 2, 1, 2, 2, {{1, 1, 1}, {1, 1, 1}, {0, 0, 1, 0, 0, 1}, 2}}},
  };
}

std::vector<GradCase> conv3d_cases() {
  std::vector<GradCase> cases;
  std::uint64_t seed = 3000;
  for (const auto& [label, geometry] : geometries()) {
    const Geo3 g = geometry;  // lambdas capture it: clang 14 cannot capture a structured binding
    cases.push_back({label, binary([g](Output x, Output k) { return ops::conv3d(x, k, g.p); }),
                     {uniform(g.x_shape(), -1, 1, seed), uniform(g.k_shape(), -1, 1, seed + 1)},
                     [g](const std::vector<Tensor>& in) { return ref_conv(g, in[0], in[1]); }});
    seed += 2;
  }
  return cases;
}

std::vector<GradCase> backprop_input_cases() {
  std::vector<GradCase> cases;
  std::uint64_t seed = 3100;
  for (const auto& [label, geometry] : geometries()) {
    const Geo3 g = geometry;  // lambdas capture it: clang 14 cannot capture a structured binding
    cases.push_back({label,
                     binary([g](Output dy, Output k) { return ops::conv3d_backprop_input(dy, k, {g.d, g.h, g.w}, g.p); }),
                     {uniform(g.y_shape(), -1, 1, seed), uniform(g.k_shape(), -1, 1, seed + 1)},
                     [g](const std::vector<Tensor>& in) { return ref_input_grad(g, in[0], in[1]); }});
    seed += 2;
  }
  return cases;
}

std::vector<GradCase> backprop_filter_cases() {
  std::vector<GradCase> cases;
  std::uint64_t seed = 3200;
  for (const auto& [label, geometry] : geometries()) {
    const Geo3 g = geometry;  // lambdas capture it: clang 14 cannot capture a structured binding
    cases.push_back(
        {label,
         binary([g](Output x, Output dy) { return ops::conv3d_backprop_filter(x, dy, {g.kd, g.kh, g.kw}, g.p); }),
         {uniform(g.x_shape(), -1, 1, seed), uniform(g.y_shape(), -1, 1, seed + 1)},
         [g](const std::vector<Tensor>& in) { return ref_filter_grad(g, in[0], in[1]); }});
    seed += 2;
  }
  return cases;
}

const RegisterOpCases conv3d_op_cases({
    {"conv3d", OpCase{conv3d_cases()}},
    {"conv3d_backprop_input", OpCase{backprop_input_cases()}},
    {"conv3d_backprop_filter", OpCase{backprop_filter_cases()}},
});

}  // namespace
}  // namespace strata::testing::conv3d_op_cases
