// map_coordinates (core/ops/map_coordinates.h): linear sampling by hand, gradients to the
// inputs by finite differences (the adjoint adds each corner's weight at its index), and
// mirror's fold past the end refused when the op runs. Keras's own numbers:
// tests/io/keras_ops_test.cc (keras_ops_map_coordinates_golden.json).
#include <gtest/gtest.h>

#include <string>
#include <vector>

#include "core/ops.h"
#include "core/ops/map_coordinates.h"
#include "op_cases.h"

namespace strata::testing::map_coordinates_test {
namespace {

using V = const std::vector<Output>&;

Output constant_coordinates(Graph& g, std::vector<float> values, Shape shape) {
  return g.variable(Variable("coordinates", Tensor::from_vector<float>(std::move(shape), values), false));
}

void check_map_coordinates() {
  const Tensor x = tensor<float>({2, 3}, {1, 2, 3, 4, 5, 6});
  // (0.5, 1.5): the four corners' mean; (1, -1) outside: fill 9 for its column -1; (0, 2.25)
  // with "nearest": 3 and the clipped 3.
  auto sample = [&](const std::string& mode, std::vector<float> coordinates) {
    return evaluate([&](Graph& g, V in) {
      return ops::map_coordinates(in[0], constant_coordinates(g, coordinates, {2, 2}), 1, mode, 9.0);
    }, {x});
  };
  EXPECT_EQ(sample("constant", {0.5f, 1.f, 1.5f, -1.f}).to_vector<float>(), (std::vector<float>{4.f, 9.f}));
  EXPECT_EQ(sample("nearest", {0.f, 0.f, 2.25f, 2.f}).to_vector<float>(), (std::vector<float>{3.f, 3.f}));
  // mirror folds index 2 of an axis of 2 onto 2 itself: TensorFlow's gather fails, so does this.
  EXPECT_THROW(sample("mirror", {1.f, 0.f, 0.f, 0.f}), ValueError);
  Graph g;
  EXPECT_THROW(ops::map_coordinates(g.placeholder({Shape{2, 3}}), constant_coordinates(g, {0, 0, 0}, {3, 1}), 1,
                                    "constant", 0.0),
               ShapeError);  // three rows of coordinates for two axes
}

const RegisterOpCases map_coordinates_cases({
    {"map_coordinates",
     OpCase{.gradient_checks = {{"order 1, reflect, (3, 4) at 5 points",
                                 [](Graph& g, V x) {
                                   return ops::map_coordinates(
                                       x[0],
                                       constant_coordinates(g, {0.2f, 1.7f, -0.6f, 2.9f, 1.0f, 0.4f, 3.3f, 2.5f, -1.2f, 0.0f},
                                                            {2, 5}),
                                       1, "reflect", 0.0);
                                 },
                                 {uniform({3, 4}, -1, 1, 560)}}},
            .forward_check = check_map_coordinates}},
    {"map_coordinates_adjoint", OpCase{.forward_check = check_map_coordinates}},
});

}  // namespace
}  // namespace strata::testing::map_coordinates_test
