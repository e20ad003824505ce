// OpLayer (Keras 3 operation layers) on hand-worked values: the cases where a naive
// formula differs from NumPy / Keras (a NaN from the branch where() did not pick, Cast to
// bool, powers of negative bases, several softmax axes).
#include <gtest/gtest.h>

#include <cmath>

#include "core/error.h"
#include "core/program.h"
#include "layers/core/input_layer.h"
#include "layers/core/op_layer.h"

using namespace strata;
using layers::OpArgument;
using layers::OpLayer;

namespace op_layer_test {

namespace {

const std::string kNumpy = "keras.src.ops.numpy";

std::vector<float> run(const OpLayer& layer, const std::vector<Tensor>& xs) {
  std::vector<KerasTensor> symbolic;
  for (const auto& x : xs) symbolic.push_back(Input(x.shape().without_batch()));
  layer(symbolic);
  Graph g;
  std::vector<Output> feeds;
  for (const auto& x : xs) feeds.push_back(g.placeholder({x.shape().with_dim(0, kUnknownDim), DType::float32}));
  Program p(g, feeds, {layer.impl().call(g, feeds)[0]});
  return p.run(xs)[0].to_vector<float>();
}

Tensor row(std::vector<float> v) { return Tensor::from_vector<float>({1, static_cast<std::int64_t>(v.size())}, v); }

}  // namespace

TEST(OpLayer, WhereTakesOnlyTheChosenBranch) {
  // where(x > 0, log(x), 0): log(0) = -inf and log(-1) = NaN must not reach the output.
  OpLayer greater("Greater", kNumpy, {OpArgument::tensor(0), OpArgument::constant(0.0)});
  OpLayer log("Log", kNumpy, {OpArgument::tensor(0)});
  OpLayer where("Where", kNumpy, {OpArgument::tensor(0), OpArgument::tensor(1), OpArgument::constant(0.0)});
  auto x = Input({3});
  where(std::vector<KerasTensor>{greater(x), log(x)});  // builds the three layers
  Graph g;
  Output in = g.placeholder({Shape{kUnknownDim, 3}});
  Output c = greater.impl().call(g, {in})[0];
  Output l = log.impl().call(g, {in})[0];
  Program p(g, {in}, {where.impl().call(g, {c, l})[0]});
  auto out = p.run({row({std::exp(1.f), 0.f, -1.f})})[0].to_vector<float>();
  EXPECT_NEAR(out[0], 1.f, 1e-6);
  EXPECT_EQ(out[1], 0.f);
  EXPECT_EQ(out[2], 0.f);
}

// Digitize counts the bins x is not below, as TensorFlow's Bucketize: NaN past the last.
TEST(OpLayer, DigitizePutsNaNPastTheLastBin) {
  OpArgument bins;
  bins.kind = OpArgument::Kind::array;
  bins.values = {0.0, 1.0, 2.0};
  bins.shape = {3};
  OpLayer digitize("Digitize", kNumpy, {OpArgument::tensor(0), bins});
  digitize(Input({6}));
  Graph g;
  Output in = g.placeholder({Shape{kUnknownDim, 6}});
  Program p(g, {in}, {digitize.impl().call(g, {in})[0]});
  const Tensor buckets = p.run({row({-1.f, 0.f, 1.5f, 2.f, 9.f, std::nanf("")})})[0];
  EXPECT_EQ(buckets.to_vector<std::int32_t>(), (std::vector<std::int32_t>{0, 1, 2, 3, 3, 3}));
}

TEST(OpLayer, CastToBoolIsNonZero) {
  OpLayer cast("Cast", "keras.src.ops.core", {OpArgument::tensor(0)}, {{"dtype", std::string("bool")}});
  EXPECT_EQ(run(cast, {row({0.5f, -1.f, 0.f, 2.f})}), (std::vector<float>{1, 1, 0, 1}));
}

TEST(OpLayer, PowerOfNegativeBasesWithWholeExponents) {
  OpLayer cube("Power", kNumpy, {OpArgument::tensor(0), OpArgument::constant(3.0)});
  EXPECT_EQ(run(cube, {row({-2.f, 3.f})}), (std::vector<float>{-8.f, 27.f}));
  OpLayer inverse("Power", kNumpy, {OpArgument::tensor(0), OpArgument::constant(-1.0)});
  EXPECT_EQ(run(inverse, {row({-1.f, 4.f})}), (std::vector<float>{-1.f, 0.25f}));
}

TEST(OpLayer, SoftmaxOverSeveralAxes) {
  OpLayer softmax("Softmax", "keras.src.ops.nn", {OpArgument::tensor(0)},
                  {{"axis", std::vector<std::int64_t>{1, 2}}});
  auto y = run(softmax, {Tensor::from_vector<float>({1, 2, 2}, {0, 0, 0, 0})});
  EXPECT_EQ(y, (std::vector<float>{0.25f, 0.25f, 0.25f, 0.25f}));
}

TEST(OpLayer, MaxWithInitialAndUnknownOperationsAreRefused) {
  OpLayer max("Max", kNumpy, {OpArgument::tensor(0)}, {{"axis", std::int64_t{1}}, {"initial", 0.0}});
  EXPECT_THROW(run(max, {row({1.f})}), NotImplementedError);
  EXPECT_THROW(OpLayer("Argpartition", kNumpy, {OpArgument::tensor(0)}), NotImplementedError);
}

}  // namespace op_layer_test
