// Op cases for the scan family (core/ops/scan_ops.h): cumsum both ways, cumprod (with a
// zero in the input, where TensorFlow's gradient formula divides by zero), its gradient
// by hand, and reverse, each along the first, a middle and the last axis against a naive
// walk over the axis, with central finite differences for the gradients; argsort by hand
// (ties, NaN, both directions, both axes).
#include <gtest/gtest.h>

#include <cmath>

#include "core/ops/scan_ops.h"
#include "op_cases.h"

namespace strata::testing::scan_op_cases {
namespace {

// y[o, k, i] = f over x's lane (o, ·, i) of the axis, computed naively: each output
// element from its own walk over the lane.
Tensor along_axis(const Tensor& x, int axis, const std::function<float(const std::vector<float>&, std::int64_t)>& f) {
  const Shape& s = x.shape();
  axis = s.normalize_axis(axis);
  const std::int64_t outer = s.product(0, axis), n = s.dims()[static_cast<std::size_t>(axis)];
  const std::int64_t inner = s.product(axis + 1, s.rank());
  Tensor y(s);
  for (std::int64_t o = 0; o < outer; ++o) {
    for (std::int64_t i = 0; i < inner; ++i) {
      std::vector<float> lane;
      for (std::int64_t k = 0; k < n; ++k) lane.push_back(x.item((o * n + k) * inner + i));
      for (std::int64_t k = 0; k < n; ++k) y.data<float>()[(o * n + k) * inner + i] = f(lane, k);
    }
  }
  return y;
}

float sum_to(const std::vector<float>& lane, std::int64_t k) {
  float s = 0.f;
  for (std::int64_t j = 0; j <= k; ++j) s += lane[static_cast<std::size_t>(j)];
  return s;
}
float sum_from(const std::vector<float>& lane, std::int64_t k) {
  float s = 0.f;
  for (auto j = static_cast<std::int64_t>(lane.size()) - 1; j >= k; --j) s += lane[static_cast<std::size_t>(j)];
  return s;
}
float product_to(const std::vector<float>& lane, std::int64_t k) {
  float p = 1.f;
  for (std::int64_t j = 0; j <= k; ++j) p *= lane[static_cast<std::size_t>(j)];
  return p;
}

std::vector<GradCase> axis_cases(const std::function<Output(Output, int)>& op,
                                 const std::function<float(const std::vector<float>&, std::int64_t)>& ref,
                                 bool with_zero) {
  std::vector<GradCase> cases;
  std::uint64_t seed = 70;
  for (int axis : {0, 1, -1}) {
    Tensor x = uniform({3, 4, 5}, -1.5f, 1.5f, seed++);
    if (with_zero) x.data<float>()[6] = 0.f;  // lane (0, ·, 1) of axis 1: products after it are 0
    cases.push_back({"axis " + std::to_string(axis), unary([=](Output v) { return op(v, axis); }), {x},
                     [=](const std::vector<Tensor>& in) { return along_axis(in[0], axis, ref); }});
  }
  return cases;
}

const RegisterOpCases scan_cases({
    {"cumsum",
     OpCase{.gradient_checks = [] {
       auto cases = axis_cases([](Output x, int a) { return ops::cumsum(x, a); }, sum_to, false);
       for (auto& c : axis_cases([](Output x, int a) { return ops::cumsum(x, a, true); }, sum_from, false)) {
         c.label += " reverse";
         cases.push_back(std::move(c));
       }
       return cases;
     }()}},
    {"cumprod", OpCase{.gradient_checks = axis_cases([](Output x, int a) { return ops::cumprod(x, a); }, product_to,
                                                     true)}},
    {"reverse",
     OpCase{.gradient_checks = axis_cases([](Output x, int a) { return ops::reverse(x, a); },
                                          [](const std::vector<float>& lane, std::int64_t k) {
                                            return lane[lane.size() - 1 - static_cast<std::size_t>(k)];
                                          },
                                          false)}},
    {"cumprod_grad",
     OpCase{.forward_check = [] {
       // x = (2, 0, 3), g = 1s along axis 0: y = (2, 0, 0); dx_0 = 1 + x_1 + x_1·x_2 = 1,
       // dx_1 = x_0·(1 + x_2) = 8, dx_2 = x_0·x_1 = 0. Lane 2 (second column) has no zero.
       Tensor x = tensor<float>({3, 2}, {2.f, 1.f, 0.f, 2.f, 3.f, 4.f});
       Tensor g = tensor<float>({3, 2}, {1.f, 1.f, 1.f, 1.f, 1.f, 1.f});
       GraphBuilder build = [](Graph& graph, const std::vector<Output>& in) {
         return graph.add("cumprod_grad", {in[0], in[1]}, Attrs{{"axis", std::int64_t{0}}});
       };
       // Second lane: (1, 2, 4): dx_0 = 1 + 2 + 8 = 11, dx_1 = 1·(1 + 4) = 5, dx_2 = 1·2 = 2.
       EXPECT_TRUE(tensors_near(evaluate(build, {x, g}), tensor<float>({3, 2}, {1.f, 11.f, 8.f, 5.f, 0.f, 2.f}), 0.f));
     }}},
    {"argsort",
     OpCase{.forward_check = [] {
       // Rows (3, 1, 2, 1) and (NaN, -1, 5, -1): ascending, the equal 1s and -1s in their
       // order and NaN last; descending, NaN first and the equal ones still in order.
       const float nan = std::nanf("");
       const Tensor rows = tensor<float>({2, 4}, {3.f, 1.f, 2.f, 1.f, nan, -1.f, 5.f, -1.f});
       const Tensor columns = tensor<float>({4, 2}, {3.f, nan, 1.f, -1.f, 2.f, 5.f, 1.f, -1.f});
       auto positions = [](const Tensor& x, int axis, bool descending) {
         const GraphBuilder build = [=](Graph&, const std::vector<Output>& in) {
           return ops::argsort(in[0], axis, descending);
         };
         const Tensor y = evaluate(build, {x});
         EXPECT_EQ(y.dtype(), DType::int32);
         std::vector<int> out;
         for (std::int64_t i = 0; i < y.size(); ++i) out.push_back(static_cast<int>(y.item(i)));
         return out;
       };
       EXPECT_EQ(positions(rows, -1, false), (std::vector<int>{1, 3, 2, 0, 1, 3, 2, 0}));
       EXPECT_EQ(positions(rows, 1, true), (std::vector<int>{0, 2, 1, 3, 0, 2, 1, 3}));
       EXPECT_EQ(positions(columns, 0, false), (std::vector<int>{1, 1, 3, 3, 2, 2, 0, 0}));
       EXPECT_EQ(positions(columns, 0, true), (std::vector<int>{0, 0, 2, 2, 1, 1, 3, 3}));
     }}},
});

TEST(ScanOps, AxisOutOfRangeIsRefusedNamingTheOp) {
  Graph g;
  Output x = g.placeholder({Shape{2, 3}, DType::float32});
  EXPECT_NE(message_of([&] { ops::cumsum(x, 2); }).find("cumsum: axis 2 is out of range for input (2, 3)"),
            std::string::npos);
  EXPECT_NE(message_of([&] { ops::reverse(x, -3); }).find("reverse: axis -3"), std::string::npos);
}

}  // namespace
}  // namespace strata::testing::scan_op_cases
