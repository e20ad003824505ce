// TensorFlow's stateless normal draws, reproduced (core/tf_stateless_random.h), against
// TensorFlow 2.21's own: tests/data/tf_stateless_normal_golden.json
// (tests/reference/make_tf_stateless_normal_goldens.py), 1031 draws for each of six int32
// seed pairs (negative ones, the extremes, a nonzero second seed). Box-Muller in float: the
// sine, cosine and logarithm may round differently from TensorFlow's by an ulp or two, so
// within 2e-6 relative. And the op that draws them shaped like a tensor.
#include <gtest/gtest.h>

#include <cmath>
#include <fstream>

#include <nlohmann/json.hpp>

#include "core/ops/random_ops.h"
#include "core/program.h"
#include "core/tf_stateless_random.h"
#include "op_cases.h"

namespace strata {
namespace {

using namespace strata::testing;

nlohmann::json goldens() {
  std::ifstream f(std::string(STRATA_TEST_DATA) + "/tf_stateless_normal_golden.json");
  EXPECT_TRUE(f) << "no tests/data/tf_stateless_normal_golden.json";
  return nlohmann::json::parse(f);
}

TEST(TfStatelessNormal, DrawsWhatTensorFlowDraws) {
  const nlohmann::json g = goldens();
  ASSERT_EQ(g["cases"].size(), 6u);
  for (const auto& c : g["cases"]) {
    const auto seed = c["seed"].get<std::vector<std::int64_t>>();
    const auto want = c["draws"].get<std::vector<float>>();
    const TfStatelessNormal draws(seed[0], seed[1]);
    int bad = 0;
    for (std::size_t i = 0; i < want.size(); ++i) {
      const float got = draws(i);
      if (!(std::fabs(got - want[i]) <= 2e-6f * std::max(1.0f, std::fabs(want[i]))) && ++bad <= 3) {
        ADD_FAILURE() << "seed [" << seed[0] << ", " << seed[1] << "] draw " << i << ": " << got << ", TensorFlow "
                      << want[i];
      }
    }
    EXPECT_EQ(bad, 0) << "seed [" << seed[0] << ", " << seed[1] << "]";
  }
}

// The op: the draws in row-major order of `like`'s shape, the same at every run.
TEST(TfStatelessNormal, TheOpDrawsThemShapedLikeItsInput) {
  const nlohmann::json g = goldens();
  const auto& c = g["cases"][0];
  const auto want = c["draws"].get<std::vector<float>>();
  Graph graph;
  const Output like = graph.placeholder({Shape{kUnknownDim, 3, 5}, DType::float32});
  const Output noise = ops::tf_stateless_normal_like(like, c["seed"][0].get<std::int64_t>(), 0);
  Program p(graph, {like}, {noise});
  for (int run = 0; run < 2; ++run) {
    const Tensor out = p.run({Tensor(Shape{4, 3, 5})})[0];
    ASSERT_EQ(out.shape(), (Shape{4, 3, 5}));
    for (std::int64_t i = 0; i < out.size(); ++i) EXPECT_NEAR(out.item(i), want[i], 2e-6) << i;
  }
}

// The op in the table of every op: draw g of the step's global batch at element g (a
// data-parallel shard starting at sample_offset continues one process's draws), the same
// at every step; no gradient reaches `like`.
void check_numbering() {
  const TfStatelessNormal draws(-4, 0);
  for (const std::int64_t offset : {0, 3}) {
    for (const std::int64_t step : {0, 5}) {
      Graph g;
      const Output like = g.placeholder({Shape{kUnknownDim, 2, 3}, DType::float32});
      Program p(g, {like}, {ops::tf_stateless_normal_like(like, -4, 0)});
      const Tensor out =
          p.run({Tensor(Shape{3, 2, 3})}, {.training = true, .step = step, .sample_offset = offset})[0];
      for (std::int64_t i = 0; i < out.size(); ++i) {
        ASSERT_EQ(out.item(i), draws(static_cast<std::uint64_t>(offset * 6 + i)))
            << "sample offset " << offset << ", step " << step << ", element " << i;
      }
    }
  }
}
const RegisterOpCases tf_stateless_cases(
    {{"tf_stateless_normal_like",
      OpCase{{{"(3, 4)", unary([](Output x) { return ops::tf_stateless_normal_like(x, 7, 0); }),
               {uniform({3, 4}, -1, 1, 5)}}},
             check_numbering}}});

}  // namespace
}  // namespace strata
