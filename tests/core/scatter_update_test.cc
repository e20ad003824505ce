// scatter_update and gather_nd (core/ops/scatter_update.h): forward values against the rule
// applied element by element, gradients by finite differences for the reductions that have
// them (None, "add"), an index outside the inputs refused when the op runs, and the other
// reductions' gradient refused by name. Keras's own numbers: tests/io/keras_ops_test.cc
// (keras_ops_scatter_update_golden.json).
#include <gtest/gtest.h>

#include <string>
#include <vector>

#include "core/autodiff.h"
#include "core/ops.h"
#include "core/ops/scatter_update.h"
#include "core/program.h"
#include "op_cases.h"

namespace strata::testing::scatter_update_test {
namespace {

using V = const std::vector<Output>&;

// Element rows (0, 1), (2, 3) and (0, 1) again into a (3, 4) x; three distinct ones; slice row
// (1). With an index named twice, TensorFlow's gradient (which Strata's is) gives the replaced
// update the gradient there too, where finite differences see none: the replacing case's
// indices are distinct.
const Tensor kElementRows = Tensor::from_vector<std::int32_t>({3, 2}, {0, 1, 2, 3, 0, 1});
const Tensor kDistinctRows = Tensor::from_vector<std::int32_t>({3, 2}, {0, 1, 2, 3, 1, 0});
const Tensor kSliceRow = Tensor::from_vector<std::int32_t>({1, 1}, {1});

Output constant_indices(Graph& g, const Tensor& t) { return g.variable(Variable("indices", t, false)); }

// The rule element by element: x with each update applied in order.
Tensor reference(const std::vector<Tensor>& in, const Tensor& indices, const std::string& reduction) {
  Tensor y = in[0].clone();
  const std::int64_t depth = indices.shape()[1], rows = indices.shape()[0];
  std::int64_t slice = 1;
  for (int a = static_cast<int>(depth); a < y.rank(); ++a) slice *= y.shape()[a];
  for (std::int64_t r = 0; r < rows; ++r) {
    std::int64_t offset = 0;
    for (std::int64_t k = 0; k < depth; ++k)
      offset = offset * y.shape()[static_cast<int>(k)] + indices.data<std::int32_t>()[r * depth + k];
    for (std::int64_t j = 0; j < slice; ++j) {
      float& out = y.data<float>()[offset * slice + j];
      const float u = in[1].data<float>()[r * slice + j];
      out = reduction == "add" ? out + u : reduction == "max" ? std::max(out, u) : reduction == "mul" ? out * u : u;
    }
  }
  return y;
}

GradCase scatter_case(const std::string& reduction, const Tensor& indices, Shape updates, std::uint64_t seed) {
  return {"reduction '" + reduction + "', indices " + indices.shape().to_string(),
          [reduction, indices](Graph& g, V x) {
            return ops::scatter_update(x[0], constant_indices(g, indices), x[1], reduction);
          },
          {uniform({3, 4}, -1, 1, seed), uniform(std::move(updates), -1, 1, seed + 1)},
          [reduction, indices](const std::vector<Tensor>& in) { return reference(in, indices, reduction); }};
}

void check_scatter_update_forward() {
  const Tensor x = uniform({3, 4}, -1, 1, 501), u = uniform({3}, -1, 1, 502);
  for (const std::string reduction : {"max", "mul"}) {
    const Tensor got = evaluate(
        [&](Graph& g, V in) { return ops::scatter_update(in[0], constant_indices(g, kElementRows), in[1], reduction); },
        {x, u});
    EXPECT_TRUE(tensors_near(got, reference({x, u}, kElementRows, reduction), 0.f)) << reduction;
  }
  // An index outside x: an error when the op runs, naming the row.
  const Tensor outside = Tensor::from_vector<std::int32_t>({1, 2}, {3, 0});
  try {
    evaluate([&](Graph& g, V in) { return ops::scatter_update(in[0], constant_indices(g, outside), in[1]); },
             {x, uniform({1}, -1, 1, 503)});
    ADD_FAILURE() << "an index outside x was written";
  } catch (const ValueError& e) {
    EXPECT_NE(std::string(e.what()).find("[3, 0]"), std::string::npos) << e.what();
  }
  // The other reductions have no gradient in Strata: asking for one says so.
  Graph g;
  const Output xs = g.placeholder({Shape{3, 4}}), us = g.placeholder({Shape{3}});
  const Output y = ops::scatter_update(xs, constant_indices(g, kElementRows), us, "max");
  EXPECT_THROW(gradients(ops::reduce_sum(y), {xs}), NotImplementedError);
  EXPECT_THROW(ops::scatter_update(xs, constant_indices(g, kElementRows), g.placeholder({Shape{2}})), ShapeError);
}

void check_gather_nd() {
  const Tensor x = Tensor::from_vector<float>({2, 3}, {1, 2, 3, 4, 5, 6});
  EXPECT_EQ(evaluate([&](Graph& g, V in) { return ops::gather_nd(in[0], constant_indices(g, kSliceRow)); }, {x})
                .to_vector<float>(),
            (std::vector<float>{4, 5, 6}));
  const Tensor points = Tensor::from_vector<std::int32_t>({2, 2}, {1, 2, 0, 1});
  EXPECT_EQ(evaluate([&](Graph& g, V in) { return ops::gather_nd(in[0], constant_indices(g, points)); }, {x})
                .to_vector<float>(),
            (std::vector<float>{6, 2}));
}

// checked_indices passes rows inside the shape as they are (int32 and float32 whole numbers),
// and refuses a row outside it, a negative one, or a fraction, naming it, when the op runs.
void check_checked_indices() {
  const Tensor rows = Tensor::from_vector<std::int32_t>({3, 2}, {0, 0, 2, 3, 1, 1});
  const auto checked = [](const Tensor& indices) {
    return evaluate([](Graph&, V in) { return ops::checked_indices(in[0], {3, 4, 5}); }, {indices});
  };
  EXPECT_EQ(checked(rows).to_vector<std::int32_t>(), rows.to_vector<std::int32_t>());
  const Tensor floats = Tensor::from_vector<float>({2, 1}, {2, 0});
  EXPECT_EQ(checked(floats).to_vector<float>(), floats.to_vector<float>());
  const std::vector<std::pair<Tensor, std::string>> refused = {
      {Tensor::from_vector<std::int32_t>({2, 2}, {0, 0, 3, 1}), "index row 1 [3, 1] does not index into (3, 4, 5)"},
      {Tensor::from_vector<std::int32_t>({1, 2}, {0, -1}), "[0, -1]"},
      {Tensor::from_vector<float>({1, 1}, {0.5f}), "indices"},
  };
  for (const auto& [indices, says] : refused) {
    try {
      checked(indices);
      ADD_FAILURE() << "passed " << says;
    } catch (const ValueError& e) {
      EXPECT_NE(std::string(e.what()).find(says), std::string::npos) << e.what();
      EXPECT_NE(std::string(e.what()).find("checked_indices"), std::string::npos) << e.what();
    }
  }
}

const RegisterOpCases scatter_update_cases({
    {"scatter_update", OpCase{.gradient_checks = {scatter_case("", kDistinctRows, Shape{3}, 510),
                                                  scatter_case("add", kElementRows, Shape{3}, 520),
                                                  scatter_case("", kSliceRow, Shape{1, 4}, 530)},
                              .forward_check = check_scatter_update_forward}},
    {"gather_nd", OpCase{.forward_check = check_gather_nd}},
    {"checked_indices", OpCase{.forward_check = check_checked_indices}},
});

}  // namespace
}  // namespace strata::testing::scatter_update_test
