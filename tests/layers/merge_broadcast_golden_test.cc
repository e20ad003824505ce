// The merge layers (Add, Subtract, Multiply, Average, Maximum, Minimum) on inputs of
// different ranks, against real Keras 3: tests/data/merge_broadcast_golden.json
// (tests/reference/make_merge_broadcast_goldens.py). Keras widens a lower-rank input with
// size-1 axes right after its batch axis; the cases use a batch of 3 beside a middle axis
// of 3, so broadcasting from the right would give other numbers, not only another shape.
#include <gtest/gtest.h>

#include <string>
#include <vector>

#include "core/autodiff.h"
#include "core/error.h"
#include "core/ops.h"
#include "core/program.h"
#include "golden_json.h"
#include "io/layer_config.h"
#include "layers/core/input_layer.h"
#include "layers/merging/merge.h"
#include "models/model.h"

using namespace strata;
using nlohmann::ordered_json;

namespace merge_broadcast_golden_test {

namespace {

const ordered_json& goldens() { return strata::testing::golden_file("merge_broadcast_golden.json"); }

const ordered_json& find_case(const std::string& list, const std::string& name) {
  for (const auto& c : goldens().at(list))
    if (c.at("name") == name) return c;
  throw std::runtime_error("no golden case " + name);
}

Layer from_keras_config(const ordered_json& c) {
  return io::layer_from_config(ordered_json{{"class_name", c.at("class_name")}, {"config", c.at("config")}}, {});
}

std::vector<std::string> names_of(const std::string& list) {
  std::vector<std::string> names;
  for (const auto& c : goldens().at(list)) names.push_back(c.at("name").get<std::string>());
  return names;
}

class MergeBroadcastGolden : public ::testing::TestWithParam<std::string> {};

// The layer made from Keras's config, traced on placeholders with an unknown batch, its
// output and input gradients run at batch 3.
TEST_P(MergeBroadcastGolden, OutputAndGradientsMatchKeras) {
  const ordered_json& c = find_case("cases", GetParam());
  Layer layer = from_keras_config(c);
  std::vector<Tensor> xs;
  std::vector<KerasTensor> symbolic;
  for (const auto& in : c.at("inputs")) {
    xs.push_back(strata::testing::golden_tensor(in));
    symbolic.push_back(Input(xs.back().shape().without_batch()));
  }
  const KerasTensor defined = layer(symbolic)[0];
  const Tensor expected_output = strata::testing::golden_tensor(c.at("output"));
  EXPECT_EQ(defined.shape().without_batch(), expected_output.shape().without_batch())
      << "shape inferred when the layer is called";

  Graph g;
  std::vector<Output> feeds;
  for (const auto& x : xs) feeds.push_back(g.placeholder({x.shape().with_dim(0, kUnknownDim), DType::float32}));
  Output y = layer.impl().call(g, feeds)[0];
  const Tensor projection = strata::testing::golden_tensor(c.at("projection"));
  Output proj = g.placeholder({projection.shape(), DType::float32}, "projection");
  std::vector<Output> fetches{y};
  for (const Output& grad : gradients(ops::reduce_sum(ops::mul(y, proj)), feeds)) fetches.push_back(grad);
  std::vector<Output> all_feeds = feeds;
  all_feeds.push_back(proj);
  std::vector<Tensor> run_feeds = xs;
  run_feeds.push_back(projection);
  const auto out = Program(g, all_feeds, fetches).run(run_feeds);

  EXPECT_TRUE(strata::testing::golden_near(out[0], c.at("output"), "output"));
  for (std::size_t i = 0; i < xs.size(); ++i)
    EXPECT_TRUE(strata::testing::golden_near(out[1 + i], c.at("input_grads")[i], "gradient of input " + std::to_string(i)));
}

INSTANTIATE_TEST_SUITE_P(Keras3, MergeBroadcastGolden, ::testing::ValuesIn(names_of("cases")),
                         [](const auto& info) { return strata::testing::test_name_of(info.param); });

class MergeBroadcastError : public ::testing::TestWithParam<std::string> {};

// Shapes Keras refuses are refused when the layer is called, naming the layer.
TEST_P(MergeBroadcastError, RefusedWhenCalledAsInKeras) {
  const ordered_json& c = find_case("errors", GetParam());
  Layer layer = from_keras_config(c);
  std::vector<KerasTensor> symbolic;
  for (const auto& s : c.at("shapes")) symbolic.push_back(Input(Shape(s.get<std::vector<std::int64_t>>())));
  try {
    layer(symbolic);
    FAIL() << "accepted shapes Keras refuses: " << c.at("keras_error");
  } catch (const ShapeError& e) {
    EXPECT_NE(std::string(e.what()).find(layer.name()), std::string::npos) << e.what();
  }
}

INSTANTIATE_TEST_SUITE_P(Keras3, MergeBroadcastError, ::testing::ValuesIn(names_of("errors")),
                         [](const auto& info) { return strata::testing::test_name_of(info.param); });

// The reported case through the public API: a functional model multiplying a (3, 4)
// sequence by a per-sample (4,) vector predicts Keras's numbers at batch 3.
TEST(MergeBroadcast, FunctionalModelPredictsKerasNumbers) {
  const ordered_json& c = find_case("cases", "multiply_r2_r3");
  auto gate = Input({4});
  auto sequence = Input({3, 4});
  Model model({gate, sequence}, layers::Multiply()({gate, sequence}));
  const auto& in = c.at("inputs");
  const std::vector<Tensor> y =
      model.predict(std::vector<Tensor>{strata::testing::golden_tensor(in[0]), strata::testing::golden_tensor(in[1])});
  ASSERT_EQ(y.size(), 1u);
  EXPECT_TRUE(strata::testing::golden_near(y[0], c.at("output"), "predict"));
}

// Inputs whose fixed batch sizes differ are refused, as Keras refuses them.
TEST(MergeBroadcast, DifferentFixedBatchSizesAreRefused) {
  auto a = Input({4}, {.batch_size = 2});
  auto b = Input({3, 4}, {.batch_size = 5});
  EXPECT_THROW(layers::Add()({a, b}), ShapeError);
}

}  // namespace

}  // namespace merge_broadcast_golden_test
