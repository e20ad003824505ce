// The diagonal ops (core/ops/diag_ops.h): a vector onto a diagonal and a matrix's diagonal,
// sized from the fed shapes on each run of one program (the batch is a matrix axis in a
// functional model), offsets past the matrix giving empty diagonals, and gradients by finite
// differences. Keras's own numbers: tests/io/keras_ops_test.cc (keras_ops_batch_axis_golden.json).
#include <gtest/gtest.h>

#include <vector>

#include "core/ops.h"
#include "core/ops/diag_ops.h"
#include "core/program.h"
#include "op_cases.h"

namespace strata::testing::diag_ops_test {
namespace {

using V = const std::vector<Output>&;

Tensor diag_matrix_reference(const std::vector<Tensor>& in, std::int64_t k) {
  const std::int64_t n = in[0].size(), side = n + (k < 0 ? -k : k);
  Tensor m{Shape{side, side}};
  std::fill_n(m.data<float>(), m.size(), 0.f);
  for (std::int64_t i = 0; i < n; ++i) m.data<float>()[(i + (k < 0 ? -k : 0)) * side + i + (k > 0 ? k : 0)] = in[0].item(i);
  return m;
}

void check_diag_forward() {
  Graph g;
  const Output v = g.placeholder({Shape{kUnknownDim}});
  const Output m = ops::diag_matrix(v, -1);
  EXPECT_EQ(m.shape(), (Shape{kUnknownDim, kUnknownDim}));
  const Output part = ops::diag_part(m, -1);  // back to v
  Program p(g, {v}, {m, part});
  for (const Tensor& x : {tensor<float>({2}, {1, 2}), tensor<float>({3}, {4, 5, 6})}) {
    const auto out = p.run({x});
    EXPECT_TRUE(tensors_near(out[0], diag_matrix_reference({x}, -1), 0.f));
    EXPECT_TRUE(tensors_near(out[1], x, 0.f));
  }
  // Offsets past a (2, 3) matrix leave nothing; the adjoint puts a diagonal back in its shape.
  const Tensor a = tensor<float>({2, 3}, {1, 2, 3, 4, 5, 6});
  EXPECT_EQ(evaluate([](Graph&, V x) { return ops::diag_part(x[0], 1); }, {a}).to_vector<float>(),
            (std::vector<float>{2, 6}));
  EXPECT_EQ(evaluate([](Graph&, V x) { return ops::diag_part(x[0], 3); }, {a}).shape(), (Shape{0}));
  EXPECT_EQ(evaluate([](Graph&, V x) { return ops::diag_part(x[0], -2); }, {a}).shape(), (Shape{0}));
  EXPECT_EQ(evaluate([](Graph&, V x) { return ops::diag_part_adjoint(x[0], x[1], 1); },
                     {tensor<float>({2}, {7, 8}), a})
                .to_vector<float>(),
            (std::vector<float>{0, 7, 0, 0, 0, 8}));
  Graph bad;
  EXPECT_THROW(ops::diag_part(bad.placeholder({Shape{3}}), 0), ShapeError);
  EXPECT_THROW(ops::diag_part_adjoint(bad.placeholder({Shape{3}}), bad.placeholder({Shape{2, 3}}), 1), ShapeError);
}

const RegisterOpCases diag_cases({
    {"diag_matrix",
     OpCase{.gradient_checks = {{"k = 2",
                                 [](Graph&, V x) { return ops::diag_matrix(x[0], 2); },
                                 {uniform({3}, -1, 1, 550)},
                                 [](const std::vector<Tensor>& in) { return diag_matrix_reference(in, 2); }}},
            .forward_check = check_diag_forward}},
    {"diag_part", OpCase{.gradient_checks = {{"k = -1 of (4, 3)", [](Graph&, V x) { return ops::diag_part(x[0], -1); },
                                              {uniform({4, 3}, -1, 1, 551)}}}}},
    {"diag_part_adjoint", OpCase{.forward_check = check_diag_forward}},
});

}  // namespace
}  // namespace strata::testing::diag_ops_test
